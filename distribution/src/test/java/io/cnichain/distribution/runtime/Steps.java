package io.cnichain.distribution.runtime;

/** One console line per step of the suite, so that a CI log shows what ran on the real runtime. */
public final class Steps
{
    private Steps() {}

    public static void say(String line)
    {
        System.out.println("[real-runtime] " + line);
    }
}
