package io.cnichain.agent.loop;

import io.cnichain.agent.time.Backoff;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * The agent's timings, in one place so that tests can run the loop on their own clock.
 *
 * @param notParsed    the tries of a file that does not parse yet (a primary writing it in several steps)
 * @param refusedWrite the tries of a write the filesystem refused (no space, read-only, immutable): it may succeed
 *                     later without any event, so it is never given up
 * @param stuckAfter   how long one reconcile pass may take before {@code /healthz} reports the loop stuck
 */
public record AgentPolicy(Backoff.Policy notParsed, Backoff.Policy refusedWrite, FightPolicy fights, Duration stuckAfter)
{
    public AgentPolicy
    {
        requireNonNull(notParsed, "notParsed is null");
        requireNonNull(refusedWrite, "refusedWrite is null");
        if (refusedWrite.tries() != 0) {
            throw new IllegalArgumentException("a refused write is always tried again: refusedWrite.tries must be 0, not " + refusedWrite.tries());
        }
        requireNonNull(fights, "fights is null");
        positive(stuckAfter, "stuckAfter");
    }

    public static AgentPolicy defaults()
    {
        return new AgentPolicy(new Backoff.Policy(Duration.ofMillis(25), Duration.ofMillis(3200), 0, 8, Duration.ZERO),
                new Backoff.Policy(Duration.ofMillis(250), Duration.ofSeconds(30), 0, 0, Duration.ZERO), FightPolicy.defaults(), Duration.ofSeconds(30));
    }

    private static void positive(Duration duration, String name)
    {
        requireNonNull(duration, name + " is null");
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + duration);
        }
    }

    /**
     * When another writer undoing our patch counts as a fight, and how the agent backs off from it.
     *
     * @param quickRevert a change this soon after our write undoes it on purpose
     * @param threshold   quick reverts within the window that make a fight
     * @param backoff     the wait before each write in a fight; its {@code resetAfter} is how long the file must keep our
     *                    entry for the fight to end
     * @param quiet       how long a writer that rewrites the file on its own must leave it alone to count as gone
     */
    public record FightPolicy(Duration quickRevert, int threshold, Duration window, Backoff.Policy backoff, Duration quiet)
    {
        public FightPolicy
        {
            positive(quickRevert, "quickRevert");
            positive(window, "window");
            requireNonNull(backoff, "backoff is null");
            positive(backoff.resetAfter(), "the back-off's resetAfter");
            positive(quiet, "quiet");
            if (threshold < 1) {
                throw new IllegalArgumentException("threshold must be at least 1: " + threshold);
            }
        }

        public static FightPolicy defaults()
        {
            return new FightPolicy(Duration.ofMillis(250), 5, Duration.ofSeconds(30),
                    new Backoff.Policy(Duration.ofSeconds(1), Duration.ofSeconds(60), 0, 0, Duration.ofSeconds(10)), Duration.ofSeconds(1));
        }
    }
}
