package io.cnichain.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark behind docs/performance.md: the agent and the {@link Floor} on the same temp nodes in
 * the same run, several runs, every figure the median over runs with its spread, the ratio to the floor, the
 * issue's targets checked, and a JSON result file. Exits 1 when a correctness check failed (a start that never
 * patched, a storm that left a wrong file, a SIGTERM that did not clean up). Run after
 * {@code mvn -q -DskipTests package}:
 *
 * <pre>java -jar bench/target/cni-chain-bench.jar [--java JAVA_HOME] [--image distribution/target/cni-chain-image.tar]</pre>
 */
public final class Benchmark
{
    private Benchmark() {}

    public static void main(String[] args)
            throws Exception
    {
        if (List.of(args).contains("--help")) {
            System.out.print(Settings.USAGE);
            return;
        }
        Settings settings = Settings.parse(args);
        Path benchJar = Path.of(Benchmark.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (!Files.isExecutable(settings.dist().resolve("bin/cni-chain"))) {
            throw new IllegalStateException(settings.dist() + "/bin/cni-chain not found: run `mvn -q -DskipTests package` first");
        }
        Machine machine = Machine.describe();
        if (settings.only("daemonset")) {
            System.out.printf("cni-chain benchmark, the chart's configuration: %s%n  java %s (%s)%n", machine.summary(), JavaRuntime.version(settings.javaHome()),
                    settings.javaHome());
            DaemonSetMemory.measure(settings);
            return;
        }
        Program floor = HostProgram.floor(settings.dist(), settings.javaHome(), benchJar, settings.jvmOptions());
        Program agent = settings.image().isPresent()
                ? ImageProgram.load(settings.image().get())
                : HostProgram.agent(settings.dist(), settings.javaHome(), settings.jvmOptions());
        List<Program> programs = List.of(agent, floor);
        // Start-up only: what linking the kernel's calls costs a program that does nothing else (FFM: Java 22 and later).
        List<Program> startupOnly = JavaRuntime.feature(settings.javaHome()) >= 22
                && Benchmark.class.getResource("FloorWithKernelCalls.class") != null && settings.image().isEmpty()
                ? List.of(HostProgram.floorWithKernelCalls(settings.dist(), settings.javaHome(), benchJar, settings.jvmOptions())) : List.of();
        System.out.printf("cni-chain benchmark: %s%n  java %s (%s)%n  launcher's JVM options: %s%n", machine.summary(), JavaRuntime.version(settings.javaHome()),
                settings.javaHome(), String.join(" ", HostProgram.launcherOptions(settings.dist(), settings.javaHome())));
        if (!settings.jvmOptions().isEmpty()) {
            System.out.printf("  and, for the agent and the floor alike (--jvm-option): %s%n", String.join(" ", settings.jvmOptions()));
        }
        programs.forEach(p -> System.out.printf("  %s: %s%n", p.name(), p.description()));
        startupOnly.forEach(p -> System.out.printf("  %s (start-ups only): %s%n", p.name(), p.description()));
        System.out.printf("  %d run(s); each: %d start-ups, %d reaction trials, %d s idle, a storm of %d files, conf dirs of 10 and %d entries (%d trials)%n",
                settings.runs(), settings.starts(), settings.trials(), settings.idleSeconds(), settings.stormFiles(), settings.scaleEntries(), settings.scaleTrials());
        Path logs = Files.createTempDirectory("cni-chain-bench-logs-");
        List<Figures> runs = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        List<String> loads = new ArrayList<>();
        for (int i = 0; i < settings.runs(); i++) {
            loads.add(Machine.loadAverage());
            System.out.printf("run %d of %d (load average %s)%n", i + 1, settings.runs(), Machine.loadAverage());
            Figures figures = new Run(settings, programs, startupOnly, Files.createDirectories(logs.resolve("run-" + (i + 1)))).measure();
            runs.add(figures);
            failures.addAll(figures.failures());
            Report.printRun(figures);
        }
        Map<String, Map<String, Report.Spread>> summary = Report.summarize(runs);
        System.out.println();
        Report.printSummary(summary, agent.name(), floor.name());
        startupOnly.forEach(p -> Report.printStartupAgainst(summary, agent.name(), floor.name(), p.name()));
        List<Report.Target> targets = settings.only().isPresent()
                ? List.of()
                : Targets.check(summary, agent.name(), floor.name(), settings.image().isPresent(), runs, settings.idleSeconds());
        Report.printTargets(targets);
        Files.createDirectories(settings.results().toAbsolutePath().getParent());
        Map<String, Object> context = new LinkedHashMap<>();
        context.put("machine", machine.summary());
        context.put("loadAverageAtEachRunsStart", String.join("; ", loads));
        context.put("loadAverageAtEnd", Machine.loadAverage());
        context.put("java", JavaRuntime.version(settings.javaHome()));
        context.put("launcherOptions", String.join(" ", HostProgram.launcherOptions(settings.dist(), settings.javaHome())));
        context.put("extraJvmOptions", String.join(" ", settings.jvmOptions()));
        context.put("settings", settings.toString());
        programs.forEach(p -> context.put(p.name(), p.description()));
        startupOnly.forEach(p -> context.put(p.name(), p.description()));
        Files.writeString(settings.results(), Report.json(context, runs, summary, targets, failures));
        System.out.printf("%nresults: %s; logs: %s%n", settings.results().toAbsolutePath(), logs);
        if (!failures.isEmpty()) {
            System.out.println("CORRECTNESS FAILURES:");
            failures.forEach(f -> System.out.println("  " + f));
            System.exit(1);
        }
    }
}
