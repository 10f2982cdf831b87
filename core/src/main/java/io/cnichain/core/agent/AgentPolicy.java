package io.cnichain.core.agent;

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
 */
public record AgentPolicy(List<Duration> retryDelays, FightPolicy fights, Duration stuckAfter)
{
    public AgentPolicy
    {
        retryDelays = List.copyOf(requireNonNull(retryDelays, "retryDelays is null"));
        retryDelays.forEach(delay -> FightPolicy.positive(delay, "a retry delay"));
        requireNonNull(fights, "fights is null");
        FightPolicy.positive(stuckAfter, "stuckAfter");
    }

    /**
     * @return retries after 20, 50, 100, 200, 400, 800, 1600 and 3200 ms; {@link FightPolicy#defaults()}; stuck after 30 s
     */
    public static AgentPolicy defaults()
    {
        return new AgentPolicy(
                List.of(20L, 50L, 100L, 200L, 400L, 800L, 1600L, 3200L).stream().map(Duration::ofMillis).toList(),
                FightPolicy.defaults(),
                Duration.ofSeconds(30));
    }
}
