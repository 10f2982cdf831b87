package io.cnichain.distribution.runtime;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.PluginList;
import java.nio.file.Path;
import java.time.Duration;

/** Waiting for the agent ({@code cni-chain run}, a child process) to patch a file. */
final class AgentWaits
{
    static final Duration PATCH_WAIT = Duration.ofSeconds(20);

    private AgentWaits() {}

    /** Until the file ends with our entry; fails at once when the agent exits, with its log. */
    static void awaitPatched(Process agent, Path file, Path log)
            throws InterruptedException
    {
        Await.until(PATCH_WAIT, () -> {
            if (!agent.isAlive()) {
                throw new AssertionError("the agent exited with " + agent.exitValue() + ":\n" + RuntimeNode.read(log));
            }
            return PluginList.patched(file);
        }, () -> file + " not patched:\n" + RuntimeNode.read(log));
    }

    /** After a test: the agent killed if it still runs, then the node closed (either may be absent). */
    static void tearDown(Process agent, RuntimeNode node)
            throws InterruptedException
    {
        if (agent != null && agent.isAlive()) {
            agent.destroyForcibly().waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        if (node != null) {
            node.close();
        }
    }
}
