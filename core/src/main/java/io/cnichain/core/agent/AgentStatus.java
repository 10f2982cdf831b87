package io.cnichain.core.agent;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the health endpoints report, published by the reconcile thread after every pass, and how far the loop has
 * got: wake-ups started and done, so that whoever made a change can tell when everything queued before it has been
 * dealt with.
 */
final class AgentStatus
{
    private volatile List<String> notReady = List.of("starting: first reconcile not done yet");
    private volatile long busySinceNanos;
    private volatile boolean loopRunning;
    private final AtomicLong wakeUpsStarted = new AtomicLong();
    private final AtomicLong wakeUpsDone = new AtomicLong();

    void publish(List<String> reasons)
    {
        notReady = List.copyOf(reasons);
    }

    List<String> notReady()
    {
        return notReady;
    }

    boolean ready()
    {
        return notReady.isEmpty();
    }

    void loopRunning(boolean running)
    {
        loopRunning = running;
    }

    void busy(boolean busy)
    {
        busySinceNanos = busy ? System.nanoTime() : 0;
    }

    void wakeUpStarted()
    {
        wakeUpsStarted.incrementAndGet();
    }

    void wakeUpDone()
    {
        wakeUpsDone.incrementAndGet();
    }

    /** @return the wake-ups the loop has begun to process (each takes every event queued by then) */
    long wakeUpsStarted()
    {
        return wakeUpsStarted.get();
    }

    /** @return the wake-ups fully processed, their pass included */
    long wakeUpsDone()
    {
        return wakeUpsDone.get();
    }

    /**
     * @param stuckAfter how long one pass may take before the loop counts as stuck
     * @return why the loop is not healthy, or null when it is
     */
    String unhealthy(Duration stuckAfter)
    {
        if (!loopRunning) {
            return "the reconcile loop is not running";
        }
        long since = busySinceNanos;
        if (since != 0 && System.nanoTime() - since > stuckAfter.toNanos()) {
            return "the reconcile loop has been busy with one pass for " + (System.nanoTime() - since) / 1_000_000 + " ms";
        }
        return null;
    }
}
