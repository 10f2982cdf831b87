package io.cnichain.core.taint;

import java.time.Duration;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A call to the API server that failed and is worth retrying later. Internal to the remover's thread, which turns
 * it into a back-off step and {@link TaintRemovalState#lastError()}; it never reaches the reconcile loop.
 */
final class ApiCallException
        extends Exception
{
    private final String kind;
    private final Optional<Duration> retryAfter;

    /**
     * @param kind       what failed, coarsely ({@code HTTP 503}, {@code connection}, {@code TLS}, {@code token}): the
     *                   remover logs again only when it changes
     * @param message    one line for the log and {@code /readyz}
     * @param retryAfter the server's {@code Retry-After}, if any
     */
    ApiCallException(String kind, String message, Optional<Duration> retryAfter)
    {
        super(message, null, false, false);
        this.kind = requireNonNull(kind, "kind is null");
        this.retryAfter = requireNonNull(retryAfter, "retryAfter is null");
    }

    ApiCallException(String kind, String message)
    {
        this(kind, message, Optional.empty());
    }

    String kind()
    {
        return kind;
    }

    Optional<Duration> retryAfter()
    {
        return retryAfter;
    }
}
