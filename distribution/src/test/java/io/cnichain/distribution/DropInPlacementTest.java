package io.cnichain.distribution;

import io.cnichain.agent.shutdown.StandInCluster;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * {@code placement}, through the command line with the built-in adapters: {@code drop-in} writes
 * {@code <conf dir>/<network>/linkerd-cni.conf} and leaves the primary's bytes alone; uninstall removes it and the
 * directory it made; switching either way leaves one form; where libcni appends no drop-in, {@code drop-in} fails
 * naming why and {@code auto} patches. {@code auto} reads the Node from a stand-in API server (none can run here): the
 * Node object as a kubelet reports it, {@code status.nodeInfo.containerRuntimeVersion}.
 */
@ExtendWith(TempNodeExtension.class)
class DropInPlacementTest
{
    static final Path DROP_IN = TestNode.CONF_DIR.resolve("k8s-pod-network/linkerd-cni.conf");

    TestNode node;

    @BeforeEach
    void setUp(TestNode node)
    {
        this.node = node;
    }

    @Test
    void aDropInLeavesThePrimarysBytesAndUninstallTakesItAway()
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        String before = node.read("10-calico.conflist");

        Cli.Result install = Cli.run(node, "install", "--placement", "drop-in");

        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(install.err()).contains("Placing the entry by drop-in: placement: drop-in")
                .contains("Created CNI drop-in " + DROP_IN + " for network 'k8s-pod-network' of /etc/cni/net.d/10-calico.conflist");
        assertThat(node.read("10-calico.conflist")).as("byte for byte").isEqualTo(before);
        assertThat(node.readAt(node.host(DROP_IN))).contains("\"type\": \"linkerd-cni\"").contains("/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig");
        assertThat(node.host(DROP_IN).resolveSibling(".cni-chain-created")).isRegularFile();
        assertThat(node.listing()).as("nothing else in the conf dir: the runtime's reload event left no file")
                .noneMatch(name -> name.startsWith(".cni-chain-reload"));

        Cli.Result detect = Cli.run(node, "detect", "--placement", "drop-in");
        assertThat(detect.out()).contains("Placement\n  drop-in (placement: drop-in)")
                .contains("    plugins calico, portmap, linkerd-cni\n    drop-in " + DROP_IN)
                .contains("ours    yes")
                .contains("plan    nothing: the drop-in " + DROP_IN + " is in place; /etc/cni/net.d/10-calico.conflist stays as it is");

        Cli.Result again = Cli.run(node, "install", "--placement", "drop-in");
        assertThat(again.code()).isZero();
        assertThat(again.err()).doesNotContain("Created CNI drop-in");

        Cli.Result uninstall = Cli.run(node, "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(uninstall.err()).contains("Removing linkerd-cni drop-in " + DROP_IN);
        assertThat(node.host(DROP_IN).getParent()).as("the directory we made, with it").doesNotExist();
        assertThat(node.read("10-calico.conflist")).isEqualTo(before);
        assertThat(node.binDir().resolve("linkerd-cni")).as("nothing names the binary any more").doesNotExist();
    }

    @Test
    void uninstallKeepsAPluginDirectoryItDidNotMake()
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        node.write("k8s-pod-network/05-bandwidth.conf", "{\"type\":\"bandwidth\"}");

        assertThat(Cli.run(node, "install", "--placement", "drop-in").code()).isZero();
        assertThat(Cli.run(node, "detect", "--placement", "drop-in").out()).contains("plugins calico, portmap, bandwidth, linkerd-cni");
        assertThat(Cli.run(node, "uninstall").code()).isZero();

