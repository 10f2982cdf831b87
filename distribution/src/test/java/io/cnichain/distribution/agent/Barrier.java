package io.cnichain.distribution.agent;

import io.cnichain.testkit.TestNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Everything that happened on the node before {@link #await} has been dealt with by the agent (which must run with
 * {@code --log-level debug}) when it returns: a file the agent ignores is created and the agent's line about it
 * awaited, twice. The agent has one thread and takes events in order, so the second line comes after every pass
 * that the events before the first one caused. A check that something did not happen goes after this, never after a
 * sleep.
 */
final class Barrier
{
    private static final AtomicInteger NEXT = new AtomicInteger();

    private Barrier() {}

    static void await(AgentProcess agent, TestNode node)
    {
        for (int i = 0; i < 2; i++) {
            Path file = node.conf("barrier-" + NEXT.incrementAndGet() + ".tmp");
            try {
                Files.writeString(file, "");
                agent.awaitLog("Ignoring event: CREATE /etc/cni/net.d/" + file.getFileName() + "; not a configuration", Duration.ofSeconds(20));
                Files.delete(file);
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
