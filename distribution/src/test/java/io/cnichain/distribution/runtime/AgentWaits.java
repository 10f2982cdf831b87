package io.cnichain.distribution.runtime;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Waiting for the agent ({@code cni-chain run}, a child process) to patch a file. */
final class AgentWaits
{
    static final Duration PATCH_WAIT = Duration.ofSeconds(20);

    private AgentWaits() {}

    /** Until the file ends with our entry; fails at once when the agent exits, with its log. */
    static void awaitPatched(Process agent, Path file, Path log)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + PATCH_WAIT.toNanos();
        while (!patched(file)) {
            if (!agent.isAlive()) {
                throw new AssertionError("the agent exited with " + agent.exitValue() + ":\n" + RuntimeNode.read(log));
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not patched within " + PATCH_WAIT.toSeconds() + " s:\n" + RuntimeNode.read(log));
            }
            Thread.sleep(20);
        }
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

    /** Whether the list's last plugin is ours; false while it does not parse (being replaced). */
    static boolean patched(Path file)
    {
        Optional<List<String>> types;
        try {
            types = Optional.of(RuntimeNode.pluginTypes(RuntimeNode.json(file)));
        }
        catch (RuntimeException notYet) {
            types = Optional.empty();
        }
        return types.map(list -> !list.isEmpty() && list.get(list.size() - 1).equals(RuntimeNode.PLUGIN)).orElse(false);
    }
}
