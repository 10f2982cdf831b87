package io.cnichain.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Combines runs (median over runs, with the spread), prints the tables, and writes the result file. */
final class Report
{
    /** Every figure, in the order of the tables, with what it means. */
    static final Map<String, String> LABELS = labels();

    private Report() {}

    private static Map<String, String> labels()
    {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("reaction_median_ms", "reaction, primary's rename to patched file: median (ms)");
        labels.put("reaction_p95_ms", "reaction: p95 (ms)");
        labels.put("reaction_p99_ms", "reaction: p99 (ms)");
        labels.put("reaction_max_ms", "reaction: largest (ms)");
        labels.put("reaction_first_trials_median_ms", "reaction: median of the first 10 trials after start (ms)");
        labels.put("reaction_second_half_median_ms", "reaction: median of the second half of the trials (ms)");
        labels.put("startup_ms", "start-up to first patched file: median of the run's starts (ms)");
        labels.put("startup_with_podman_ms", "start-up counted from `podman create` (ms)");
        labels.put("startup_from_jvm_ms", "start-up counted from the JVM's first thread, after runc and the launcher (ms)");
        labels.put("startup_min_ms", "start-up: fastest (ms)");
        labels.put("startup_max_ms", "start-up: slowest (ms)");
        labels.put("vm_creation_ms", "JVM creation (\"Create VM\"), the agent's AOT cache against the JDK's default archive (ms)");
        labels.put("idle_rss_mib", "resident memory after idling (MiB)");
        labels.put("idle_archive_rss_mib", "of it, the class-data archive: the agent's AOT cache, the JDK's default archive for the floor (MiB)");
        labels.put("idle_cpu_s_per_min", "CPU while idle (s per minute)");
        labels.put("idle_wakeups_per_s", "wake-ups while idle, all threads (per s)");
        labels.put("threads", "threads");
        labels.put("storm_correct", "storm: final state correct (1 = yes)");
        labels.put("storm_write_s", "storm: time to write it (s)");
        labels.put("storm_cpu_s", "storm: CPU (s)");
        labels.put("storm_log_lines", "storm: log lines");
        labels.put("storm_rss_mib", "resident memory after the storm (MiB)");
        labels.put("scale_first_pass_ms_small", "link chain, 10 entries: start-up to patched file (ms)");
        labels.put("scale_first_pass_ms_large", "link chain, thousands of entries: start-up to patched file (ms)");
        labels.put("scale_reaction_median_ms_small", "link chain, 10 entries: reaction median (ms)");
        labels.put("scale_reaction_p95_ms_small", "link chain, 10 entries: reaction p95 (ms)");
        labels.put("scale_reaction_median_ms_large", "link chain, thousands of entries: reaction median (ms)");
        labels.put("scale_reaction_p95_ms_large", "link chain, thousands of entries: reaction p95 (ms)");
        labels.put("periodic_check_cpu_us", "periodic check: CPU of the reconcile thread per check (µs)");
        labels.put("periodic_check_alloc_kib", "periodic check: heap allocated by the reconcile thread per check (KiB)");
        labels.put("periodic_check_wakeups", "periodic check: wake-ups of the reconcile thread per check");
        return labels;
    }

    /**
     * @param median the median over runs
     * @param min    the smallest run's figure
     * @param max    the largest run's figure
     * @param values every run's figure
     */
    record Spread(double median, double min, double max, List<Double> values) {}

    /** @param met whether the target is met; @param detail the figures behind it */
    record Target(String name, boolean met, String detail) {}

    static Map<String, Map<String, Spread>> summarize(List<Figures> runs)
    {
        Map<String, Map<String, List<Double>>> collected = new LinkedHashMap<>();
        for (Figures run : runs) {
            run.values().forEach((program, figures) -> figures.forEach((figure, value) ->
                    collected.computeIfAbsent(program, p -> new LinkedHashMap<>()).computeIfAbsent(figure, f -> new ArrayList<>()).add(value)));
        }
        Map<String, Map<String, Spread>> summary = new LinkedHashMap<>();
        collected.forEach((program, figures) -> figures.forEach((figure, values) -> summary.computeIfAbsent(program, p -> new LinkedHashMap<>())
                .put(figure, new Spread(Stats.median(values), Stats.min(values), Stats.max(values), List.copyOf(values)))));
        return summary;
    }

    static void printRun(Figures figures)
    {
        figures.values().forEach((program, values) -> {
            StringBuilder line = new StringBuilder("  " + program + ":");
            values.forEach((figure, value) -> line.append(' ').append(figure).append('=').append(Run.format(value)));
            System.out.println(line);
        });
        figures.notes().forEach((program, notes) -> notes.forEach((figure, text) -> System.out.printf("  %s %s: %s%n", program, figure, text)));
    }

