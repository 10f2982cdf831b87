package io.cnichain.agent.taint;

import java.time.Duration;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * How the taint remover waits and retries. Errors back off exponentially: {@link #initialBackoff()}, doubled after
 * every further error in a row, up to {@link #maxBackoff()}. A server's {@code Retry-After} (429, 5xx) is honoured
 * instead, up to {@link #maxRetryAfter()} and never shorter than the first step. A node that changed between our read and our patch (422 from our
 * {@code test} operation, 409) is read again at once, {@link #immediateRereads()} times in a row, then with back-off.
 *
 * @param initialBackoff   the wait after the first error
 * @param maxBackoff       the longest wait of the doubling
 * @param maxRetryAfter    the longest {@code Retry-After} honoured
 * @param connectTimeout   bound on a TCP and TLS connection
 * @param requestTimeout   bound on one request, from sending it to its whole answer
 * @param immediateRereads how many changed-node answers in a row are retried without waiting
 */
public record RetryPolicy(Duration initialBackoff, Duration maxBackoff, Duration maxRetryAfter, Duration connectTimeout, Duration requestTimeout,
        int immediateRereads)
{
    public RetryPolicy
    {
        requireNonNull(initialBackoff, "initialBackoff is null");
        requireNonNull(maxBackoff, "maxBackoff is null");
        requireNonNull(maxRetryAfter, "maxRetryAfter is null");
        requireNonNull(connectTimeout, "connectTimeout is null");
        requireNonNull(requestTimeout, "requestTimeout is null");
        if (initialBackoff.isNegative() || initialBackoff.isZero() || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("back-off must be positive and its maximum at least its start: " + initialBackoff + ", " + maxBackoff);
        }
        if (immediateRereads < 0) {
            throw new IllegalArgumentException("immediateRereads is negative: " + immediateRereads);
        }
    }

    /** 1 s doubling to 60 s (as the agent backs off a fight), Retry-After up to 5 min, 5 s to connect, 10 s per request. */
    public static RetryPolicy defaults()
    {
        return new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(60), Duration.ofMinutes(5), Duration.ofSeconds(5), Duration.ofSeconds(10), 5);
    }

    /**
     * @param errorsInARow errors since the last success, at least 1
     * @param retryAfter   the server's {@code Retry-After}, if it gave one
     * @return how long to wait before the next attempt
     */
    Duration backoff(int errorsInARow, Optional<Duration> retryAfter)
    {
        if (retryAfter.isPresent()) {
            // At least the first step: a "Retry-After: 0" answered again and again must not become a busy loop.
            Duration wait = retryAfter.get().compareTo(maxRetryAfter) > 0 ? maxRetryAfter : retryAfter.get();
            return wait.compareTo(initialBackoff) < 0 ? initialBackoff : wait;
        }
        Duration wait = initialBackoff;
        for (int i = 1; i < errorsInARow && wait.compareTo(maxBackoff) < 0; i++) {
            wait = wait.plus(wait);
        }
        return wait.compareTo(maxBackoff) > 0 ? maxBackoff : wait;
    }
}
