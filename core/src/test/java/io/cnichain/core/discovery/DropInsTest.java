package io.cnichain.core.discovery;

import io.cnichain.spi.ConfigEntry;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The effective configuration with libcni 1.3's drop-ins, over the facts read from its {@code libcni/conf.go}
 * ({@code NetworkConfFromFile}, {@code NetworkPluginConfsFromFiles}, {@code NetworkPluginConfFromBytes}, {@code ConfFiles}):
 * only {@code *.conf} of {@code <dir of the list>/<its name>}, in name order, after the list's plugins; subdirectories
 * skipped; a missing directory adds nothing; {@code loadOnlyInlinedPlugins: true} and single-plugin files get none; a
 * drop-in that does not decode, or has no type, fails the whole list. libcni 1.1 ignores all of it.
 */
class DropInsTest
{
    static final String DROP_IN = "{\"type\":\"linkerd-cni\",\"log_level\":\"info\"}";

    @TempDir
    Path temp;

    TestNode node;

    @BeforeEach
    void setUp()
    {
        node = TestNode.create(temp);
    }

    @Test
    void theDropInsOfAListRunAfterItsPluginsInNameOrder()
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        node.write("k8s-pod-network/linkerd-cni.conf", DROP_IN);
        node.write("k8s-pod-network/05-bandwidth.conf", "{\"type\":\"bandwidth\"}");
        node.write("k8s-pod-network/notes.json", "{\"type\":\"ignored\"}");
        node.write("k8s-pod-network/x.conflist", "{\"type\":\"ignored-too\"}");
        Files.createDirectories(node.conf("k8s-pod-network/sub.conf"));

        NodeSnapshot snapshot = node.snapshot();
        ConfigEntry effective = snapshot.effectiveConfig().orElseThrow();

