package io.cnichain.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One run of every measurement, on fresh temp nodes, the programs taking turns so that a drift of the machine's speed
 * touches both alike: start-up (each program started in turn, {@link Startups}), reaction (one rewrite a second for
 * each, in turn), idle (both idle at the same time, each on its own node), the event storm (one after the other),
 * scale, and the agent's periodic check ({@link PeriodicCheck}).
 */
final class Run
{
    private final Settings settings;
    private final List<Program> programs;
    /** Programs measured at start-up only (the floor linking the kernel's calls). */
    private final List<Program> startupOnly;
    private final Path logs;
    private final Figures figures = new Figures();

    Run(Settings settings, List<Program> programs, List<Program> startupOnly, Path logs)
    {
        this.settings = settings;
        this.programs = List.copyOf(programs);
        this.startupOnly = List.copyOf(startupOnly);
        this.logs = logs;
    }

    Figures measure()
            throws Exception
    {
        if (settings.only("reaction") || settings.only("idle")) {
            steadyState();
            return figures;
        }
        if (settings.only("periodic")) {
            new PeriodicCheck(settings, logs, figures).measure(programs.get(0));
            return figures;
        }
        if (settings.only("scale")) {
            scale();
            return figures;
        }
        new Startups(settings, logs, figures).measure(programs, startupOnly);
        if (settings.only("startup")) {
            return figures;
        }
        steadyState();
        scale();
        new PeriodicCheck(settings, logs, figures).measure(programs.get(0));
        return figures;
    }

    /** Reaction, then idle, then the storm, on one long-running process of each program. */
    private void steadyState()
            throws Exception
    {
        Map<Program, Node> nodes = new LinkedHashMap<>();
        Map<Program, Program.Running> running = new LinkedHashMap<>();
        try {
            for (Program program : programs) {
                Node node = Node.create(false, 0);
                nodes.put(program, node);
                Path log = logs.resolve(program.name() + "-steady.log");
                long start = System.nanoTime();
                running.put(program, program.start(node, log));
                node.awaitPatched(start, running.get(program));
            }
            Map<Program, List<Double>> reactions = reactions(nodes, running, settings.trials());
            reactions.forEach((program, list) -> {
                put(program, "reaction_median_ms", Stats.median(list));
                put(program, "reaction_p95_ms", Stats.percentile(list, 95));
                put(program, "reaction_p99_ms", Stats.percentile(list, 99));
                put(program, "reaction_max_ms", Stats.max(list));
                // The JIT compiles a method once it has run a few hundred times: the first reactions after a start run
                // mostly interpreted, as the rare reactions of a node in service do; the later ones partly compiled.
                put(program, "reaction_first_trials_median_ms", Stats.median(list.subList(0, Math.min(FIRST_TRIALS, list.size()))));
                put(program, "reaction_second_half_median_ms", Stats.median(list.subList(list.size() / 2, list.size())));
            });
            if (settings.only("reaction")) {
                return;
            }
            idle(running);
            if (settings.only("idle")) {
                return;
            }
            for (Program program : programs) {
                storm(program, nodes.get(program), running.get(program));
            }
        }
        finally {
            for (Program program : programs) {
                if (running.containsKey(program)) {
                    stop(figures, program, running.get(program), nodes.get(program));
                }
                nodes.get(program).close();
            }
        }
    }

    /** The first trials after a start, reported apart from the rest. */
    private static final int FIRST_TRIALS = 10;

    /**
     * One rewrite of each program's primary a second, the programs in turn.
     *
     * @return milliseconds from the primary's rename to the patched file, by program
     */
    private Map<Program, List<Double>> reactions(Map<Program, Node> nodes, Map<Program, Program.Running> running, int trials)
            throws Exception
    {
        Map<Program, List<Double>> reactions = new LinkedHashMap<>();
        long gap = 1000 / nodes.size();
        for (int i = 0; i < trials; i++) {
            for (Map.Entry<Program, Node> entry : nodes.entrySet()) {
                Thread.sleep(gap);
                Node node = entry.getValue();
                long start = node.rewritePrimary();
                reactions.computeIfAbsent(entry.getKey(), p -> new ArrayList<>()).add(node.awaitPatched(start, running.get(entry.getKey())));
            }
        }
        return reactions;
    }

    /** Both programs idle at once: CPU, wake-ups by thread, and resident memory at the end. */
    private void idle(Map<Program, Program.Running> running)
            throws Exception
    {
        Thread.sleep(2000);
        Map<Program, Double> cpu = new LinkedHashMap<>();
        Map<Program, Map<String, Long>> switches = new LinkedHashMap<>();
        for (Map.Entry<Program, Program.Running> entry : running.entrySet()) {
            cpu.put(entry.getKey(), Proc.cpuSeconds(entry.getValue().pid()));
            switches.put(entry.getKey(), Proc.switchesByThread(entry.getValue().pid()));
        }
        System.out.printf("  idle for %d s%n", settings.idleSeconds());
        Thread.sleep(settings.idleSeconds() * 1000L);
        for (Map.Entry<Program, Program.Running> entry : running.entrySet()) {
            Program program = entry.getKey();
            long pid = entry.getValue().pid();
            double minutes = settings.idleSeconds() / 60.0;
            put(program, "idle_cpu_s_per_min", (Proc.cpuSeconds(pid) - cpu.get(program)) / minutes);
            Map<String, Long> before = switches.get(program);
            Map<String, Long> woke = new LinkedHashMap<>();
            long total = 0;
            for (Map.Entry<String, Long> thread : Proc.switchesByThread(pid).entrySet()) {
                long delta = thread.getValue() - before.getOrDefault(thread.getKey(), 0L);
                if (delta > 0) {
                    woke.put(thread.getKey(), delta);
                    total += delta;
                }
            }
            put(program, "idle_wakeups_per_s", total / (double) settings.idleSeconds());
            figures.note(program.name(), "idle_wakeups_by_thread", woke.toString());
            put(program, "idle_rss_mib", Proc.rssMib(pid, "VmRSS"));
            put(program, "idle_archive_rss_mib", Proc.archiveRssMib(pid));
            put(program, "threads", Proc.threads(pid));
        }
    }

