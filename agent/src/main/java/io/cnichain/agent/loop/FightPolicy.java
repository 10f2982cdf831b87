package io.cnichain.agent.loop;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * When another writer undoing our patch counts as a fight, and how the agent backs off from it (see
 * {@link AgentPolicy}).
 *
 * @param quickRevert    a change this soon after our write undoes it on purpose
 * @param threshold      quick reverts within the window that make a fight
 * @param window         the window
 * @param initialBackoff the first back-off; every further quick revert doubles it
 * @param maxBackoff     the longest back-off
 * @param stable         how long the file must keep our entry for the fight to end
 * @param quiet          how long the other writer must leave the file alone to count as gone: one write then, whatever
 *                       the back-off (a writer still there undoes it at once, and the back-off steps as it would)
 */
public record FightPolicy(Duration quickRevert, int threshold, Duration window, Duration initialBackoff, Duration maxBackoff, Duration stable,
                          Duration quiet)
{
    public FightPolicy
    {
        positive(quickRevert, "quickRevert");
        positive(window, "window");
        positive(initialBackoff, "initialBackoff");
        positive(maxBackoff, "maxBackoff");
        positive(stable, "stable");
        positive(quiet, "quiet");
        if (threshold < 1) {
            throw new IllegalArgumentException("threshold must be at least 1: " + threshold);
        }
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("maxBackoff " + maxBackoff + " is shorter than initialBackoff " + initialBackoff);
        }
    }

    /**
     * @return a revert within 250 ms, five times within 30 s; back-off 1 s doubling up to 60 s; over after 10 s of peace;
     *         the other writer gone after 1 s without a change
     */
    public static FightPolicy defaults()
    {
        return new FightPolicy(Duration.ofMillis(250), 5, Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofSeconds(60), Duration.ofSeconds(10),
                Duration.ofSeconds(1));
    }

    static void positive(Duration duration, String name)
    {
        requireNonNull(duration, name + " is null");
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + duration);
        }
    }
}
