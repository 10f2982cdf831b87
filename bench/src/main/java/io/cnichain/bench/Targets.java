package io.cnichain.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The targets of issue 12, checked on the medians over runs. */
final class Targets
{
    private Targets() {}

    static List<Report.Target> check(Map<String, Map<String, Report.Spread>> summary, String agent, String floor, boolean image, List<Figures> runs,
            int idleSeconds)
    {
        Map<String, Report.Spread> a = summary.get(agent);
        Map<String, Report.Spread> f = summary.get(floor);
        List<Report.Target> targets = new ArrayList<>();
        ratio(targets, "reaction median at most 1.5x the floor's", a, f, "reaction_median_ms", 1.5);
        targets.add(below("reaction p99 under 10 ms", a.get("reaction_p99_ms").median(), 10, "ms"));
        if (image) {
            targets.add(below("start-up to first patched file in the image under 150 ms", a.get("startup_ms").median(), 150, "ms"));
        }
        else {
            ratio(targets, "start-up at most 2.5x the floor's", a, f, "startup_ms", 2.5);
        }
        ratio(targets, "resident memory idle at most 1.25x the floor's", a, f, "idle_rss_mib", 1.25);
        targets.add(below("idle CPU under 0.05 s a minute", a.get("idle_cpu_s_per_min").median(), 0.05, "s/min"));
        // The periodic check (every 60 s by default) is the loop's one wake-up without an event: at most one check a
        // minute of idling, and one more for where the minute falls; a check costs the thread one or two switches.
        long allowed = 2 * (idleSeconds / 60 + 1);
        long loopWokeTooOften = runs.stream()
                .map(r -> r.notes().getOrDefault(agent, Map.of()).getOrDefault("idle_wakeups_by_thread", "{}"))
                .filter(n -> mainWakeUps(n) > allowed)
                .count();
        targets.add(new Report.Target("idle: the reconcile loop wakes only for the periodic check", loopWokeTooOften == 0,
                loopWokeTooOften + " of " + runs.size() + " runs saw the reconcile thread wake more than " + allowed + " times"));
        targets.add(new Report.Target("storm: final state correct", a.get("storm_correct").min() == 1, "every run: " + (a.get("storm_correct").min() == 1)));
        targets.add(below("storm: under 2 CPU seconds", a.get("storm_cpu_s").median(), 2, "s"));
        targets.add(below("storm: fewer than 50 log lines", a.get("storm_log_lines").median(), 50, "lines"));
        Report.Spread small = a.get("scale_reaction_median_ms_small");
        Report.Spread large = a.get("scale_reaction_median_ms_large");
        double scale = large.median() / small.median();
        targets.add(new Report.Target("scale: reaction with thousands of entries at most 2x the reaction with 10", scale <= 2,
                String.format(java.util.Locale.ROOT, "%.2f ms / %.2f ms = %.2fx", large.median(), small.median(), scale)));
        return targets;
    }

    /**
     * The wake-ups of the reconcile thread in a note such as {@code {C1 CompilerThre=3, java=1}}: the JVM's main thread
     * keeps the process's name in /proc, {@code java}, as does the launcher's first thread, which only waits for it.
     */
    private static long mainWakeUps(String note)
    {
        java.util.regex.Matcher main = java.util.regex.Pattern.compile("(?:^|[{ ])java=([0-9]+)").matcher(note);
        return main.find() ? Long.parseLong(main.group(1)) : 0;
    }

    private static void ratio(List<Report.Target> targets, String name, Map<String, Report.Spread> a, Map<String, Report.Spread> f, String figure, double bound)
    {
        double ratio = a.get(figure).median() / f.get(figure).median();
        targets.add(new Report.Target(name, ratio <= bound, String.format(java.util.Locale.ROOT, "%.2f / %.2f = %.2fx (bound %.2fx)",
                a.get(figure).median(), f.get(figure).median(), ratio, bound)));
    }

    private static Report.Target below(String name, double value, double bound, String unit)
    {
        return new Report.Target(name, value < bound, String.format(java.util.Locale.ROOT, "%.3f %s (bound %s %s)", value, unit, Run.format(bound), unit));
    }
}
