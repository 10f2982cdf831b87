package io.cnichain.distribution.agent;

import io.cnichain.core.json.CniJson;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static io.cnichain.distribution.agent.Files2.patched;
import static io.cnichain.distribution.agent.Files2.replaceAtomically;
import static org.assertj.core.api.Assertions.assertThat;

/** Every way a primary writes its file, against the real agent process, on real inotify. */
class AgentRewriteTest
{
    @TempDir
    Path temp;

    TestNode node;

    @BeforeEach
    void setUp()
    {
        node = TestNode.create(temp);
    }

    static String pretty(String json)
    {
        return new String(CniJson.write(CniJson.parse(json.getBytes(StandardCharsets.UTF_8))), StandardCharsets.UTF_8);
    }

    @Test
    void primaryCreatedAfterStartAndNothingCreatedBefore()
    {
        try (AgentProcess agent = AgentProcess.start(node)) {
            agent.awaitLog("No active CNI configuration files found in /etc/cni/net.d; waiting", java.time.Duration.ofSeconds(10));
            assertThat(node.listing()).isEmpty();
            assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
            replaceAtomically(node.conf("10-calico.conflist"), pretty(TestNode.CALICO));
            awaitPatched(agent, node.conf("10-calico.conflist"));
            assertThat(node.binDir().resolve("linkerd-cni")).exists();
            assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).exists();
        }
    }

    @Test
    void rewrittenInPlaceInTwoHalvesNeverGetsAnInvalidWriteFromUs()
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, file);
            agent.awaitCount("Created CNI config", 1);
            long writesBefore = agent.count("Created CNI config");

            // Record every content the file goes through while Calico rewrites it in place.
            Set<String> seen = new LinkedHashSet<>();
            AtomicBoolean watching = new AtomicBoolean(true);
            Thread observer = new Thread(() -> {
                while (watching.get()) {
                    seen.add(Files2.read(file));
                }
            });
            observer.start();
            String full = pretty(TestNode.CALICO);
            int half = full.length() / 2;
            Files.writeString(file, full.substring(0, half), StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
            Thread.sleep(200);
            assertThat(Files2.read(file)).as("the agent never writes from a half file").isEqualTo(full.substring(0, half));
            Files.writeString(file, full.substring(half), StandardOpenOption.APPEND);
            awaitPatched(agent, file);
            watching.set(false);
            observer.join();

            for (String content : seen) {
                if (content.contains("linkerd-cni")) {
                    assertThat(CniJson.parse(content.getBytes(StandardCharsets.UTF_8))).as("every write of ours is complete JSON").isNotNull();
                }
            }
            agent.awaitCount("Created CNI config", writesBefore + 1);
            assertThat(agent.count("Created CNI config")).as("one write, after the second half").isEqualTo(writesBefore + 1);
            assertThat(agent.log()).contains("Waiting for /etc/cni/net.d/10-calico.conflist");
        }
    }

    @Test
    void replacedAtomically()
    {
        Path file = node.write("05-cilium.conflist", TestNode.CILIUM);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, file);
            for (int i = 0; i < 3; i++) {
                replaceAtomically(file, pretty(TestNode.CILIUM));
                awaitPatched(agent, file);
            }
            agent.awaitCount("Created CNI config /etc/cni/net.d/05-cilium.conflist", 4);
        }
    }

    @Test
    void movedInFromAnotherDirectoryAwsStyle()
            throws IOException
    {
        try (AgentProcess agent = AgentProcess.start(node)) {
            Path prepared = node.writeAt(node.host("/var/run/aws-node/10-aws.conflist"), "{\"cniVersion\":\"0.4.0\",\"name\":\"aws-cni\",\"plugins\":[{\"type\":\"aws-cni\"},{\"type\":\"egress-cni\"}]}");
            Files.move(prepared, node.conf("10-aws.conflist"), StandardCopyOption.ATOMIC_MOVE);
            awaitPatched(agent, node.conf("10-aws.conflist"));
        }
    }

    @Test
    void linkTargetInAnotherDirectoryReplacedAtomically()
            throws IOException
    {
        Path real = node.writeAt(node.host("/etc/cni/oci/10-oci.conflist-current"), TestNode.OCI);
        node.link("10-oci.conflist", "../oci/10-oci.conflist-current");
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, real);
            // inotify says nothing in the conf dir about this: only the watch on the target's directory sees it.
            replaceAtomically(real, pretty(TestNode.OCI));
            awaitPatched(agent, real);
            assertThat(Files.isSymbolicLink(node.conf("10-oci.conflist"))).isTrue();
            agent.awaitCount("Created CNI config /etc/cni/oci/10-oci.conflist-current", 2);
        }
    }

    @Test
    void linkRepointedWithLnSfn()
            throws IOException
    {
        node.write("10-oci.conflist-v1", TestNode.OCI);
        node.write("10-oci.conflist-v2", TestNode.OCI);
        node.link("10-oci.conflist", "10-oci.conflist-v1");
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, node.conf("10-oci.conflist-v1"));
            Files2.run("ln", "-sfn", "10-oci.conflist-v2", node.conf("10-oci.conflist").toString());
            awaitPatched(agent, node.conf("10-oci.conflist-v2"));
            assertThat(Files.readSymbolicLink(node.conf("10-oci.conflist"))).isEqualTo(Path.of("10-oci.conflist-v2"));
        }
    }

    @Test
    void linkCreatedAfterStart()
            throws IOException
    {
        // generic-symlink: nothing is loaded by the runtime until the link exists. (The OCI adapter patches a
        // .conflist-current before its link exists; AgentPlatformTest covers that.)
        node.write("10-oci.conflist-current", TestNode.OCI);
        try (AgentProcess agent = AgentProcess.start(node, "--adapter", "generic-symlink")) {
            agent.awaitLog("No active CNI configuration files found", java.time.Duration.ofSeconds(10));
            assertThat(patched(node.conf("10-oci.conflist-current"))).isFalse();
            Files.createSymbolicLink(node.conf("10-oci.conflist"), Path.of("10-oci.conflist-current"));
            awaitPatched(agent, node.conf("10-oci.conflist-current"));
            assertThat(Files.isSymbolicLink(node.conf("10-oci.conflist"))).isTrue();
        }
    }

    @Test
    void singlePluginConfWrittenAfterStartIsConvertedOnce()
    {
        try (AgentProcess agent = AgentProcess.start(node)) {
            replaceAtomically(node.conf("05-cilium.conf"), pretty(TestNode.CILIUM_CONF));
            awaitPatched(agent, node.conf("05-cilium.conflist"));
            AgentProcess.await(java.time.Duration.ofSeconds(5), () -> !Files.exists(node.conf("05-cilium.conf")), agent::log);
            assertThat(node.listing()).containsExactly("05-cilium.conflist", "ZZZ-linkerd-cni-kubeconfig");
        }
    }
}
