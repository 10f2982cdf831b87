package io.cnichain.agent.taint;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Where the removal of the start-up taint stands, for {@code /readyz}'s detail and the metric
 * {@value NodeTaintRemover#METRIC_NAME}.
 *
 * @param phase          where it stands
 * @param node           the node's name
 * @param key            the taint's key
 * @param failedAttempts attempts that ended in an error since the agent became ready
 * @param lastError      the last attempt's error, while {@link Phase#REMOVING}; empty once an attempt succeeds
 */
public record TaintRemovalState(Phase phase, String node, String key, int failedAttempts, Optional<String> lastError)
{
    public TaintRemovalState
    {
        requireNonNull(phase, "phase is null");
        requireNonNull(node, "node is null");
        requireNonNull(key, "key is null");
        requireNonNull(lastError, "lastError is null");
    }

    /** Where the removal stands. */
    public enum Phase
    {
        /** The agent is not ready (or not yet): the taint stays. */
        WAITING_FOR_READINESS,
        /** The agent is ready; the taint is being removed (retrying, when {@link #lastError()} says why). */
        REMOVING,
        /** The agent removed the taint. Final. */
        REMOVED,
        /** The node had no taint with the key (removed by someone else, or registered without it). Final. */
        ABSENT
    }

    /** The metric's value: 1 once the node no longer has the taint (removed by the agent or found without it), else 0. */
    public int removedGauge()
    {
        return phase == Phase.REMOVED || phase == Phase.ABSENT ? 1 : 0;
    }

    /** Whether nothing is left to do. */
    public boolean finished()
    {
        return removedGauge() == 1;
    }

    /** One line for {@code /readyz}, such as {@code node taint cni-chain.io/not-ready on node-1: removing (3 failed attempts; last: ...)}. */
    public String describe()
    {
        String subject = "node taint " + key + " on " + node + ": ";
        return switch (phase) {
            case WAITING_FOR_READINESS -> subject + "kept until the agent is ready";
            case REMOVING -> subject + "removing" + lastError.map(error -> " (" + failedAttempts + " failed attempt" + (failedAttempts == 1 ? "" : "s")
                    + "; last: " + error + ")").orElse("");
            case REMOVED -> subject + "removed";
            case ABSENT -> subject + "not present, nothing to remove";
        };
    }
}
