package io.cnichain.distribution.agent;

import java.time.Duration;

/**
 * How hard the reliability suite pushes: short in {@code mvn verify}, long in the soak run ({@code -Psoak}, which sets
 * {@code cnichain.soak=true}; {@code .ci/run} runs it). Every random choice comes from one seed, printed by each
 * test, and given back with {@code -Dcnichain.seed=...} to replay a run.
 */
final class FaultSettings
{
    private FaultSettings() {}

    static boolean soak()
    {
        return Boolean.getBoolean("cnichain.soak");
    }

    /** @return how long the racing writers run: 10 s, or 60 s in the soak run */
    static Duration race()
    {
        return Duration.ofSeconds(Long.getLong("cnichain.raceSeconds", soak() ? 60 : 10));
    }

    /** @return how many times the agent is killed in a storm: 20, or 60 in the soak run */
    static int kills()
    {
        return Integer.getInteger("cnichain.kills", soak() ? 60 : 20);
    }

    static long seed()
    {
        Long given = Long.getLong("cnichain.seed");
        return given != null ? given : System.nanoTime();
    }

    /** One line for the report, on the console of the test run. */
    static void report(String test, String line)
    {
        System.out.println("[reliability] " + test + ": " + line);
    }
}
