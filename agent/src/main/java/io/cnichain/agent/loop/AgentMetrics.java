package io.cnichain.agent.loop;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntSupplier;

/** The agent's counters, rendered in the Prometheus text format. Written by the reconcile thread, read by the health server. */
final class AgentMetrics
{
    /** Reaction buckets in seconds, finest around the reaction budget (docs/performance.md). */
    static final double[] LATENCY_BUCKETS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};

    private final Map<String, AtomicLong> reconciles = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> events = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> missed = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> shutdownDecisions = new ConcurrentHashMap<>();
    private final AtomicLong patches = new AtomicLong();
    private final AtomicLong fights = new AtomicLong();
    private final AtomicLong periodicChecks = new AtomicLong();
    private final AtomicLong lastSuccess = new AtomicLong();
    private final AtomicLongArray latencyBuckets = new AtomicLongArray(LATENCY_BUCKETS.length);
    private final AtomicLong latencyCount = new AtomicLong();
    private final AtomicLong latencySumNanos = new AtomicLong();
    private final List<Gauge> gauges = new CopyOnWriteArrayList<>();

    void reconcile(ReconcilePass.Result result)
    {
        count(reconciles, label(result));
    }

    void event(EventKind kind)
    {
        count(events, label(kind));
    }

    static String label(Enum<?> value)
    {
        return value.name().toLowerCase(Locale.ROOT);
    }

    private static void count(Map<String, AtomicLong> counters, String label)
    {
        counters.computeIfAbsent(label, l -> new AtomicLong()).incrementAndGet();
    }

    void patchWritten()
    {
        patches.incrementAndGet();
    }

    void fight()
    {
        fights.incrementAndGet();
    }

    void missedEvent(String what)
    {
        count(missed, what);
    }

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
        for (int i = 0; i < LATENCY_BUCKETS.length; i++) {
            if (nanos / 1e9 <= LATENCY_BUCKETS[i]) {
                latencyBuckets.incrementAndGet(i);
            }
        }
        latencyCount.incrementAndGet();
        latencySumNanos.addAndGet(nanos);
    }

    void addGauge(String name, String help, IntSupplier value)
    {
        gauges.add(new Gauge(name, help, value));
    }

    long missedCount(String what)
    {
        return missed.getOrDefault(what, new AtomicLong()).get();
    }

    String render(boolean ready)
    {
        StringBuilder out = new StringBuilder();
        labelled(out, "cnichain_reconciles_total", "counter", "Reconcile passes, by result.", "result", reconciles);
        single(out, "cnichain_patches_written_total", "counter", "Configuration files written with our entry.", patches.get());
        labelled(out, "cnichain_events_total", "counter", "Filesystem events received, by kind.", "kind", events);
        single(out, "cnichain_fights_total", "counter", "Back-off steps taken because another writer kept undoing our patch.", fights.get());
        single(out, "cnichain_periodic_checks_total", "counter", "Periodic checks made (periodicCheckSeconds).", periodicChecks.get());
        head(out, "cnichain_missed_events_total", "counter", "Differences a periodic check found that no event had told: watch (a directory not "
                + "watched as wanted) or file (the runtime's file changed unseen).");
        out.append("cnichain_missed_events_total{what=\"file\"} ").append(missedCount("file")).append('\n');
        out.append("cnichain_missed_events_total{what=\"watch\"} ").append(missedCount("watch")).append('\n');
        head(out, "cnichain_shutdown_decisions_total", "counter", "On a stop signal, whether the agent kept or removed what it installed, and why.");
        new TreeMap<>(shutdownDecisions).forEach((labels, n) -> out.append("cnichain_shutdown_decisions_total{").append(labels).append("} ").append(n.get()).append('\n'));
        head(out, "cnichain_last_successful_reconcile_timestamp_seconds", "gauge", "When a reconcile last left every authoritative file patched.");
        out.append("cnichain_last_successful_reconcile_timestamp_seconds ").append(String.format(Locale.ROOT, "%.3f", lastSuccess.get() / 1000.0)).append('\n');
        single(out, "cnichain_ready", "gauge", "Whether the agent is ready (see /readyz).", ready ? 1 : 0);
        head(out, "cnichain_reaction_latency_seconds", "histogram", "From the filesystem event to our patched file.");
        for (int i = 0; i < LATENCY_BUCKETS.length; i++) {
            out.append("cnichain_reaction_latency_seconds_bucket{le=\"").append(LATENCY_BUCKETS[i]).append("\"} ").append(latencyBuckets.get(i)).append('\n');
        }
        out.append("cnichain_reaction_latency_seconds_bucket{le=\"+Inf\"} ").append(latencyCount.get()).append('\n');
        out.append("cnichain_reaction_latency_seconds_sum ").append(String.format(Locale.ROOT, "%.6f", latencySumNanos.get() / 1e9)).append('\n');
        out.append("cnichain_reaction_latency_seconds_count ").append(latencyCount.get()).append('\n');
        for (Gauge gauge : gauges) {
            single(out, gauge.name(), "gauge", gauge.help(), gauge.value().getAsInt());
        }
        return out.toString();
    }

    private static void head(StringBuilder out, String name, String type, String help)
    {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n').append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static void single(StringBuilder out, String name, String type, String help, long value)
    {
        head(out, name, type, help);
        out.append(name).append(' ').append(value).append('\n');
    }

    private static void labelled(StringBuilder out, String name, String type, String help, String label, Map<String, AtomicLong> counters)
    {
        head(out, name, type, help);
        new TreeMap<>(counters).forEach((value, n) -> out.append(name).append('{').append(label).append("=\"").append(value).append("\"} ").append(n.get())
                .append('\n'));
    }

    private record Gauge(String name, String help, IntSupplier value) {}
}
