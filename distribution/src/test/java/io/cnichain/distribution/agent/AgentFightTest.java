package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The default fight policy through the launcher: another writer undoing our patch at once, as Cilium's exclusive mode
 * does, is backed off from, and the agent recovers once it stops. The details (each step longer, a primary rewriting
 * now and then never backed off from) are the core's in-process LoopFightTest, with timings in milliseconds.
 */
@ExtendWith(TempNodeExtension.class)
class AgentFightTest
{
    @Test
    void aWriterUndoingOurPatchAtOnceIsBackedOffFromThenTheAgentRecovers(TestNode node)
            throws Exception
    {
        node.binaries("cilium-cni");
        Path file = node.write("05-cilium.conflist", TestNode.CILIUM);
        String original = node.read("05-cilium.conflist");
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, file);
            AtomicBoolean fighting = new AtomicBoolean(true);
            Thread other = new Thread(() -> {
                while (fighting.get()) {
                    if (Files2.read(file).contains("linkerd-cni")) {
                        node.replaceAtomically("05-cilium.conflist", original);
                    }
                    Files2.pause(2);
                }
            }, "exclusive-mode-primary");
            other.start();
            try {
                agent.awaitLog("Backing off: /etc/cni/net.d/05-cilium.conflist was undone 5 times within 30 s, each time less than 250 ms after our write; "
                        + "another writer is fighting over it. Next write in 1 s. Hint: Cilium's exclusive mode", Duration.ofSeconds(10));
            }
            finally {
                fighting.set(false);
                other.join();
            }
            Await.until(Duration.ofSeconds(5), () -> agent.get("/readyz").body()
                    .contains("another writer keeps undoing our entry in /etc/cni/net.d/05-cilium.conflist; backing off "), agent::log);
            assertThat(agent.get("/readyz").status()).isEqualTo(503);
            assertThat(agent.get("/healthz").status()).isEqualTo(200);
            assertThat(agent.get("/metrics").body()).containsPattern("cnichain_fights_total [1-9]");

            // The other writer stopped: once the file has kept our entry for 10 s, back to normal and ready.
            awaitPatched(agent, file);
            Await.until(Duration.ofSeconds(30), () -> agent.get("/readyz").status() == 200, agent::log);
            assertThat(agent.log()).contains("/etc/cni/net.d/05-cilium.conflist has kept our entry for 10 s; the fight is over, back to normal speed");
        }
    }

    /**
     * A writer that rewrites the file on its own, 20 times a second (half in place, half by rename), whatever it holds:
     * the agent backs off from it as from any fight, but once the writer stops, the file gets our entry within 2 s, not
     * when the back-off (8 s here, up to a minute) runs out; and the fight costs no more writes than the back-off allows.
     */
    @Test
    void aWriterRewritingOnItsOwnIsBackedOffFromAndTheFileRepatchedSoonAfterItStops(TestNode node)
            throws Exception
    {
        node.binaries("cilium-cni");
        Path file = node.write("05-cilium.conflist", TestNode.CILIUM);
        String original = node.read("05-cilium.conflist");
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, file);
            AtomicBoolean rewriting = new AtomicBoolean(true);
            AtomicLong lastWrite = new AtomicLong();
            Thread other = new Thread(() -> {
                for (int i = 0; rewriting.get(); i++) {
                    if (i % 2 == 0) {
                        node.replaceAtomically("05-cilium.conflist", original);
                    }
                    else {
                        node.rewriteInPlace("05-cilium.conflist", original);
                    }
                    lastWrite.set(System.nanoTime());
                    Files2.pause(50);
                }
            }, "rewriting-primary");
            long started = System.nanoTime();
            other.start();
            try {
                agent.awaitLog("another writer is fighting over it. Next write in 8 s.", Duration.ofSeconds(30));
                // The writer goes on a while into the back-off (undoing that last write), then stops.
                Files2.pause(1000);
            }
            finally {
                rewriting.set(false);
                other.join();
            }
            assertThat(PluginList.patched(file)).as("the writer's last version, without our entry").isFalse();
            long fought = System.nanoTime() - started;
            long writes = agent.writes("/etc/cni/net.d/05-cilium.conflist");

            Await.until(Duration.ofSeconds(10), () -> PluginList.patched(file), agent::log);
            long repatched = System.nanoTime() - lastWrite.get();
            assertThat(Duration.ofNanos(repatched)).as("re-patched after the writer stopped; the back-off had 8 s to run:\n" + agent.log())
                    .isLessThan(Duration.ofSeconds(2));
            assertThat(agent.log()).contains("/etc/cni/net.d/05-cilium.conflist has been left alone for 1 s; writing our entry again before the back-off ends");
            assertThat(writes).as("our writes in %d ms of fighting, at most 20 in any 10 s", fought / 1_000_000).isLessThanOrEqualTo(20 * (1 + fought / 10_000_000_000L));
            System.out.printf("[fight] a writer at 20 Hz for %d ms: %d writes of ours; re-patched %d ms after it stopped%n", fought / 1_000_000, writes,
                    repatched / 1_000_000);
        }
    }
}