    static void printSummary(Map<String, Map<String, Spread>> summary, String agent, String floor)
    {
        int runs = summary.get(agent).values().iterator().next().values().size();
        System.out.printf("| figure (median of %d run(s); min-max) | %s | %s | ratio |%n|---|---|---|---|%n", runs, agent, floor);
        LABELS.forEach((figure, label) -> {
            Spread a = summary.getOrDefault(agent, Map.of()).get(figure);
            Spread f = summary.getOrDefault(floor, Map.of()).get(figure);
            if (a == null && f == null) {
                return;
            }
            String ratio = a != null && f != null && f.median() > 0 ? String.format(Locale.ROOT, "%.2fx", a.median() / f.median()) : "";
            System.out.printf("| %s | %s | %s | %s |%n", label, cell(a), cell(f), ratio);
        });
    }

    /** One more row: the agent's start-up against another floor's (one that pays for something the agent does too). */
    static void printStartupAgainst(Map<String, Map<String, Spread>> summary, String agent, String floor, String other)
    {
        Spread a = summary.getOrDefault(agent, Map.of()).get("startup_ms");
        Spread f = summary.getOrDefault(floor, Map.of()).get("startup_ms");
        Spread o = summary.getOrDefault(other, Map.of()).get("startup_ms");
        if (a == null || f == null || o == null) {
            return;
        }
        System.out.printf("| start-up against %s, the floor linking the kernel's calls first (itself %s the floor's) (ms) | %s | %s | %s |%n",
                other, String.format(Locale.ROOT, "%.2fx", o.median() / f.median()), cell(a), cell(o), String.format(Locale.ROOT, "%.2fx", a.median() / o.median()));
    }

    private static String cell(Spread spread)
    {
        if (spread == null) {
            return "";
        }
        if (spread.values().size() == 1 || spread.min() == spread.max()) {
            return number(spread.median());
        }
        return number(spread.median()) + " (" + number(spread.min()) + "-" + number(spread.max()) + ")";
    }

    static String number(double value)
    {
        double abs = Math.abs(value);
        String format = abs >= 100 ? "%.0f" : abs >= 10 ? "%.1f" : abs >= 0.1 || abs == 0 ? "%.2f" : "%.3f";
        return String.format(Locale.ROOT, format, value);
    }

    static void printTargets(List<Target> targets)
    {
        System.out.println();
        for (Target target : targets) {
            System.out.printf("%-6s %s: %s%n", target.met() ? "MET" : "MISSED", target.name(), target.detail());
        }
    }

    static String json(Map<String, Object> context, List<Figures> runs, Map<String, Map<String, Spread>> summary, List<Target> targets, List<String> failures)
    {
        StringBuilder out = new StringBuilder("{\n  \"context\": {");
        String separator = "\n";
        for (Map.Entry<String, Object> entry : context.entrySet()) {
            out.append(separator).append("    ").append(string(entry.getKey())).append(": ").append(string(String.valueOf(entry.getValue())));
            separator = ",\n";
        }
        out.append("\n  },\n  \"summary\": {");
        separator = "\n";
        for (var program : summary.entrySet()) {
            out.append(separator).append("    ").append(string(program.getKey())).append(": {");
            String inner = "\n";
            for (var figure : program.getValue().entrySet()) {
                Spread s = figure.getValue();
                out.append(inner).append("      ").append(string(figure.getKey())).append(": {\"median\": ").append(s.median())
                        .append(", \"min\": ").append(s.min()).append(", \"max\": ").append(s.max()).append(", \"runs\": ").append(s.values()).append('}');
                inner = ",\n";
            }
            out.append("\n    }");
            separator = ",\n";
        }
        out.append("\n  },\n  \"notes\": [");
        separator = "\n";
        for (Figures run : runs) {
            for (var program : run.notes().entrySet()) {
                for (var note : program.getValue().entrySet()) {
                    out.append(separator).append("    ").append(string(program.getKey() + " " + note.getKey() + ": " + note.getValue()));
                    separator = ",\n";
                }
            }
        }
        out.append("\n  ],\n  \"targets\": [");
        separator = "\n";
        for (Target target : targets) {
            out.append(separator).append("    {\"target\": ").append(string(target.name())).append(", \"met\": ").append(target.met())
                    .append(", \"detail\": ").append(string(target.detail())).append('}');
            separator = ",\n";
        }
        out.append("\n  ],\n  \"failures\": [");
        separator = "\n";
        for (String failure : failures) {
            out.append(separator).append("    ").append(string(failure));
            separator = ",\n";
        }
        return out.append("\n  ]\n}\n").toString();
    }

    static String string(String value)
    {
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    }
                    else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
