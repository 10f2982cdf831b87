package io.cnichain.agent.loop;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The agent's counters, rendered in the Prometheus text format. Written by the reconcile thread, read by
 * the health server.
 */
final class AgentMetrics
{
    /** Reaction buckets in seconds: the budget is 25 ms at the 99th percentile. */
    static final double[] LATENCY_BUCKETS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};

    private final Map<String, AtomicLong> reconciles = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> events = new ConcurrentHashMap<>();
    private final AtomicLong patches = new AtomicLong();
    private final AtomicLong fights = new AtomicLong();
    private final Map<String, AtomicLong> missed = new ConcurrentHashMap<>();
    private final AtomicLong periodicChecks = new AtomicLong();
    private final Map<String, AtomicLong> shutdownDecisions = new ConcurrentHashMap<>();
    private final AtomicLong lastSuccess = new AtomicLong();
    private final AtomicLongArray latencyBuckets = new AtomicLongArray(LATENCY_BUCKETS.length);
    private final AtomicLong latencyCount = new AtomicLong();
    private final AtomicLong latencySumNanos = new AtomicLong();
    private final java.util.List<Gauge> gauges = new java.util.concurrent.CopyOnWriteArrayList<>();

    void reconcile(ReconcileResult result)
    {
        count(reconciles, result.metricLabel());
    }

    void event(EventKind kind)
    {
        count(events, kind.metricLabel());
    }

    private static void count(Map<String, AtomicLong> counters, String label)
    {
        AtomicLong counter = counters.get(label);
        if (counter == null) {
            AtomicLong created = new AtomicLong();
            counter = counters.putIfAbsent(label, created);
            counter = counter == null ? created : counter;
        }
        counter.incrementAndGet();
    }

    void patchWritten()
    {
        patches.incrementAndGet();
    }

    void fight()
    {
        fights.incrementAndGet();
    }

    /** @param what {@code watch} (a directory not watched as wanted) or {@code file} (the runtime's file changed unseen) */
    void missedEvent(String what)
    {
        count(missed, what);
    }

    /** The decision on a stop signal: {@code keep} or {@code cleanup}, and its case. */
    void shutdownDecision(String decision, String reason)
    {
        count(shutdownDecisions, "decision=\"" + decision + "\",reason=\"" + reason + "\"");
    }

    void periodicCheck()
    {
        periodicChecks.incrementAndGet();
    }

    void success(long epochMillis)
    {
        lastSuccess.set(epochMillis);
    }

    void reaction(long nanos)
    {
        double seconds = nanos / 1e9;
        for (int i = 0; i < LATENCY_BUCKETS.length; i++) {
            if (seconds <= LATENCY_BUCKETS[i]) {
                latencyBuckets.incrementAndGet(i);
            }
        }
        latencyCount.incrementAndGet();
        latencySumNanos.addAndGet(nanos);
    }

    /** A gauge of another part of the agent, rendered after the agent's own metrics. */
    void addGauge(String name, String help, java.util.function.IntSupplier value)
    {
        gauges.add(new Gauge(name, help, value));
    }

    long patchesWritten()
    {
        return patches.get();
    }

    long reconcilesTotal()
    {
        long total = 0;
        for (AtomicLong counter : reconciles.values()) {
            total += counter.get();
        }
        return total;
    }

    long periodicChecksTotal()
    {
        return periodicChecks.get();
    }

    long missedCount(String what)
    {
        AtomicLong counter = missed.get(what);
        return counter == null ? 0 : counter.get();
    }

    String render(boolean ready)
    {
        StringBuilder out = new StringBuilder();
        out.append("# HELP cnichain_reconciles_total Reconcile passes, by result.\n");
        out.append("# TYPE cnichain_reconciles_total counter\n");
        new TreeMap<>(reconciles).forEach((result, n) -> out.append("cnichain_reconciles_total{result=\"").append(result).append("\"} ").append(n.get()).append('\n'));
        out.append("# HELP cnichain_patches_written_total Configuration files written with our entry.\n");
        out.append("# TYPE cnichain_patches_written_total counter\n");
        out.append("cnichain_patches_written_total ").append(patches.get()).append('\n');
        out.append("# HELP cnichain_events_total Filesystem events received, by kind.\n");
        out.append("# TYPE cnichain_events_total counter\n");
        new TreeMap<>(events).forEach((kind, n) -> out.append("cnichain_events_total{kind=\"").append(kind).append("\"} ").append(n.get()).append('\n'));
        out.append("# HELP cnichain_fights_total Back-off steps taken because another writer kept undoing our patch.\n");
        out.append("# TYPE cnichain_fights_total counter\n");
        out.append("cnichain_fights_total ").append(fights.get()).append('\n');
        out.append("# HELP cnichain_periodic_checks_total Periodic checks made (periodicCheckSeconds).\n");
        out.append("# TYPE cnichain_periodic_checks_total counter\n");
        out.append("cnichain_periodic_checks_total ").append(periodicChecks.get()).append('\n');
        out.append("# HELP cnichain_missed_events_total Differences a periodic check found that no event had told: watch (a directory not watched as wanted) or file (the runtime's file changed unseen).\n");
        out.append("# TYPE cnichain_missed_events_total counter\n");
        out.append("cnichain_missed_events_total{what=\"file\"} ").append(missedCount("file")).append('\n');
        out.append("cnichain_missed_events_total{what=\"watch\"} ").append(missedCount("watch")).append('\n');
        out.append("# HELP cnichain_shutdown_decisions_total On a stop signal, whether the agent kept or removed what it installed, and why.\n");
        out.append("# TYPE cnichain_shutdown_decisions_total counter\n");
        new TreeMap<>(shutdownDecisions).forEach((labels, n) -> out.append("cnichain_shutdown_decisions_total{").append(labels).append("} ").append(n.get()).append('\n'));
        out.append("# HELP cnichain_last_successful_reconcile_timestamp_seconds When a reconcile last left every authoritative file patched.\n");
        out.append("# TYPE cnichain_last_successful_reconcile_timestamp_seconds gauge\n");
        out.append("cnichain_last_successful_reconcile_timestamp_seconds ").append(String.format(Locale.ROOT, "%.3f", lastSuccess.get() / 1000.0)).append('\n');
        out.append("# HELP cnichain_ready Whether the agent is ready (see /readyz).\n");
        out.append("# TYPE cnichain_ready gauge\n");
        out.append("cnichain_ready ").append(ready ? 1 : 0).append('\n');
        out.append("# HELP cnichain_reaction_latency_seconds From the filesystem event to our patched file.\n");
        out.append("# TYPE cnichain_reaction_latency_seconds histogram\n");
        for (int i = 0; i < LATENCY_BUCKETS.length; i++) {
            out.append("cnichain_reaction_latency_seconds_bucket{le=\"").append(LATENCY_BUCKETS[i]).append("\"} ").append(latencyBuckets.get(i)).append('\n');
        }
        out.append("cnichain_reaction_latency_seconds_bucket{le=\"+Inf\"} ").append(latencyCount.get()).append('\n');
        out.append("cnichain_reaction_latency_seconds_sum ").append(String.format(Locale.ROOT, "%.6f", latencySumNanos.get() / 1e9)).append('\n');
        out.append("cnichain_reaction_latency_seconds_count ").append(latencyCount.get()).append('\n');
        for (Gauge gauge : gauges) {
            out.append("# HELP ").append(gauge.name()).append(' ').append(gauge.help()).append('\n');
            out.append("# TYPE ").append(gauge.name()).append(" gauge\n");
            out.append(gauge.name()).append(' ').append(gauge.value().getAsInt()).append('\n');
        }
        return out.toString();
    }

    private record Gauge(String name, String help, java.util.function.IntSupplier value) {}
}
