package io.cnichain.core.agent;

import java.util.List;

/**
 * What the health endpoints report, published by the reconcile thread after every pass.
 */
final class AgentStatus
{
    private volatile List<String> notReady = List.of("starting: first reconcile not done yet");
    private volatile long busySinceNanos;
    private volatile boolean loopRunning;

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

    /**
     * @param stuckAfterNanos how long one pass may take before the loop counts as stuck
     * @return why the loop is not healthy, or null when it is
     */
    String unhealthy(long stuckAfterNanos)
    {
        if (!loopRunning) {
            return "the reconcile loop is not running";
        }
        long since = busySinceNanos;
        if (since != 0 && System.nanoTime() - since > stuckAfterNanos) {
            return "the reconcile loop has been busy with one pass for " + (System.nanoTime() - since) / 1_000_000 + " ms";
        }
        return null;
    }
}
