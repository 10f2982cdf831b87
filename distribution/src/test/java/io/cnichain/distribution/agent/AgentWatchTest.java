package io.cnichain.distribution.agent;

import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static io.cnichain.distribution.agent.Files2.replaceAtomically;
import static org.assertj.core.api.Assertions.assertThat;

/** The watches themselves: overflow, directories that go away, our binary, the service-account token. */
class AgentWatchTest
{
    @TempDir
    Path temp;

    TestNode node;

    @BeforeEach
    void setUp()
    {
        node = TestNode.create(temp);
    }

    @Test
    void burstOfTwoThousandFilesThenAConfigIsPatchedThroughTheOverflowPath()
            throws Exception
    {
        try (AgentProcess agent = AgentProcess.start(node)) {
            agent.awaitLog("No active CNI configuration files found", Duration.ofSeconds(10));
            // Freeze the agent so the burst queues up in the kernel; when it resumes, more than 512 events are
            // waiting on one watch key and arrive as a single OVERFLOW: the agent must rescan everything.
            assertThat(agent.signal("STOP")).isZero();
            try {
                for (int i = 0; i < 2000; i++) {
                    Files.writeString(node.conf("junk-" + i + ".txt"), "x");
                }
                replaceAtomically(node.conf("10-calico.conflist"), AgentRewriteTest.pretty(TestNode.CALICO));
            }
            finally {
                assertThat(agent.signal("CONT")).isZero();
            }
            awaitPatched(agent, node.conf("10-calico.conflist"));
            agent.awaitLog("rescanning everything", Duration.ofSeconds(10));
            assertThat(agent.get("/metrics").body()).containsPattern("cnichain_events_total\\{kind=\"overflow\"} [1-9]");
        }
    }

    @Test
    void confDirDeletedAndRecreated()
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, node.conf("10-calico.conflist"));
            Files2.run("rm", "-rf", node.confDir().toString());
            agent.awaitLog("Watched directory " + node.confDir() + " is gone", Duration.ofSeconds(10));
            Files.createDirectories(node.confDir());
            replaceAtomically(node.conf("10-calico.conflist"), AgentRewriteTest.pretty(TestNode.CALICO));
            awaitPatched(agent, node.conf("10-calico.conflist"));
            assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).as("the kubeconfig went with the directory and is back").exists();
            // And the new directory is watched: a later rewrite is seen too.
            replaceAtomically(node.conf("10-calico.conflist"), AgentRewriteTest.pretty(TestNode.CALICO));
            awaitPatched(agent, node.conf("10-calico.conflist"));
        }
    }

    @Test
    void binaryDeletedFromTheBinDirIsReinstalled()
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, node.conf("10-calico.conflist"));
            Path binary = node.binDir().resolve("linkerd-cni");
            Files.delete(binary);
            AgentProcess.await(Duration.ofSeconds(10), () -> Files.isExecutable(binary), agent::log);
            assertThat(binary).hasSameBinaryContentAs(node.imageBinDir().resolve("linkerd-cni"));
            Files.writeString(binary, "tampered");
            AgentProcess.await(Duration.ofSeconds(10), () -> Files2.read(binary).equals(Files2.read(node.imageBinDir().resolve("linkerd-cni"))), agent::log);
        }
    }

    @Test
    void tokenRotationByAKubeletStyleDataSwap()
            throws Exception
    {
        // The kubelet's atomic writer: timestamped dir, ..data link to it, token -> ..data/token.
        Path sa = node.serviceAccountDir();
        Files.delete(sa.resolve("token"));
        Files.delete(sa.resolve("ca.crt"));
        Path first = Files.createDirectories(sa.resolve("..2026_11_29_10_00_00.1"));
        Files.writeString(first.resolve("token"), "first-token");
        Files.writeString(first.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
        Files.createSymbolicLink(sa.resolve("..data"), first.getFileName());
        Files.createSymbolicLink(sa.resolve("token"), Path.of("..data/token"));
        Files.createSymbolicLink(sa.resolve("ca.crt"), Path.of("..data/ca.crt"));
        node.write("10-calico.conflist", TestNode.CALICO);
        Path kubeconfig = node.conf("ZZZ-linkerd-cni-kubeconfig");
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, node.conf("10-calico.conflist"));
            assertThat(kubeconfig).content().contains("token: first-token");

            Path second = Files.createDirectories(sa.resolve("..2026_11_29_11_00_00.2"));
            Files.writeString(second.resolve("token"), "second-token");
            Files.writeString(second.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
            Files.createSymbolicLink(sa.resolve("..data_tmp"), second.getFileName());
            Files.move(sa.resolve("..data_tmp"), sa.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);

            AgentProcess.await(Duration.ofSeconds(10), () -> Files2.read(kubeconfig).contains("token: second-token"), agent::log);
            agent.awaitLog("Detected change in service account files; recreating kubeconfig file", Duration.ofSeconds(10));
            assertThat(agent.log()).as("the token never reaches the log").doesNotContain("first-token").doesNotContain("second-token");
        }
    }
}