        assertThat(node.host(DROP_IN)).doesNotExist();
        assertThat(node.conf("k8s-pod-network/05-bandwidth.conf")).isRegularFile();
        assertThat(node.conf("k8s-pod-network/.cni-chain-created")).doesNotExist();
    }

    @Test
    void aFileOfSomeoneElsesNamedLikeTheReloadNoticeIsLeftAlone()
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Files.writeString(node.conf(".cni-chain-reload"), "someone's notes");

        assertThat(Cli.run(node, "install", "--placement", "drop-in").code()).isZero();
        assertThat(Cli.run(node, "uninstall").code()).isZero();

        assertThat(node.conf(".cni-chain-reload")).hasContent("someone's notes");
        assertThat(node.listing()).as("the notices the runtime was sent, gone").containsExactly(".cni-chain-reload", "10-calico.conflist");
    }

    @Test
    void aMarkerRecordedForAnotherDirectoryDoesNotMakeADirectoryOurs()
            throws IOException
    {
        // Someone's plugin directory holding a marker that was not made for it (copied from elsewhere, or forged).
        node.write("10-calico.conflist", TestNode.CALICO);
        Files.createDirectories(node.conf("k8s-pod-network"));
        Files.writeString(node.conf("k8s-pod-network/.cni-chain-created"), "made by cni-chain for its linkerd-cni drop-in; removed with it\n"
                + "directory inode " + Files.getAttribute(node.confDir(), "unix:ino") + "\n");

        assertThat(Cli.run(node, "install", "--placement", "drop-in").code()).isZero();
        Cli.Result uninstall = Cli.run(node, "uninstall");

        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(node.host(DROP_IN)).doesNotExist();
        assertThat(node.conf("k8s-pod-network/.cni-chain-created")).as("not ours: neither it nor its directory removed").isRegularFile();
    }

    @Test
    void aDirectoryWeMadeThatSomeoneElseUsesNowKeepsTheirFilesAndLosesOurMarker()
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(Cli.run(node, "install", "--placement", "drop-in").code()).isZero();
        assertThat(node.conf("k8s-pod-network/.cni-chain-created")).isRegularFile();
        Files.writeString(node.conf("k8s-pod-network/05-bandwidth.conf"), "{\"type\":\"bandwidth\"}");

        assertThat(Cli.run(node, "uninstall").code()).isZero();

        assertThat(node.conf("k8s-pod-network")).isDirectory();
        try (var names = Files.list(node.conf("k8s-pod-network"))) {
            assertThat(names.map(name -> name.getFileName().toString())).as("theirs, and nothing of ours").containsExactly("05-bandwidth.conf");
        }
    }

    @Test
    void switchingPlacementLeavesOneFormEitherWay()
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        String before = node.read("10-calico.conflist");
        assertThat(Cli.run(node, "install").code()).isZero();
        String patched = node.read("10-calico.conflist");
        assertThat(patched).contains("linkerd-cni");

        Cli.Result toDropIn = Cli.run(node, "install", "--placement", "drop-in");
        assertThat(toDropIn.code()).as(toDropIn.toString()).isZero();
        assertThat(node.read("10-calico.conflist")).as("our entry out of the list, the primary's bytes as they were").isEqualTo(before);
        assertThat(node.host(DROP_IN)).isRegularFile();

        Cli.Result toPatch = Cli.run(node, "install", "--placement", "patch");
        assertThat(toPatch.code()).as(toPatch.toString()).isZero();
        assertThat(toPatch.err()).contains("Removed CNI drop-in " + DROP_IN + ": placement is placement: patch");
        assertThat(node.host(DROP_IN).getParent()).doesNotExist();
        assertThat(node.read("10-calico.conflist")).isEqualTo(patched);
    }

    @Test
    void whereLibcniAppendsNoDropInDropInFailsAndSaysWhy()
    {
        node.write("05-cilium.conf", TestNode.CILIUM_CONF);
        String single = node.read("05-cilium.conf");

        Cli.Result install = Cli.run(node, "install", "--placement", "drop-in");

        assertThat(install.code()).isEqualTo(1);
        assertThat(install.err()).contains("error: placement drop-in: 05-cilium.conf is a single-plugin configuration, which libcni loads without "
                + "drop-ins; a drop-in would never run, so none is written and the list is left as it is (set placement: patch or auto to patch it)");
        assertThat(node.read("05-cilium.conf")).isEqualTo(single);
        assertThat(node.conf("cilium")).as("no plugin directory").doesNotExist();
        assertThat(Cli.run(node, "detect", "--placement", "drop-in").out())
                .contains("plan    refuse: placement drop-in, but 05-cilium.conf is a single-plugin configuration");
    }

    @Test
    void aNetworkNameThatIsNotOneDirectoryNameGetsNoDropInAndEveryLineStaysOneLine()
    {
        // libcni would read (and the agent would write) /run/x: outside the allowed roots. The newline in the name would
        // start a line of its own in the error and in detect's output.
        node.write("10-calico.conflist", TestNode.CALICO.replace("\"k8s-pod-network\"", "\"../../../run/x\\nINFO  forged\""));
        String before = node.read("10-calico.conflist");

        Cli.Result install = Cli.run(node, "install", "--placement", "drop-in");
        Cli.Result detect = Cli.run(node, "detect", "--placement", "drop-in");

        assertThat(install.code()).as(install.toString()).isEqualTo(1);
        assertThat(install.err()).contains("error: placement drop-in: the network name '../../../run/x\\nINFO  forged' is not one directory name: "
                + "libcni reads its drop-ins from /run/x\\nINFO  forged, so the network has no plugin directory of its own; a drop-in would never "
                + "run, so none is written and the list is left as it is (set placement: patch or auto to patch it)");
        assertThat(node.read("10-calico.conflist")).isEqualTo(before);
        assertThat(node.host("/run")).as("nothing written outside the allowed roots").doesNotExist();
        assertThat(detect.out()).contains("    network ../../../run/x\\nINFO  forged\n");
        assertThat((install.out() + install.err() + detect.out() + detect.err()).lines()).as("no line of the name's own")
                .noneMatch(line -> line.startsWith("INFO  forged"));
    }

    @Test
    void aFifoWhereAPluginDirectoryWouldBeHoldsNothingUp()
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        node.write("20-cilium.conflist", TestNode.CILIUM);
        Path fifo = node.fifo(node.conf("k8s-pod-network"));
        try {
            // Listing the FIFO as a directory would open it, and the open would wait for a writer forever.
            Cli.Result detect = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Cli.run(node, "detect"));
            Cli.Result install = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Cli.run(node, "install"));

            assertThat(detect.out()).contains("/etc/cni/net.d/k8s-pod-network is a FIFO, not a directory, so libcni cannot read the drop-ins of "
                    + "network 'k8s-pod-network' and does not load 10-calico.conflist");
            assertThat(install.code()).as(install.toString()).isZero();
            assertThat(node.read("20-cilium.conflist")).as("the list the runtime loads").contains("linkerd-cni");
        }
        finally {
            new RandomAccessFile(fifo.toFile(), "rw").close();
        }
    }

    @Test
    void loadOnlyInlinedPluginsFailsDropIn()
    {
        node.write("10-calico.conflist", TestNode.CALICO.replace("{\"name\"", "{\"loadOnlyInlinedPlugins\":true,\"name\""));
        String before = node.read("10-calico.conflist");

        Cli.Result install = Cli.run(node, "install", "--placement", "drop-in");

        assertThat(install.code()).isEqualTo(1);
        assertThat(install.err()).contains("placement drop-in: 10-calico.conflist sets loadOnlyInlinedPlugins: true, so libcni loads its own plugins only");
        assertThat(node.read("10-calico.conflist")).isEqualTo(before);
        assertThat(node.conf("k8s-pod-network")).doesNotExist();
    }

    @Test
    void autoFollowsTheRuntimeTheNodeReports()
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        String before = node.read("10-calico.conflist");
        try (StandInCluster cluster = StandInCluster.start(node.serviceAccountDir())) {
            node.env().putAll(cluster.environment());

            cluster.reportRuntime("containerd://1.6.20");
            Cli.Result old = Cli.run(node, "detect", "--placement", "auto");
            assertThat(old.out()).contains("Placement\n  patch (auto: the Node reports containerRuntimeVersion containerd://1.6.20, which ignores drop-ins "
                    + "(containerd applies them from 2.1.0); patching)");

            cluster.reportRuntime("containerd://2.1.0");
            Cli.Result install = Cli.run(node, "install", "--placement", "auto");
            assertThat(install.code()).as(install.toString()).isZero();
            assertThat(install.err()).contains("Placing the entry by drop-in: auto: the Node reports containerRuntimeVersion containerd://2.1.0, which "
                    + "applies drop-ins (libcni 1.3, from containerd 2.1.0)");
            assertThat(node.read("10-calico.conflist")).isEqualTo(before);
            assertThat(node.host(DROP_IN)).isRegularFile();

            // A single-plugin network on the same runtime: auto patches it, and says why.
            node.write("05-cilium.conf", TestNode.CILIUM_CONF);
            Cli.Result single = Cli.run(node, "install", "--placement", "auto");
            assertThat(single.code()).as(single.toString()).isZero();
            assertThat(single.err()).contains("Patching /etc/cni/net.d/05-cilium.conf in place of a drop-in: 05-cilium.conf is a single-plugin "
                    + "configuration, which libcni loads without drop-ins (placement auto)");
            assertThat(node.read("05-cilium.conflist")).contains("linkerd-cni");
        }
    }

    @Test
    void dropInOnARuntimeTheNodeSaysIgnoresItPlacesNothingAndSaysSo()
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        String before = node.read("10-calico.conflist");
        try (StandInCluster cluster = StandInCluster.start(node.serviceAccountDir())) {
            node.env().putAll(cluster.environment());
            cluster.reportRuntime("containerd://1.7.27");

            Cli.Result install = Cli.run(node, "install", "--placement", "drop-in");

            assertThat(install.code()).as(install.toString()).isEqualTo(1);
            assertThat(install.err()).contains("Placing the entry by drop-in: placement: drop-in, but the Node reports containerRuntimeVersion "
                    + "containerd://1.7.27, which ignores drop-ins")
                    .contains("error: placement drop-in: the Node reports containerRuntimeVersion containerd://1.7.27, which ignores drop-ins, so a "
                            + "drop-in would never run; nothing is placed (set placement: patch or auto)");
            assertThat(node.read("10-calico.conflist")).isEqualTo(before);
            assertThat(node.conf("k8s-pod-network")).doesNotExist();
        }
    }

    @Test
    void autoWithoutTheApiPatches()
    {
        node.write("10-calico.conflist", TestNode.CALICO);

        Cli.Result install = Cli.run(node, "install", "--placement", "auto");

        assertThat(install.code()).isZero();
        assertThat(install.err()).contains("Placing the entry by patch: auto: the node's runtime is unknown (NODE_NAME is not set); patching");
        assertThat(node.read("10-calico.conflist")).contains("linkerd-cni");
        assertThat(node.conf("k8s-pod-network")).doesNotExist();
    }

    @Test
    void theDropInFollowsTheNetworkWhenThePrimaryRenamesIt()
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(Cli.run(node, "install", "--placement", "drop-in").code()).isZero();

        node.write("10-calico.conflist", TestNode.CALICO.replace("k8s-pod-network", "calico-net"));
        Cli.Result install = Cli.run(node, "install", "--placement", "drop-in");

        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(node.conf("calico-net/linkerd-cni.conf")).isRegularFile();
        assertThat(node.host(DROP_IN).getParent()).as("the old network's directory, ours, is gone").doesNotExist();
        assertThat(install.err()).contains("Removed CNI drop-in " + DROP_IN + ": no list of network 'k8s-pod-network' is loaded any more");
        assertThat(Files.exists(node.conf("calico-net/.cni-chain-created"))).isTrue();
    }
}