    /**
     * 10 000 hidden temp files created and deleted in the conf dir, the primary rewritten once in the middle; then
     * the program is given until its CPU time stops moving for a second.
     */
    private void storm(Program program, Node node, Program.Running running)
            throws Exception
    {
        long pid = running.pid();
        double cpuBefore = Proc.cpuSeconds(pid);
        long linesBefore = running.logLines();
        long start = System.nanoTime();
        byte[] content = "{\"partial\": true}\n".getBytes();
        for (int i = 0; i < settings.stormFiles(); i++) {
            Path temp = node.conf.resolve(".storm-" + i + ".tmp");
            Files.write(temp, content);
            Files.delete(temp);
            if (i == settings.stormFiles() / 2) {
                node.rewritePrimary();
            }
        }
        double writeSeconds = (System.nanoTime() - start) / 1e9;
        double cpu = Proc.cpuSeconds(pid);
        long settleDeadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < settleDeadline) {
            Thread.sleep(1000);
            double now = Proc.cpuSeconds(pid);
            if (now == cpu && node.patched()) {
                break;
            }
            cpu = now;
        }
        String primary = Files.readString(node.primaryFile);
        int entries = primary.split("\"type\": \"linkerd-cni\"", -1).length - 1;
        boolean correct = entries == 1;
        if (!correct) {
            figures.fail(program.name() + ": after the storm the primary holds " + entries + " entries of ours, not 1");
        }
        put(program, "storm_correct", correct ? 1 : 0);
        put(program, "storm_write_s", writeSeconds);
        put(program, "storm_cpu_s", Proc.cpuSeconds(pid) - cpuBefore);
        put(program, "storm_log_lines", running.logLines() - linesBefore);
        put(program, "storm_rss_mib", Proc.rssMib(pid, "VmRSS"));
    }

    /**
     * A conf dir of 10 entries and one of thousands, the primary behind a chain of two links in both: the first pass
     * (start-up to the patched file) and the reaction on each, the agent's and the floor's (on the large one).
     */
    private void scale()
            throws Exception
    {
        Map<Program, Node> nodes = new LinkedHashMap<>();
        Map<Program, Program.Running> running = new LinkedHashMap<>();
        Map<Program, String> labels = new LinkedHashMap<>();
        try {
            for (Program program : programs) {
                for (int others : List.of(8, settings.scaleEntries() - 2)) {
                    Node node = Node.create(true, others);
                    // A program object per size, so that the two sizes are two series.
                    Program sized = new Sized(program, node.entries());
                    if (!program.name().equals("cni-chain") && others < 100) {
                        node.close();
                        continue;
                    }
                    nodes.put(sized, node);
                    labels.put(sized, program.name());
                    Path log = logs.resolve(program.name() + "-scale-" + node.entries() + ".log");
                    long start = System.nanoTime();
                    running.put(sized, program.start(node, log));
                    put(program, "scale_first_pass_ms_" + label(node), node.awaitPatched(start, running.get(sized)));
                }
            }
            Map<Program, List<Double>> reactions = reactions(nodes, running, settings.scaleTrials());
            reactions.forEach((sized, list) -> {
                Program program = ((Sized) sized).program;
                put(program, "scale_reaction_median_ms_" + label(nodes.get(sized)), Stats.median(list));
                put(program, "scale_reaction_p95_ms_" + label(nodes.get(sized)), Stats.percentile(list, 95));
            });
        }
        finally {
            for (Program sized : nodes.keySet()) {
                if (running.containsKey(sized)) {
                    running.get(sized).stop();
                }
                nodes.get(sized).close();
            }
        }
    }

    private static String label(Node node)
    {
        try {
            return node.entries() > 100 ? "large" : "small";
        }
        catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Stops a program, a correctness failure of the run when the agent's SIGTERM does not end it cleanly. */
    static void stop(Figures figures, Program program, Program.Running running, Node node)
            throws Exception
    {
        int exit = running.stop();
        if (program.name().equals("cni-chain") && (exit != 0 || node.patched())) {
            figures.fail(program.name() + ": SIGTERM gave exit " + exit + (node.patched() ? " and left our entry behind" : "")
                    + "; log " + running.log() + ":\n" + Node.tail(running.log()));
        }
    }

    private void put(Program program, String figure, double value)
    {
        figures.put(program.name(), figure, value);
    }

    /** A program tagged with the size of its node, for the scale series. */
    private record Sized(Program program, int entries)
            implements Program
    {
        @Override
        public String name()
        {
            return program.name() + "@" + entries;
        }

        @Override
        public String description()
        {
            return program.description();
        }

        @Override
        public Running start(Node node, Path log)
                throws IOException
        {
            return program.start(node, log);
        }
    }

    static String format(double value)
    {
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
