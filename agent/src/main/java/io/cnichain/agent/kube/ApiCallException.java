package io.cnichain.agent.kube;

import java.time.Duration;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** A call to the API server that failed; it never reaches the reconcile loop. */
public final class ApiCallException
        extends Exception
{
    private final String kind;
    private final Optional<Duration> retryAfter;

    /** @param kind what failed, coarsely ({@code HTTP 503}, {@code connection}, {@code TLS}): a task logs again only when it changes */
    public ApiCallException(String kind, String message, Optional<Duration> retryAfter)
    {
        super(message, null, false, false);
        this.kind = requireNonNull(kind, "kind is null");
        this.retryAfter = requireNonNull(retryAfter, "retryAfter is null");
    }

    public ApiCallException(String kind, String message)
    {
        this(kind, message, Optional.empty());
    }

    public String kind()
    {
        return kind;
    }

    public Optional<Duration> retryAfter()
    {
        return retryAfter;
    }
}
