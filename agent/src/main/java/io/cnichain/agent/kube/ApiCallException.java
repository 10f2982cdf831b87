package io.cnichain.agent.kube;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
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

    /** How long to wait before the next try: the server's Retry-After wins over a shorter step of the back-off, up to its cap. */
    public Duration wait(io.cnichain.agent.time.Backoff backoff, long nowNanos)
    {
        return backoff.failed(nowNanos, retryAfter.orElse(Duration.ZERO)).orElseThrow();
    }

    /** Whether trying again may help: the server was busy, failing or not reached, not refusing the request. */
    public boolean passing()
    {
        return kind.equals("timeout") || kind.equals("connection") || kind.equals("child") || kind.equals("conflict") || kind.equals("HTTP 429")
                || kind.startsWith("HTTP 5");
    }

    /** @return the wait a {@code Retry-After} header asks for, in seconds or as a date; empty when it is neither */
    public static Optional<Duration> parseRetryAfter(String value, ZonedDateTime now)
    {
        String text = value.trim();
        if (text.matches("[0-9]{1,9}")) {
            return Optional.of(Duration.ofSeconds(Long.parseLong(text)));
        }
        try {
            Duration until = Duration.between(now, ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME));
            return Optional.of(until.isNegative() ? Duration.ZERO : until);
        }
        catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
