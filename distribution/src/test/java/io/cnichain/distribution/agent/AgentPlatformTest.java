package io.cnichain.distribution.agent;

import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

import static io.cnichain.distribution.agent.AgentRewriteTest.pretty;
import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static io.cnichain.distribution.agent.Files2.patched;
import static io.cnichain.distribution.agent.Files2.replaceAtomically;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each platform's own way of rewriting its file, against the real agent with the platform adapters chosen by
 * auto-detection: every rewrite is re-patched, and nothing the platform writes beside it is touched.
 */
class AgentPlatformTest
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
    void ciliumRestartRewritesThroughAHiddenTempFile()
            throws IOException
    {
        node.binaries("cilium-cni");
        Path file = node.write("05-cilium.conflist", TestNode.CILIUM);
        try (AgentProcess agent = AgentProcess.start(node)) {
            agent.awaitLog("Using adapter cilium", Duration.ofSeconds(10));
            awaitPatched(agent, file);
            for (int restart = 0; restart < 3; restart++) {
                // What the Cilium agent does on start: .05-cilium.conflistNNN, then a rename onto the file.
                Path hidden = node.conf(".05-cilium.conflist" + (4000 + restart));
                Files.writeString(hidden, pretty(TestNode.CILIUM));
                Files.move(hidden, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                awaitPatched(agent, file);
            }
            // Exclusive mode renames other configurations aside: a backup is never patched.
            node.write("10-calico.conflist.cilium_bak", TestNode.CALICO);
            agent.awaitCount("Created CNI config /etc/cni/net.d/05-cilium.conflist", 4);
            assertThat(patched(node.conf("10-calico.conflist.cilium_bak"))).isFalse();
            assertThat(agent.log()).doesNotContain("Created CNI config /etc/cni/net.d/.05-cilium");
        }
    }

    @Test
    void ciliumConfigurationUnderAnotherExtensionWithNoLink()
    {
        node.binaries("cilium-cni");
        Path file = node.write("05-cilium.conflist-current", TestNode.CILIUM);
        node.write("05-cilium.conflist.cilium_bak", TestNode.CILIUM);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, file);
            replaceAtomically(file, pretty(TestNode.CILIUM));
            awaitPatched(agent, file);
            assertThat(patched(node.conf("05-cilium.conflist.cilium_bak"))).isFalse();
        }
    }

    @Test
    void calicoRestartTruncatesAndRewritesInPlace()
            throws Exception
    {
        node.binaries("calico", "calico-ipam");
        node.write("calico-kubeconfig", "apiVersion: v1\nkind: Config\n");
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.start(node)) {
            agent.awaitLog("Using adapter calico", Duration.ofSeconds(10));
            awaitPatched(agent, file);
            agent.awaitCount("Created CNI config", 1);
            String full = pretty(TestNode.CALICO);
            for (int restart = 1; restart <= 2; restart++) {
                // calico-node on start: truncate, then write, here in two pieces 100 ms apart.
                Files.writeString(file, full.substring(0, 40), StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
                Thread.sleep(100);
                assertThat(Files2.read(file)).as("nothing written from a half file").isEqualTo(full.substring(0, 40));
                Files.writeString(file, full.substring(40), StandardOpenOption.APPEND);
                awaitPatched(agent, file);
                agent.awaitCount("Created CNI config", 1 + restart);
            }
            // Its kubeconfig is rewritten on start as well: not a configuration, nothing to do.
            Files.writeString(node.conf("calico-kubeconfig"), "apiVersion: v1\nkind: Config\n# rotated\n");
            Thread.sleep(300);
            assertThat(agent.count("Created CNI config")).isEqualTo(3);
            assertThat(node.read("calico-kubeconfig")).endsWith("# rotated\n");
        }
    }

    @Test
    void ociPatchesTheRealFileBeforeTheLinkExistsAndFollowsItsReplacement()
            throws IOException
    {
        node.binaries("oci-ipvlan", "oci-ptp", "oci-ipam");
        Path current = node.write("10-oci.conflist-current", TestNode.OCI);
        try (AgentProcess agent = AgentProcess.start(node)) {
            agent.awaitLog("Using adapter oci-vcn-native", Duration.ofSeconds(10));
            awaitPatched(agent, current);
            agent.awaitCount("Created CNI config", 1);

            // The platform exposes it: the runtime now loads an already-patched file, nothing to write.
            Files.createSymbolicLink(node.conf("10-oci.conflist"), Path.of("10-oci.conflist-current"));
            agent.awaitLog("Ignoring event: CREATE /etc/cni/net.d/10-oci.conflist; written by us", Duration.ofSeconds(5));
            assertThat(agent.count("Created CNI config")).isEqualTo(1);

            // The platform's daemon replaces the real file: re-patched behind the link.
            replaceAtomically(current, pretty(TestNode.OCI));
            awaitPatched(agent, current);
            assertThat(Files.isSymbolicLink(node.conf("10-oci.conflist"))).isTrue();

            // And re-points the link at a new file with ln -sfn.
            Path next = node.write("10-oci.conflist-next", TestNode.OCI);
            Files2.run("ln", "-sfn", "10-oci.conflist-next", node.conf("10-oci.conflist").toString());
            awaitPatched(agent, next);
        }
    }

    @Test
    void flannelCopiedOverOnEveryK3sStart()
            throws Exception
    {
        String flannel = "{\"name\":\"cbr0\",\"cniVersion\":\"1.0.0\",\"plugins\":[{\"type\":\"flannel\",\"delegate\":{\"hairpinMode\":true,\"isDefaultGateway\":true}},"
                + "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}}]}";
        Path source = node.writeAt(node.host("/var/lib/rancher/k3s/agent/etc/flannel.conflist"), flannel);
        Path file = node.conf("10-flannel.conflist");
        Files.copy(source, file);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, file);
            for (int start = 0; start < 3; start++) {
                Files2.run("cp", source.toString(), file.toString());
                awaitPatched(agent, file);
            }
        }
    }
}
