package io.cnichain.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The cost of the periodic check (periodicCheckSeconds), the agent's only wake-up without an event: the agent alone
 * on an idle node, checking every second instead of every minute, for the idle time. Per check: CPU and wake-ups
 * of its reconcile thread (/proc), and the bytes that thread allocated (the JVM's own count, {@code jcmd
 * Thread.print -e}), the count of checks from its metrics. Only the agent started by its launcher on this host:
 * the image's JVM is not reachable by jcmd from here.
 */
final class PeriodicCheck
{
    private final Settings settings;
    private final Path logs;
    private final Figures figures;

    PeriodicCheck(Settings settings, Path logs, Figures figures)
    {
        this.settings = settings;
        this.logs = logs;
        this.figures = figures;
    }

    void measure(Program program)
            throws Exception
    {
        if (!(program instanceof HostProgram agent)) {
            System.out.println("  periodic check: measured on the host's launcher only; skipped for the image");
            return;
        }
        try (Node node = Node.create(false, 0)) {
            // In a directory of its own, as the chart's ConfigMap is: the agent takes no code from the configuration's directory.
            Path config = Files.writeString(Files.createDirectories(node.root.resolve("config")).resolve("cni-chain.yaml"), "periodicCheckSeconds: 1\n");
            Path log = logs.resolve(agent.name() + "-periodic.log");
            long start = System.nanoTime();
            Program.Running running = agent.start(node, log, List.of("--config", config.toString(), "--log-level", "info"));
            try {
                node.awaitPatched(start, running);
                Thread.sleep(2000);
                long pid = running.pid();
                int port = running.healthPort().orElseThrow();
                double checksBefore = metric(port, "cnichain_periodic_checks_total");
                MainThread before = MainThread.of(pid, settings.javaHome());
                System.out.printf("  periodic check every second for %d s%n", settings.idleSeconds());
                Thread.sleep(settings.idleSeconds() * 1000L);
                MainThread after = MainThread.of(pid, settings.javaHome());
                double checks = metric(port, "cnichain_periodic_checks_total") - checksBefore;
                double missed = metric(port, "cnichain_missed_events_total{what=\"file\"}") + metric(port, "cnichain_missed_events_total{what=\"watch\"}");
                if (checks < 1 || missed > 0) {
                    figures.fail(agent.name() + ": " + checks + " periodic checks, " + missed + " missed events on a quiet node");
                    return;
                }
                put(agent, "periodic_check_cpu_us", (after.cpuMillis() - before.cpuMillis()) * 1000 / checks);
                put(agent, "periodic_check_alloc_kib", (after.allocatedKib() - before.allocatedKib()) / checks);
                put(agent, "periodic_check_wakeups", (after.switches() - before.switches()) / checks);
            }
            finally {
                Run.stop(figures, agent, running, node);
                Files.deleteIfExists(config);
            }
        }
    }

    /** One counter of the agent's /metrics. */
    private static double metric(int port, String name)
            throws IOException, InterruptedException
    {
        java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        for (String line : response.body().lines().toList()) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1));
            }
        }
        throw new IOException("no " + name + " in the agent's metrics");
    }

    private void put(Program program, String figure, double value)
    {
        figures.put(program.name(), figure, value);
    }
}
