package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A token or CA that is a FIFO (hostile: the kubelet writes regular files) is refused at once, never waited on: the
 * agent stays responsive, is not ready while the kubeconfig cannot be written, and stops within its timeout.
 */
@ExtendWith(TempNodeExtension.class)
class AgentFifoSecretsTest
{
    @Test
    void aFifoTokenMakesTheAgentNotReadyAndNeverHangsIt(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, file);
            Await.until(Duration.ofSeconds(10), () -> agent.poll("/readyz").status() == 200, agent::log);

            // The link the pod reads the token by, replaced by a FIFO: an event in the volume, so the kubeconfig is rewritten.
            fifo(node.serviceAccountDir().resolve("token"));
            long changed = System.nanoTime();
            node.write("10-calico.conflist", TestNode.CALICO);
            Await.until(Duration.ofSeconds(10), () -> agent.poll("/readyz").status() == 503, agent::log);
            assertThat(System.nanoTime() - changed).as("not ready within 2 s").isLessThan(TimeUnit.SECONDS.toNanos(2));
            assertThat(agent.get("/readyz").body()).contains("is a FIFO, not a regular file");
            awaitPatched(agent, file);

            long stopping = System.nanoTime();
            assertThat(agent.terminate(Duration.ofSeconds(25))).as(agent.log()).isZero();
            assertThat(System.nanoTime() - stopping).as("stopped well within the shutdown timeout").isLessThan(TimeUnit.SECONDS.toNanos(10));
        }
    }

    /**
     * Puts a FIFO in place of the file by one rename, so there is no moment without a file there: deleting first
     * let the agent see "does not exist" in between, and the check of what it says raced with the FIFO's creation.
     */
    static void fifo(Path path)
            throws Exception
    {
        Path temp = path.resolveSibling("." + path.getFileName() + ".fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", temp.toString()).start();
        assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0).isTrue();
        Files.move(temp, path, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
}
