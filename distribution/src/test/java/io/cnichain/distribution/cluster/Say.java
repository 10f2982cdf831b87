package io.cnichain.distribution.cluster;

/** One console line per step of the cluster suite, so that a CI log shows what ran on the real cluster. */
final class Say
{
    private Say() {}

    static void step(String line)
    {
        System.out.println("[cluster] " + line);
    }
}
