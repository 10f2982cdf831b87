package io.cnichain.agent.loop;

import java.time.Duration;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The agent's timings, in one place so that tests can run the loop in milliseconds. {@link #defaults()} is what
 * {@code cni-chain run} uses.
 *
 * @param retryDelays the waits before each retry of a file that does not parse yet (a primary writing it in several
 *                    steps); after the last one the file is left alone until it changes
 * @param fights      when another writer is fighting over a file, and how the agent backs off
 * @param stuckAfter  how long one reconcile pass may take before {@code /healthz} reports the loop stuck
 * @param writeRetryDelays the waits before each new try of a write the filesystem refused (no space, read-only,
 *                    permission denied, immutable), which may succeed later without any event; the last one repeats
 *                    while the write keeps failing, and no timer is left once it succeeds
 */
public record AgentPolicy(List<Duration> retryDelays, FightPolicy fights, Duration stuckAfter, List<Duration> writeRetryDelays)
{
    /** Failed writes are retried after 0.25, 0.5, 1, 2, 4, 8, 16 s, then every 30 s while they keep failing. */
    public static final List<Duration> DEFAULT_WRITE_RETRY_DELAYS =
            millis(250L, 500L, 1000L, 2000L, 4000L, 8000L, 16000L, 30000L);

    public AgentPolicy
    {
        retryDelays = List.copyOf(requireNonNull(retryDelays, "retryDelays is null"));
        for (Duration delay : retryDelays) {
            FightPolicy.positive(delay, "a retry delay");
        }
        requireNonNull(fights, "fights is null");
        FightPolicy.positive(stuckAfter, "stuckAfter");
        writeRetryDelays = List.copyOf(requireNonNull(writeRetryDelays, "writeRetryDelays is null"));
        if (writeRetryDelays.isEmpty()) {
            throw new IllegalArgumentException("writeRetryDelays must not be empty: a failed write is always tried again");
        }
        for (Duration delay : writeRetryDelays) {
            FightPolicy.positive(delay, "a write retry delay");
        }
    }

    /**
     * With the default {@link #DEFAULT_WRITE_RETRY_DELAYS}.
     */
    public AgentPolicy(List<Duration> retryDelays, FightPolicy fights, Duration stuckAfter)
    {
        this(retryDelays, fights, stuckAfter, DEFAULT_WRITE_RETRY_DELAYS);
    }

    /**
     * @return retries after 20, 50, 100, 200, 400, 800, 1600 and 3200 ms; {@link FightPolicy#defaults()}; stuck after 30 s;
     *         {@link #DEFAULT_WRITE_RETRY_DELAYS}
     */
    private static List<Duration> millis(long... millis)
    {
        Duration[] durations = new Duration[millis.length];
        for (int i = 0; i < millis.length; i++) {
            durations[i] = Duration.ofMillis(millis[i]);
        }
        return List.of(durations);
    }

    public static AgentPolicy defaults()
    {
        return new AgentPolicy(
                millis(20L, 50L, 100L, 200L, 400L, 800L, 1600L, 3200L),
                FightPolicy.defaults(),
                Duration.ofSeconds(30),
                DEFAULT_WRITE_RETRY_DELAYS);
    }
}
