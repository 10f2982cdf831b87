package io.cnichain.distribution.agent;

import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static io.cnichain.distribution.agent.Files2.replaceAtomically;
import static org.assertj.core.api.Assertions.assertThat;

/** Another writer that undoes our patch at once, as Cilium's exclusive mode does, against one that rewrites now and then. */
class AgentFightTest
{
    @TempDir
    Path temp;

    @Test
    void exclusiveModePrimaryThatRevertsWithin50msIsBackedOffFrom()
            throws Exception
    {
        TestNode node = TestNode.create(temp);
        Path file = node.write("05-cilium.conflist", TestNode.CILIUM);
        String original = AgentRewriteTest.pretty(TestNode.CILIUM);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, file);
            AtomicBoolean fighting = new AtomicBoolean(true);
            AtomicInteger reverts = new AtomicInteger();
            Thread primary = new Thread(() -> {
                while (fighting.get()) {
                    if (Files2.read(file).contains("linkerd-cni")) {
                        sleep(20);
                        replaceAtomically(file, original);
                        reverts.incrementAndGet();
                    }
                    sleep(5);
                }
            });
            agent.awaitCount("Created CNI config", 1);
            long before = agent.count("Created CNI config");
            primary.start();
            Thread.sleep(10_000);
            fighting.set(false);
            primary.join();

            Thread.sleep(200);
            long ourWrites = agent.count("Created CNI config") - before;
            System.out.println("fight test: our writes in 10 s = " + ourWrites + ", reverts = " + reverts.get());
            assertThat(ourWrites).as("bounded writes during a 10 s fight").isBetween(5L, 16L);
            assertThat(agent.alive()).isTrue();
            assertThat(agent.get("/healthz").status()).isEqualTo(200);
            AgentProcess.Response ready = agent.get("/readyz");
            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.body()).contains("another writer keeps undoing our entry in /etc/cni/net.d/05-cilium.conflist");
            assertThat(agent.log()).contains("Backing off: /etc/cni/net.d/05-cilium.conflist was undone");
            assertThat(agent.get("/metrics").body()).containsPattern("cnichain_fights_total [1-9]");

            // The other writer stopped: once the file has kept our entry for a while, back to normal and ready.
            awaitPatched(agent, file);
            AgentProcess.await(Duration.ofSeconds(75), () -> agent.get("/readyz").status() == 200, agent::log);
            assertThat(agent.log()).contains("the fight is over, back to normal speed");
        }
    }

    @Test
    void primaryRewritingEverySecondIsRepatchedEveryTimeAtFullSpeed()
            throws Exception
    {
        TestNode node = TestNode.create(temp);
        Path file = node.write("10-flannel.conflist", "{\"name\":\"cbr0\",\"cniVersion\":\"0.3.1\",\"plugins\":[{\"type\":\"flannel\"},{\"type\":\"portmap\"}]}");
        String original = Files2.read(file);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, file);
            for (int i = 0; i < 6; i++) {
                Thread.sleep(1000);
                replaceAtomically(file, original);
                long start = System.nanoTime();
                awaitPatched(agent, file);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("re-patched without a back-off").isLessThan(Duration.ofMillis(800));
            }
            assertThat(agent.log()).doesNotContain("Backing off");
            assertThat(agent.get("/readyz").status()).isEqualTo(200);
        }
    }

    private static void sleep(long millis)
    {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
