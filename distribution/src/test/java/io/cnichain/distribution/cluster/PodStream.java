package io.cnichain.distribution.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * Pods created at a steady pace while a test changes the cluster, as a cluster's workloads are: each pod counted under
 * the step during which it was created, and judged once it runs, by whether its sandbox ran the plugin.
 */
final class PodStream
        implements AutoCloseable
{
    private final Cluster cluster;
    private final String namespace;
    private final ScheduledExecutorService creator = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "pod-stream");
        thread.setDaemon(true);
        return thread;
    });
    private final List<Created> created = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private volatile String step = "";
    private int next;

    private PodStream(Cluster cluster, String namespace)
    {
        this.cluster = requireNonNull(cluster, "cluster is null");
        this.namespace = requireNonNull(namespace, "namespace is null");
    }

    /** Creates the namespace, then a pod in it every {@code every}, starting now, counted under {@code firstStep}. */
    static PodStream start(Cluster cluster, String namespace, Duration every, String firstStep)
    {
        cluster.createNamespace(namespace);
        PodStream stream = new PodStream(cluster, namespace);
        stream.step(firstStep);
        stream.creator.scheduleAtFixedRate(stream::createOne, 0, every.toMillis(), TimeUnit.MILLISECONDS);
        return stream;
    }

    /** Pods created from now on count under {@code name}. */
    void step(String name)
    {
        step = requireNonNull(name, "name is null");
        Say.step("pods: step '" + name + "'");
    }

    private void createOne()
    {
        String name = String.format("p%03d", next++);
        String during = step;
        try {
            cluster.createPod(namespace, name);
            synchronized (created) {
                created.add(new Created(name, during));
            }
        }
        catch (RuntimeException | AssertionError e) {
            synchronized (failures) {
                failures.add(name + ": " + e.getMessage());
            }
        }
    }

    /** @return how many pods were created so far */
    int count()
    {
        synchronized (created) {
            return created.size();
        }
    }

    /** Stops creating, waits for every pod to run and judges each. */
    Report finish()
    {
        close();
        List<Created> all;
        synchronized (created) {
            all = List.copyOf(created);
        }
        List<Verdict> verdicts = new ArrayList<>();
        for (Created pod : all) {
            String ip = cluster.awaitRunning(namespace, pod.name(), Duration.ofSeconds(90));
            boolean meshed = cluster.meshed(namespace, pod.name(), ip);
            verdicts.add(new Verdict(pod, meshed, meshed ? "" : "address " + ip + "; the plugin's calls for it: " + cluster.calls().of(namespace, pod.name())));
        }
        synchronized (failures) {
            return new Report(verdicts, List.copyOf(failures));
        }
    }

    @Override
    public void close()
    {
        // A creation under way finishes: an interrupted kubectl would leave a pod made but not counted.
        creator.shutdown();
        try {
            creator.awaitTermination(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    record Created(String name, String step) {}

    record Verdict(Created pod, boolean meshed, String detail) {}

    /**
     * @param failures pods that could not be created
     */
    record Report(List<Verdict> verdicts, List<String> failures)
    {
        List<Verdict> unmeshed()
        {
            return verdicts.stream().filter(verdict -> !verdict.meshed()).toList();
        }

        /** Per step, in order: pods created, pods meshed. */
        String table()
        {
            Map<String, int[]> rows = new LinkedHashMap<>();
            for (Verdict verdict : verdicts) {
                int[] row = rows.computeIfAbsent(verdict.pod().step(), key -> new int[2]);
                row[0]++;
                row[1] += verdict.meshed() ? 1 : 0;
            }
            StringBuilder table = new StringBuilder("| step | pods created | pods meshed |\n|---|---|---|\n");
            rows.forEach((step, row) -> table.append("| ").append(step).append(" | ").append(row[0]).append(" | ").append(row[1]).append(" |\n"));
            return table.toString();
        }
    }
}
