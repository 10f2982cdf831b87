package io.cnichain.agent.loop;

import io.cnichain.agent.time.Backoff;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * When another writer undoing our patch counts as a fight, and how the agent backs off from it (see
 * {@link AgentPolicy}).
 *
 * @param quickRevert a change this soon after our write undoes it on purpose
 * @param threshold   quick reverts within the window that make a fight
 * @param window      the window
 * @param backoff     the wait before each write in a fight, doubled by every further quick revert; its
 *                    {@code resetAfter} is how long the file must keep our entry for the fight to end
 * @param quiet       how long a writer that rewrites the file on its own must leave it alone to count as gone: one write
 *                    then, whatever the back-off (a writer still there undoes it at once, and the back-off steps)
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

    /**
     * @return a revert within 250 ms, five times within 30 s; back-off 1 s doubling up to 60 s; over after 10 s of peace;
     *         the other writer gone after 1 s without a change
     */
    public static FightPolicy defaults()
    {
        return new FightPolicy(Duration.ofMillis(250), 5, Duration.ofSeconds(30),
                new Backoff.Policy(Duration.ofSeconds(1), Duration.ofSeconds(60), 0, 0, Duration.ofSeconds(10)), Duration.ofSeconds(1));
    }

    static void positive(Duration duration, String name)
    {
        requireNonNull(duration, name + " is null");
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + duration);
        }
    }
}
