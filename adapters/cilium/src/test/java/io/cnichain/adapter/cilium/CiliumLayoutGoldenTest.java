package io.cnichain.adapter.cilium;

import io.cnichain.core.engine.FileOutcome;
import io.cnichain.testkit.NodeGolden;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cilium's layouts, each run through the real engine (detect, install, uninstall) with the adapter pinned;
 * every step is compared with {@code golden/cilium/<layout>/<step>.golden}.
 */
@ExtendWith(TempNodeExtension.class)
class CiliumLayoutGoldenTest
{
    static final String PINNED = "adapter: cilium\n";
    static final String CILIUM_BACKUP = """
            {"cniVersion":"0.3.1","name":"cilium","plugins":[{"type":"cilium-cni","enable-debug":true}]}""";

    TestNode node;

    @BeforeEach
    void setUp(TestNode node)
    {
        this.node = node.binaries("cilium-cni", "loopback");
    }

    @Test
    void ciliumConflist()
    {
        node.write("05-cilium.conflist", TestNode.CILIUM);
        roundTrip(NodeGolden.start(node, PINNED, "golden", "cilium", "conflist"), "05-cilium.conflist");
    }

    @Test
    void conflistCurrentNamedInConfFileWithALinkToIt()
            throws Exception
    {
        node.write("05-cilium.conflist-current", TestNode.CILIUM);
        node.link("05-cilium.conflist", "05-cilium.conflist-current");
        NodeGolden golden = NodeGolden.start(node, PINNED + "adapters:\n  cilium: { confFile: 05-cilium.conflist-current }\n",
                "golden", "cilium", "conflist-current-in-conf-file-with-link");
        roundTrip(golden, "05-cilium.conflist-current");
        assertThat(Files.readSymbolicLink(node.conf("05-cilium.conflist"))).hasToString("05-cilium.conflist-current");
    }

    @Test
    void onlyAConflistCurrentBesideABackupAndNoLink()
    {
        // The node where the old installer found nothing: no .conf/.conflist at all, Cilium's file under another
        // extension, its previous file renamed aside.
        node.write("05-cilium.conflist-current", TestNode.CILIUM);
        node.write("05-cilium.conflist.cilium_bak", CILIUM_BACKUP);
        roundTrip(NodeGolden.start(node, PINNED, "golden", "cilium", "conflist-current-only-with-backup"), "05-cilium.conflist-current");
        assertThat(node.read("05-cilium.conflist.cilium_bak")).doesNotContain("linkerd-cni");
    }

    @Test
    void hiddenTempFilesArePresent()
    {
        node.write("05-cilium.conflist", TestNode.CILIUM);
        // renameio's temp files: one Cilium is still writing, one complete but not yet renamed.
        node.write(".05-cilium.conflist734271", "{\"cniVersion\":\"0.3.1\",\"name\":\"cil");
        node.write(".05-cilium.conflist118", TestNode.CILIUM);
        String half = node.read(".05-cilium.conflist734271");
        String whole = node.read(".05-cilium.conflist118");
        roundTrip(NodeGolden.start(node, PINNED, "golden", "cilium", "hidden-temp-files"), "05-cilium.conflist");
        assertThat(node.read(".05-cilium.conflist734271")).isEqualTo(half);
        assertThat(node.read(".05-cilium.conflist118")).isEqualTo(whole);
    }

    @Test
    void legacySingleConfIsConvertedAndRestored()
    {
        node.write("05-cilium.conf", TestNode.CILIUM_CONF);
        NodeGolden golden = NodeGolden.start(node, PINNED, "golden", "cilium", "legacy-conf");
        String before = golden.layout();
        golden.detect("before");
        assertThat(golden.install("install").outcomes()).extracting(FileOutcome::result).containsExactly(FileOutcome.Result.CONVERTED);
        assertThat(node.listing()).contains("05-cilium.conflist").doesNotContain("05-cilium.conf");
        golden.uninstall("uninstall");
        assertThat(golden.layout()).isEqualTo(before);
    }

    @Test
    void exclusiveModeBackupsAreLeftAloneAndWarnedAbout()
    {
        node.write("05-cilium.conflist", TestNode.CILIUM);
        node.write("10-calico.conflist.cilium_bak", TestNode.CALICO);
        NodeGolden golden = NodeGolden.start(node, PINNED, "golden", "cilium", "exclusive-mode-backups");
        assertThat(golden.detect("before").problems()).anySatisfy(problem -> assertThat(problem)
                .contains("exclusive mode looks active", "10-calico.conflist.cilium_bak", "cni.exclusive=false"));
        golden.install("install");
        golden.uninstall("uninstall");
        assertThat(node.read("10-calico.conflist.cilium_bak")).doesNotContain("linkerd-cni");
    }

    /**
     * Cilium chained to another network builds its own file from that network's file, which exclusive mode has renamed
     * to a backup (cilium daemon/cmd/cni/config.go reads {@code *.cilium_bak} back): an entry the file got before the
     * rename comes back with Cilium's next build, after uninstall, naming a binary uninstall removed. Uninstall takes it
     * out of the backup too, first.
     */
    @Test
    void aChainingBackupThatHoldsOurEntryIsCleanedByUninstall()
            throws Exception
    {
        node.write("10-aws.conflist", "{\"cniVersion\":\"0.4.0\",\"name\":\"aws-cni\",\"plugins\":[{\"type\":\"aws-cni\"},{\"type\":\"egress-cni\"}]}");
        NodeGolden golden = NodeGolden.start(node, PINNED, "golden", "cilium", "conflist");
        assertThat(golden.engine().install().succeeded()).isTrue();
        // What Cilium then does: its file from the network's, with cilium-cni last, and the network's file renamed aside.
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        com.fasterxml.jackson.databind.node.ObjectNode merged = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(node.read("10-aws.conflist"));
        merged.withArray("plugins").addObject().put("type", "cilium-cni").put("chaining-mode", "aws-cni");
        node.write("05-cilium.conflist", json.writeValueAsString(merged));
        Files.move(node.conf("10-aws.conflist"), node.conf("10-aws.conflist.cilium_bak"));
        assertThat(node.read("10-aws.conflist.cilium_bak")).contains("linkerd-cni");

        assertThat(golden.engine().uninstall().succeeded()).isTrue();
        assertThat(node.read("10-aws.conflist.cilium_bak")).doesNotContain("linkerd-cni").contains("egress-cni");
        assertThat(node.read("05-cilium.conflist")).doesNotContain("linkerd-cni").contains("cilium-cni");
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
    }

    /** before, install, a second install that changes nothing, uninstall back to the layout before. */
    private void roundTrip(NodeGolden golden, String patched)
    {
        String before = golden.layout();
        golden.detect("before");
        assertThat(golden.install("install").outcomes()).singleElement().satisfies(o -> {
            assertThat(o.result()).isEqualTo(FileOutcome.Result.PATCHED);
            assertThat(o.written()).extracting(w -> w.hostPath().getFileName().toString()).containsExactly(patched);
        });
        assertThat(golden.engine().install().outcomes()).extracting(FileOutcome::result).containsExactly(FileOutcome.Result.UNCHANGED);
        assertThat(golden.uninstall("uninstall").succeeded()).isTrue();
        assertThat(golden.layout()).as("uninstall leaves the node as it was").isEqualTo(before);
    }
}
