package io.cnichain.distribution.runtime;

/** One console line per step of the suite, so that a CI log shows what ran on the real runtime. */
final class Steps
{
    private Steps() {}

    static void say(String line)
    {
        System.out.println("[real-runtime] " + line);
    }
}
