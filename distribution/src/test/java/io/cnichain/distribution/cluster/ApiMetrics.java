package io.cnichain.distribution.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What a step of the fleet asks of the API server, read every few seconds while it runs: the requests the simulated
 * agents send (counted where they are sent, {@link io.cnichain.agent.kube.KubeApiClient#requestsSent()}), and the API
 * server's own count of the kinds an agent makes ({@code apiserver_request_total}: GET of a node, a pod or a
 * DaemonSet, PATCH of a node, a TokenRequest; the kit's own components make some of those too) and its CPU
 * ({@code process_cpu_seconds_total}). The server's counters start again at zero when it restarts: each restart's last
 * reading is carried over.
 */
final class ApiMetrics
{
    private static final long SAMPLE_MILLIS = 5000;
    /** verb, resource, subresource: the calls an agent makes. */
    private static final Set<String> FLEET = Set.of("GET nodes ", "PATCH nodes ", "POST serviceaccounts token", "GET pods ", "GET daemonsets ");

    private final Cluster cluster;

    ApiMetrics(Cluster cluster)
    {
        this.cluster = cluster;
    }

    /** One reading: the fleet's kinds of requests, and the server's CPU seconds. */
    record Reading(long nanos, double agents, double fleet, double cpu) {}

    /**
     * @param readings  in time order, counters carried over restarts
     * @param agentRate unused for a window that is itself the background
     */
    record Window(List<Reading> readings)
    {
        double agents()
        {
            return readings.get(readings.size() - 1).agents() - readings.get(0).agents();
        }

        double fleet()
        {
            return readings.get(readings.size() - 1).fleet() - readings.get(0).fleet();
        }

        double cpu()
        {
            return readings.get(readings.size() - 1).cpu() - readings.get(0).cpu();
        }

        double seconds()
        {
            return Math.round((readings.get(readings.size() - 1).nanos() - readings.get(0).nanos()) / 1e8) / 10.0;
        }

        /** The agents' requests a second. */
        double agentsPerSecond()
        {
            return Math.round(agents() / seconds() * 100) / 100.0;
        }

        /** The most requests of the agents in any 60 s of the window, a second. */
        double peakMinutePerSecond()
        {
            double peak = 0;
            for (int i = 0; i < readings.size(); i++) {
                for (int j = i + 1; j < readings.size(); j++) {
                    double span = (readings.get(j).nanos() - readings.get(i).nanos()) / 1e9;
                    if (span >= 60) {
                        peak = Math.max(peak, (readings.get(j).agents() - readings.get(i).agents()) / span);
                        break;
                    }
                }
            }
            if (peak == 0 && seconds() > 0) {
                peak = agents() / Math.max(60, seconds());
            }
            return Math.round(peak * 10) / 10.0;
        }

        String row(String step, String outcome)
        {
            return String.format(Locale.ROOT, "| %s | %.1f | %.0f | %.1f | %.0f | %.1f | %s |", step, seconds(), agents(), peakMinutePerSecond(), fleet(), cpu(),
                    outcome);
        }
    }

    @FunctionalInterface
    interface Step
    {
        void run()
                throws Exception;
    }

    /** Runs {@code step} and reads the metrics before, every few seconds meanwhile, and after. */
    Window window(Step step)
            throws Exception
    {
        List<Reading> readings = java.util.Collections.synchronizedList(new ArrayList<>());
        Carry carry = new Carry();
        readings.add(read(carry).orElseThrow());
        AtomicBoolean running = new AtomicBoolean(true);
        Thread sampler = new Thread(() -> {
            while (running.get()) {
                try {
                    Thread.sleep(SAMPLE_MILLIS);
                }
                catch (InterruptedException e) {
                    return;
                }
                read(carry).ifPresent(readings::add);
            }
        }, "api-metrics");
        sampler.setDaemon(true);
        sampler.start();
        try {
            step.run();
        }
        finally {
            running.set(false);
            sampler.interrupt();
            sampler.join();
        }
        Reading last = io.cnichain.testkit.Await.value(java.time.Duration.ofMinutes(2), () -> read(carry),
                () -> "the API server's metrics cannot be read");
        readings.add(last);
        return new Window(List.copyOf(readings));
    }

    /** The counters' offsets: each restart's last reading, added to what the new process counts. */
    private static final class Carry
    {
        double fleetBase;
        double cpuBase;
        double lastFleet;
        double lastCpu;
    }

    private synchronized java.util.Optional<Reading> read(Carry carry)
    {
        var result = cluster.kubectl().run("get", "--raw", "/metrics", "--request-timeout=5s");
        if (result.code() != 0) {
            return java.util.Optional.empty();
        }
        double fleet = 0;
        double cpu = 0;
        for (String line : result.out().split("\n")) {
            if (line.startsWith("apiserver_request_total{")) {
                Map<String, String> labels = labels(line);
                String key = labels.get("verb") + " " + labels.get("resource") + " " + labels.getOrDefault("subresource", "");
                if (FLEET.contains(key)) {
                    fleet += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            else if (line.startsWith("process_cpu_seconds_total ")) {
                cpu = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        synchronized (carry) {
            if (fleet < carry.lastFleet || cpu < carry.lastCpu) {
                carry.fleetBase += carry.lastFleet;
                carry.cpuBase += carry.lastCpu;
            }
            carry.lastFleet = fleet;
            carry.lastCpu = cpu;
            return java.util.Optional.of(new Reading(System.nanoTime(), io.cnichain.agent.kube.KubeApiClient.requestsSent(), carry.fleetBase + fleet,
                    carry.cpuBase + cpu));
        }
    }

    private static Map<String, String> labels(String line)
    {
        Map<String, String> labels = new TreeMap<>();
        String inside = line.substring(line.indexOf('{') + 1, line.lastIndexOf('}'));
        for (String pair : inside.split(",(?=[a-z_]+=\")")) {
            int equals = pair.indexOf('=');
            if (equals > 0) {
                labels.put(pair.substring(0, equals), pair.substring(equals + 2, pair.length() - 1));
            }
        }
        return labels;
    }
}