        assertThat(effective.name()).isEqualTo("10-calico.conflist");
        assertThat(snapshot.runtimePluginTypes(effective)).containsExactly("calico", "portmap", "bandwidth", "linkerd-cni");
        assertThat(snapshot.dropIns(effective).directory()).contains(TestNode.CONF_DIR.resolve("k8s-pod-network"));
    }

    @Test
    void theNetworkNameIsJoinedToTheConfDirAsGoJoinsIt()
    {
        // Go's filepath.Join("/etc/cni/net.d", name): leading slashes do not make the name absolute, and it is cleaned.
        Path confDir = Path.of("/etc/cni/net.d");
        assertThat(DropIns.joined(confDir, "k8s-pod-network")).contains(Path.of("/etc/cni/net.d/k8s-pod-network"));
        assertThat(DropIns.joined(confDir, "///k8s/./net")).contains(Path.of("/etc/cni/net.d/k8s/net"));
        assertThat(DropIns.joined(confDir, "/")).contains(confDir);
        assertThat(DropIns.joined(confDir, "")).contains(confDir);
        assertThat(DropIns.joined(confDir, "/../up")).contains(Path.of("/etc/cni/up"));
        assertThat(DropIns.joined(confDir, "a\0b")).isEmpty();
    }

    @Test
    void noDirectoryAddsNothing()
    {
        node.write("10-calico.conflist", TestNode.CALICO);

        NodeSnapshot snapshot = node.snapshot();

        assertThat(snapshot.runtimePluginTypes(snapshot.effectiveConfig().orElseThrow())).containsExactly("calico", "portmap");
    }

    @Test
    void loadOnlyInlinedPluginsTurnsThemOff()
    {
        node.write("10-calico.conflist", TestNode.CALICO.replace("{\"name\"", "{\"loadOnlyInlinedPlugins\":\"TRUE\",\"name\""));
        node.write("k8s-pod-network/linkerd-cni.conf", DROP_IN);

        NodeSnapshot snapshot = node.snapshot();
        ConfigEntry effective = snapshot.effectiveConfig().orElseThrow();

        assertThat(snapshot.runtimePluginTypes(effective)).containsExactly("calico", "portmap");
        assertThat(DropIns.whyNone("10-calico.conflist", snapshot.load(effective).config().orElseThrow()))
                .contains("10-calico.conflist sets loadOnlyInlinedPlugins: true, so libcni loads its own plugins only");
    }

    @Test
    void aSinglePluginFileGetsNone()
    {
        node.write("05-cilium.conf", TestNode.CILIUM_CONF);
        node.write("cilium/linkerd-cni.conf", DROP_IN);

        NodeSnapshot snapshot = node.snapshot();

        assertThat(snapshot.effectiveConfig().orElseThrow().name()).isEqualTo("05-cilium.conf");
        assertThat(snapshot.runtimePluginTypes(snapshot.effectiveConfig().orElseThrow())).containsExactly("cilium-cni");
    }

    @Test
    void aBrokenDropInFailsItsListAndTheNextFileIsTheRuntimes()
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        node.write("20-cilium.conflist", TestNode.CILIUM);
        node.write("k8s-pod-network/linkerd-cni.conf", "{\"log_level\":\"info\"}");

        NodeSnapshot snapshot = node.snapshot();

        assertThat(snapshot.effectiveConfig().orElseThrow().name()).isEqualTo("20-cilium.conflist");
        assertThat(snapshot.brokenBeforeEffective()).singleElement().asString()
                .isEqualTo("/etc/cni/net.d/10-calico.conflist sorts before the effective configuration and cannot be loaded by libcni 1.3: "
                        + "/etc/cni/net.d/k8s-pod-network/linkerd-cni.conf: plugin has no 'type'; libcni fails to load 10-calico.conflist, whose "
                        + "drop-in it is");
        assertThat(snapshot.effectiveConfig(LibcniGeneration.V1_1).orElseThrow().name()).as("libcni 1.1 knows no drop-ins").isEqualTo("10-calico.conflist");
    }

    @Test
    void aDropInIsDecodedAsWrittenNotReencoded()
    {
        // NetworkPluginConfFromBytes decodes the bytes straight into the struct: the last of two keys matching "type" wins.
        node.write("10-calico.conflist", TestNode.CALICO);
        node.write("k8s-pod-network/linkerd-cni.conf", "{\"type\":\"linkerd-cni\",\"Type\":\"bandwidth\"}");

        NodeSnapshot snapshot = node.snapshot();

        assertThat(snapshot.runtimePluginTypes(snapshot.effectiveConfig().orElseThrow())).containsExactly("calico", "portmap", "bandwidth");
    }

    @Test
    void aFileWhereThePluginDirectoryShouldBeFailsTheList()
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        node.write("20-cilium.conflist", TestNode.CILIUM);
        node.write("k8s-pod-network", "not a directory");

        NodeSnapshot snapshot = node.snapshot();

        assertThat(snapshot.effectiveConfig().orElseThrow().name()).isEqualTo("20-cilium.conflist");
    }

    @Test
    void aFifoWhereThePluginDirectoryShouldBeFailsTheListWithoutBeingOpened()
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        node.write("20-cilium.conflist", TestNode.CILIUM);
        Path fifo = node.fifo(node.conf("k8s-pod-network"));

        try {
            // Were the FIFO opened to be listed, the reading would wait for a writer forever (and so would detect and run).
            NodeSnapshot snapshot = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                NodeSnapshot read = node.snapshot();
                read.effectiveConfig();
                return read;
            });

            assertThat(snapshot.effectiveConfig().orElseThrow().name()).isEqualTo("20-cilium.conflist");
            assertThat(snapshot.brokenBeforeEffective()).singleElement().asString()
                    .isEqualTo("/etc/cni/net.d/10-calico.conflist sorts before the effective configuration and cannot be loaded by libcni 1.3: "
                            + "/etc/cni/net.d/k8s-pod-network is a FIFO, not a directory, so libcni cannot read the drop-ins of network "
                            + "'k8s-pod-network' and does not load 10-calico.conflist");
        }
        finally {
            // A reader the open blocked goes on; without one, this opens and closes the FIFO and nothing else.
            new RandomAccessFile(fifo.toFile(), "rw").close();
        }
    }

    @Test
    void aNetworkNameThatLeadsOutOfTheConfDirIsNeverJoinedToAPath()
    {
        // libcni reads filepath.Join("/etc/cni/net.d", "../../../run/x"), that is /run/x: outside the allowed roots,
        // where the agent reads nothing. The list stays what it is; what libcni appends to it is unknown, and why is said.
        node.write("10-calico.conflist", TestNode.CALICO.replace("\"k8s-pod-network\"", "\"../../../run/x\""));
        node.write("20-cilium.conflist", TestNode.CILIUM);
        node.writeAt(node.host("/run/x/05-bandwidth.conf"), "{\"type\":\"bandwidth\"}");
        node.writeAt(node.host("/run/x/linkerd-cni.conf"), "{\"log_level\":\"info\"}");

        NodeSnapshot snapshot = node.snapshot();
        ConfigEntry effective = snapshot.effectiveConfig().orElseThrow();
        DropIns.Reading reading = snapshot.dropIns(effective);

        assertThat(effective.name()).as("a broken file out there was never read").isEqualTo("10-calico.conflist");
        assertThat(snapshot.runtimePluginTypes(effective)).containsExactly("calico", "portmap");
        assertThat(reading.directory()).isEmpty();
        assertThat(reading.unknown()).contains("the network name '../../../run/x' is not one directory name: libcni reads its drop-ins from /run/x, "
                + "which the agent does not read");
        assertThat(DropIns.writableDirectory(TestNode.CONF_DIR, "../../../run/x")).isEmpty();
    }

    @Test
    void aNetworkNameIsQuotedWithItsControlCharactersEscaped()
    {
        node.write("10-calico.conflist", TestNode.CALICO.replace("\"k8s-pod-network\"", "\"a/b\\nINFO  forged 'line'\""));

        NodeSnapshot snapshot = node.snapshot();
        String unknown = snapshot.dropIns(snapshot.effectiveConfig().orElseThrow()).unknown().orElseThrow();

        assertThat(unknown).doesNotContain("\n").startsWith("the network name 'a/b\\nINFO  forged \\'line\\'' is not one directory name: libcni "
                + "reads its drop-ins from /etc/cni/net.d/a/b\\nINFO  forged 'line'");
    }

    @Test
    void anEmptyNetworkNameMakesTheConfDirItselfThePluginDirectory()
    {
        // filepath.Join(dir, "") is dir: every *.conf of the conf dir is appended, and none is ours to write there.
        node.write("10-empty.conflist", TestNode.CALICO.replace("\"k8s-pod-network\"", "\"\""));
        node.write("99-bandwidth.conf", "{\"cniVersion\":\"1.0.0\",\"name\":\"bw\",\"type\":\"bandwidth\"}");

        NodeSnapshot snapshot = node.snapshot();
        ConfigEntry effective = snapshot.effectiveConfig().orElseThrow();

        assertThat(snapshot.runtimePluginTypes(effective)).containsExactly("calico", "portmap", "bandwidth");
        assertThat(DropIns.writableDirectory(TestNode.CONF_DIR, "")).isEmpty();
        assertThat(DropIns.writableDirectory(TestNode.CONF_DIR, "../x")).isEmpty();
        assertThat(DropIns.writableDirectory(TestNode.CONF_DIR, "k8s-pod-network")).contains(TestNode.CONF_DIR.resolve("k8s-pod-network"));
    }

    @Test
    void aLinkedPluginDirectoryIsNotFollowedAndSaidUnknown()
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        node.write("elsewhere/linkerd-cni.conf", DROP_IN);
        Files.createSymbolicLink(node.conf("k8s-pod-network"), Path.of("elsewhere"));

        NodeSnapshot snapshot = node.snapshot();
        DropIns.Reading reading = snapshot.dropIns(snapshot.effectiveConfig().orElseThrow());

        assertThat(reading.unknown()).contains("/etc/cni/net.d/k8s-pod-network is a link, which the agent does not follow");
        assertThat(reading.plugins()).isEmpty();
    }
}
