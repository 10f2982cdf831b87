package io.cnichain.agent.taint;

import io.cnichain.agent.kube.ApiCallException;

import java.time.Duration;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * How one removal attempt ended.
 *
 * @param result        how it ended
 * @param taints        the taints removed ({@link Result#REMOVED}), as kubectl writes them
 * @param kind          what failed, coarsely ({@link Result#RETRY}, {@link Result#FATAL}): the agent logs again only when it changes
 * @param error         one line for the log and {@code /readyz} (never the token)
 * @param retryAfter    the server's {@code Retry-After}, if any
 * @param rereadsInARow changed-node answers in a row, for the next attempt
 */
record AttemptOutcome(Result result, Optional<String> taints, Optional<String> kind, Optional<String> error, Optional<Duration> retryAfter,
        int rereadsInARow)
{
    AttemptOutcome
    {
        requireNonNull(result, "result is null");
        requireNonNull(taints, "taints is null");
        requireNonNull(kind, "kind is null");
        requireNonNull(error, "error is null");
        requireNonNull(retryAfter, "retryAfter is null");
        if ((result == Result.RETRY || result == Result.FATAL) && (kind.isEmpty() || error.isEmpty())) {
            throw new IllegalArgumentException(result + " needs a kind and an error");
        }
    }

    /** How an attempt ended. */
    enum Result
    {
        /** The patch was applied: the taints are gone. */
        REMOVED,
        /** The node has no taint with the key; nothing was sent but the read. */
        ABSENT,
        /** The node was read, but the agent said not to patch (not ready any more, or closing). */
        STOPPED,
        /** A call failed in a way worth retrying with back-off (the API server, the network, TLS, the token or CA file). */
        RETRY,
        /** The attempt itself failed: a bug. Also retried. */
        FATAL
    }

    static AttemptOutcome removed(String taints, int rereadsInARow)
    {
        return new AttemptOutcome(Result.REMOVED, Optional.of(taints), Optional.empty(), Optional.empty(), Optional.empty(), rereadsInARow);
    }

    static AttemptOutcome of(Result result, int rereadsInARow)
    {
        return new AttemptOutcome(result, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), rereadsInARow);
    }

    static AttemptOutcome retry(ApiCallException failure, int rereadsInARow)
    {
        return new AttemptOutcome(Result.RETRY, Optional.empty(), Optional.of(failure.kind()), Optional.of(failure.getMessage()), failure.retryAfter(),
                rereadsInARow);
    }

    static AttemptOutcome fatal(String kind, String error, int rereadsInARow)
    {
        return new AttemptOutcome(Result.FATAL, Optional.empty(), Optional.of(kind), Optional.of(error), Optional.empty(), rereadsInARow);
    }

    /** Whether the attempt failed (and the agent backs off). */
    boolean failed()
    {
        return result == Result.RETRY || result == Result.FATAL;
    }
}
