package io.cnichain.distribution.agent;

import io.cnichain.core.discovery.LibcniGeneration;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.testkit.TestNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Everything that happened on the node before {@link #await} has been dealt with by the agent (which must run with
 * {@code --log-level debug}) when it returns: a file the agent ignores is created and the agent's line about it
 * awaited, twice. The agent has one thread and takes events in order, so the second line comes after every pass
 * that the events before the first one caused. A check that something did not happen goes after this, never after a
 * sleep. At that point of rest the promise is checked too: when {@code /readyz} says ready, the file the runtime loads
 * (under either libcni generation) carries our entry.
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
        if (agent.poll("/readyz").status() == 200) {
            NodeSnapshot snapshot = node.snapshot();
            for (LibcniGeneration generation : LibcniGeneration.values()) {
                Optional<ConfigEntry> effective = snapshot.effectiveConfig(generation);
                if (effective.isPresent()) {
                    byte[] bytes = snapshot.load(effective.get()).bytes().orElse(new byte[0]);
                    assertThat(Files2.pluginsOf(effective.get().name(), bytes, generation))
                            .as("ready at rest, so " + effective.get().path() + " (what " + generation.description() + " loads) carries our entry")
                            .contains(Observer.PLUGIN);
                }
            }
        }
    }
}
