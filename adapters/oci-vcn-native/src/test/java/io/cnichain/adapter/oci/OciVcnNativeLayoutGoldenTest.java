package io.cnichain.adapter.oci;

import io.cnichain.core.engine.FileOutcome;
import io.cnichain.testkit.NodeGolden;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * OCI VCN-Native layouts, each run through the real engine (detect, install, the platform's own moves,
 * uninstall) with the adapter pinned; every step is compared with {@code golden/oci/<layout>/<step>.golden}.
 */
@ExtendWith(TempNodeExtension.class)
class OciVcnNativeLayoutGoldenTest
{
    static final String PINNED = "adapter: oci-vcn-native\n";
    /** What the platform's daemon writes when it rewrites its file: the same network, another MTU. */
    static final String OCI_REWRITTEN = """
            {"name":"oci","cniVersion":"0.3.1","plugins":[{"type":"oci-ipvlan","mode":"l2","ipam":{"type":"oci-ipam"}},\
            {"type":"oci-ptp","containerInterface":"ptp-veth0","mtu":1500}]}""";

    TestNode node;

    @BeforeEach
    void setUp(TestNode node)
    {
        this.node = node.binaries("oci-ipvlan", "oci-ptp", "oci-ipam", "loopback");
    }

    @Test
    void relativeLink()
            throws IOException
    {
        node.write("10-oci.conflist-current", TestNode.OCI);
        node.link("10-oci.conflist", "10-oci.conflist-current");
        roundTrip(NodeGolden.start(node, PINNED, "golden", "oci", "relative-link"));
        assertThat(Files.readSymbolicLink(node.conf("10-oci.conflist"))).hasToString("10-oci.conflist-current");
    }

    @Test
    void absoluteLink()
            throws IOException
    {
        node.write("10-oci.conflist-current", TestNode.OCI);
        node.link("10-oci.conflist", "/etc/cni/net.d/10-oci.conflist-current");
        roundTrip(NodeGolden.start(node, PINNED, "golden", "oci", "absolute-link"));
        assertThat(Files.readSymbolicLink(node.conf("10-oci.conflist"))).hasToString("/etc/cni/net.d/10-oci.conflist-current");
    }

    @Test
    void noLinkAtAllThenThePlatformExposesTheFile()
    {
        node.write("10-oci.conflist-current", TestNode.OCI);
        NodeGolden golden = NodeGolden.start(node, PINNED, "golden", "oci", "no-link");
        String before = golden.layout();
        golden.detect("before");
        assertThat(golden.install("install").outcomes()).extracting(FileOutcome::result).containsExactly(FileOutcome.Result.PATCHED);

        // The platform exposes its file: the runtime now loads a configuration that already chains the plugin.
        node.link("10-oci.conflist", "10-oci.conflist-current");
        assertThat(golden.install("linked").outcomes()).extracting(FileOutcome::result).containsExactly(FileOutcome.Result.UNCHANGED);
        assertThat(golden.engine().snapshot().effectiveConfig()).hasValueSatisfying(e -> assertThat(e.name()).isEqualTo("10-oci.conflist"));

        golden.uninstall("uninstall");
        assertThat(golden.layout()).isEqualTo(before.replace("  10-oci.conflist-current\n", "  10-oci.conflist -> 10-oci.conflist-current\n  10-oci.conflist-current\n"));
    }

    @Test
    void targetReplacedByThePlatform()
            throws IOException
    {
        node.write("10-oci.conflist-current", TestNode.OCI);
        node.link("10-oci.conflist", "10-oci.conflist-current");
        NodeGolden golden = NodeGolden.start(node, PINNED, "golden", "oci", "target-replaced");
        golden.detect("before");
        golden.install("install");

        // The daemon prepares a new file and renames it onto the old one: our entry is gone with the old inode.
        Path prepared = node.write(".10-oci.conflist-current.new", OCI_REWRITTEN);
        Files.move(prepared, node.conf("10-oci.conflist-current"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        golden.detect("replaced");
        assertThat(golden.install("repatched").outcomes()).singleElement().satisfies(o -> {
            assertThat(o.result()).isEqualTo(FileOutcome.Result.PATCHED);
            assertThat(o.path()).isEqualTo(Path.of("/etc/cni/net.d/10-oci.conflist"));
        });
        assertThat(node.read("10-oci.conflist-current")).contains("\"mtu\": 1500", "linkerd-cni");

        golden.uninstall("uninstall");
        assertThat(node.read("10-oci.conflist-current")).contains("\"mtu\": 1500").doesNotContain("linkerd-cni");
    }

    @Test
    void linkRepointedByThePlatform()
            throws IOException
    {
        node.write("10-oci.conflist-current", TestNode.OCI);
        node.link("10-oci.conflist", "10-oci.conflist-current");
        NodeGolden golden = NodeGolden.start(node, PINNED, "golden", "oci", "link-repointed");
        golden.detect("before");
        golden.install("install");

        // A new generation of the file, and the link moved to it atomically (a new link renamed over the old).
        node.write("11-oci.conflist-current", OCI_REWRITTEN);
        Path newLink = node.link(".10-oci.conflist.new", "11-oci.conflist-current");
        Files.move(newLink, node.conf("10-oci.conflist"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        assertThat(golden.install("repointed").outcomes()).extracting(o -> o.path().getFileName().toString() + " " + o.result())
                .containsExactly("10-oci.conflist PATCHED", "10-oci.conflist-current UNCHANGED");

        golden.uninstall("uninstall");
        assertThat(node.read("10-oci.conflist-current")).doesNotContain("linkerd-cni");
        assertThat(node.read("11-oci.conflist-current")).doesNotContain("linkerd-cni");
    }

    @Test
    void regularConflistWrittenByThePlatform()
    {
        node.write("10-oci.conflist", TestNode.OCI);
        roundTrip(NodeGolden.start(node, PINNED, "golden", "oci", "regular-conflist"));
    }

    private void roundTrip(NodeGolden golden)
    {
        String before = golden.layout();
        golden.detect("before");
        assertThat(golden.install("install").outcomes()).extracting(FileOutcome::result).containsExactly(FileOutcome.Result.PATCHED);
        assertThat(golden.engine().install().outcomes()).extracting(FileOutcome::result).containsExactly(FileOutcome.Result.UNCHANGED);
        assertThat(golden.uninstall("uninstall").succeeded()).isTrue();
        assertThat(golden.layout()).as("uninstall leaves the node as it was").isEqualTo(before);
    }
}
