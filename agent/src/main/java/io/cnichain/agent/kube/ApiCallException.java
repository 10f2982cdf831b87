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

    /** How long to wait before the next try: the server's Retry-After wins over the back-off's step, up to its cap. */
    public Duration wait(io.cnichain.agent.time.Backoff backoff, long nowNanos)
    {
        Duration step = backoff.failed(nowNanos).orElseThrow();
        Duration cap = backoff.policy().cap();
        return retryAfter.map(asked -> asked.compareTo(cap) > 0 ? cap : asked).filter(asked -> asked.compareTo(step) > 0).orElse(step);
    }

    /** Whether trying again may help: the server was busy, failing or not reached, not refusing the request. */
    public boolean passing()
    {
        return kind.equals("timeout") || kind.equals("connection") || kind.equals("child") || kind.equals("HTTP 429") || kind.startsWith("HTTP 5");
    }
}
