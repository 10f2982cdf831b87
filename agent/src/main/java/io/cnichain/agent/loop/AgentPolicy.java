package io.cnichain.agent.loop;

import io.cnichain.agent.time.Backoff;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * The agent's timings, in one place so that tests can run the loop on their own clock. {@link #defaults()} is what
 * {@code cni-chain run} uses.
 *
 * @param notParsed    the tries of a file that does not parse yet (a primary writing it in several steps); after the
 *                     last the file is left alone until it changes
 * @param refusedWrite the tries of a write the filesystem refused (no space, read-only, permission denied,
 *                     immutable), which may succeed later without any event: never given up while it keeps failing
 * @param fights       when another writer is fighting over a file, and how the agent backs off
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
        FightPolicy.positive(stuckAfter, "stuckAfter");
    }

    /**
     * @return a file that does not parse tried after 25 ms, doubling to 3.2 s, 8 times; a refused write after 0.25 s,
     *         doubling to 30 s; {@link FightPolicy#defaults()}; stuck after 30 s
     */
    public static AgentPolicy defaults()
    {
        return new AgentPolicy(new Backoff.Policy(Duration.ofMillis(25), Duration.ofMillis(3200), 0, 8, Duration.ZERO),
                new Backoff.Policy(Duration.ofMillis(250), Duration.ofSeconds(30), 0, 0, Duration.ZERO), FightPolicy.defaults(), Duration.ofSeconds(30));
    }
}
