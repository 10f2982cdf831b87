package io.cnichain.agent.time;

import java.time.Duration;
import java.util.Optional;
import java.util.random.RandomGenerator;

import static java.util.Objects.requireNonNull;

/**
 * The agent's one way to wait between tries of something that keeps failing: the first wait, doubled up to a cap, each
 * stretched by up to {@code jitter} of itself so that a fleet of agents spreads out. A success resets it only once it
 * has lasted {@code resetAfter}, so that something that fails again at once goes on waiting longer, as client-go's
 * reflector does. Used by one thread.
 */
public final class Backoff
{
    private final Policy policy;
    private final RandomGenerator random;
    private int failures;
    private long successSince;
    private boolean succeeding;

    /** @param tries how many failures get a wait before it gives up; 0 for never */
    public record Policy(Duration first, Duration cap, double jitter, int tries, Duration resetAfter)
    {
        public Policy
        {
            requireNonNull(first, "first is null");
            requireNonNull(cap, "cap is null");
            requireNonNull(resetAfter, "resetAfter is null");
            if (first.isNegative() || first.isZero() || cap.compareTo(first) < 0) {
                throw new IllegalArgumentException("first must be positive and cap at least first: " + first + ", " + cap);
            }
            if (!(jitter >= 0 && jitter <= 1)) {
                throw new IllegalArgumentException("jitter must be between 0 and 1: " + jitter);
            }
            if (tries < 0 || resetAfter.isNegative()) {
                throw new IllegalArgumentException("tries and resetAfter must not be negative: " + tries + ", " + resetAfter);
            }
        }

        /** Calls to the API server, as client-go's reflector waits: 800 ms doubling to 30 s, jittered, reset after 2 minutes. */
        public static Policy apiServer()
        {
            return new Policy(Duration.ofMillis(800), Duration.ofSeconds(30), 0.5, 0, Duration.ofMinutes(2));
        }

        /**
         * Calls the API server refuses (a missing right, fence or object): a setup to fix, not a blip, so asked again
         * slowly: 30 s doubling to 10 minutes, jittered, so that a fleet does not ask every 30 s.
         */
        public static Policy refusedByApiServer()
        {
            return new Policy(Duration.ofSeconds(30), Duration.ofMinutes(10), 0.5, 0, Duration.ZERO);
        }
    }

    public Backoff(Policy policy, RandomGenerator random)
    {
        this.policy = requireNonNull(policy, "policy is null");
        this.random = requireNonNull(random, "random is null");
    }

    public Policy policy()
    {
        return policy;
    }

    /** @return how long to wait before the next try; empty once the policy gives up, until a reset */
    public Optional<Duration> failed(long nowNanos)
    {
        return failed(nowNanos, Duration.ZERO);
    }

    /**
     * @param atLeast what the other side asked for ({@code Retry-After}): waited instead of a shorter step, up to the
     *                cap, and jittered as a step is, so that agents told the same wait at the same moment do not all
     *                come back in the same instant
     * @return how long to wait before the next try; empty once the policy gives up, until a reset
     */
    public Optional<Duration> failed(long nowNanos, Duration atLeast)
    {
        if (succeeding && nowNanos - successSince >= policy.resetAfter().toNanos()) {
            failures = 0;
        }
        succeeding = false;
        if (policy.tries() > 0 && failures >= policy.tries()) {
            failures++;
            return Optional.empty();
        }
        long wait = policy.first().toNanos();
        for (int i = 0; i < failures && wait < policy.cap().toNanos(); i++) {
            wait = Math.min(wait * 2, policy.cap().toNanos());
        }
        failures++;
        wait = Math.max(wait, Math.min(atLeast.toNanos(), policy.cap().toNanos()));
        if (policy.jitter() > 0) {
            wait += (long) (random.nextDouble() * policy.jitter() * wait);
        }
        return Optional.of(Duration.ofNanos(wait));
    }

    public void succeeded(long nowNanos)
    {
        if (!succeeding) {
            succeeding = true;
            successSince = nowNanos;
        }
        if (policy.resetAfter().isZero()) {
            failures = 0;
        }
    }

    public void reset()
    {
        failures = 0;
        succeeding = false;
    }

    public int failures()
    {
        return failures;
    }

    public boolean gaveUp()
    {
        return policy.tries() > 0 && failures > policy.tries();
    }
}
