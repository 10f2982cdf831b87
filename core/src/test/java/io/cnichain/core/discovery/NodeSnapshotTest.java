package io.cnichain.core.discovery;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ParseResult;
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

/** Effective-config discovery as containerd and CRI-O do it, on real files. */
@ExtendWith(TempNodeExtension.class)
class NodeSnapshotTest
{
    TestNode node;

    @BeforeEach
    void setUp(TestNode node)
    {
        this.node = node;
    }

    @Test
    void effectiveConfigIsTheFirstValidRuntimeNameInByteOrder()
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        node.write("05-cilium.conflist", TestNode.CILIUM);
        node.write("99-loopback.conf", "{\"cniVersion\":\"0.3.1\",\"name\":\"lo\",\"type\":\"loopback\"}");
        NodeSnapshot snapshot = node.snapshot();
        assertThat(snapshot.entries()).extracting(ConfigEntry::name)
                .containsExactly("05-cilium.conflist", "10-calico.conflist", "99-loopback.conf");
        assertThat(snapshot.effectiveConfig()).map(ConfigEntry::name).contains("05-cilium.conflist");
    }

    @Test
    void byteOrderNotLocaleOrder()
    {
        // 'Z' (0x5a) sorts before 'a' (0x61); upper case first, as Go sorts.
        node.write("a.conflist", TestNode.CALICO);
        node.write("Z.conflist", TestNode.CILIUM);
        node.write("10-b.conflist", TestNode.OCI);
        assertThat(node.snapshot().entries()).extracting(ConfigEntry::name).containsExactly("10-b.conflist", "Z.conflist", "a.conflist");
    }

    @Test
    void invalidFilesAreSkippedButABrokenFileSortingFirstIsReported()
    {
        node.write("05-broken.conflist", "{\"name\":\"x\",\"plugins\":[");
        node.write("10-calico.conflist", TestNode.CALICO);
        node.write("20-later-broken.conflist", "nope");
        NodeSnapshot snapshot = node.snapshot();
        assertThat(snapshot.effectiveConfig()).map(ConfigEntry::name).contains("10-calico.conflist");
        assertThat(snapshot.brokenBeforeEffective()).singleElement().asString()
                .startsWith("/etc/cni/net.d/05-broken.conflist sorts before the effective configuration and cannot be loaded (")
                .endsWith("containerd fails on it, CRI-O skips it");
    }

    @Test
    void namesThatAreNeverConfigurations()
            throws IOException
    {
        node.write(".05-cilium.conflist123", TestNode.CILIUM);
        node.write("05-cilium.conflist.cilium_bak", TestNode.CILIUM);
        node.write("10-calico.conflist.tmp", TestNode.CALICO);
        node.write("calico-kubeconfig", "apiVersion: v1");
        node.write("ZZZ-linkerd-cni-kubeconfig", "apiVersion: v1");
        node.write("10-oci.conflist-current", TestNode.OCI);
        node.write("10-x.CONFLIST", TestNode.OCI);
        Files.createDirectories(node.conf("calico-tls"));
        NodeSnapshot snapshot = node.snapshot();
        assertThat(snapshot.entries()).noneMatch(ConfigEntry::runtimeLoadable);
        assertThat(snapshot.effectiveConfig()).isEmpty();
        assertThat(snapshot.entry("calico-tls")).map(ConfigEntry::kind).contains(ConfigEntry.EntryKind.DIRECTORY);
    }

    @Test
    void linksAreFollowedAndTheFormatComesFromTheLinksName()
    {
        node.write("10-oci.conflist-current", TestNode.OCI);
        node.link("10-oci.conflist", "10-oci.conflist-current");
        NodeSnapshot snapshot = node.snapshot();
        ConfigEntry link = snapshot.entry("10-oci.conflist").orElseThrow();
        assertThat(link.isSymlink()).isTrue();
        assertThat(link.resolvedFile()).contains(Path.of("/etc/cni/net.d/10-oci.conflist-current"));
        assertThat(snapshot.effectiveConfig()).contains(link);
        assertThat(snapshot.parse(link).config().orElseThrow().pluginTypes()).containsExactly("oci-ipvlan", "oci-ptp");
    }

    @Test
    void aLinkOutsideTheAllowedRootsIsReadForTheDecisionButNotWritable()
    {
        node.writeAt(node.host("/srv/cni/00-x.conflist"), TestNode.CILIUM);
        node.link("00-x.conflist", "/srv/cni/00-x.conflist");
        node.write("10-calico.conflist", TestNode.CALICO);
        NodeSnapshot snapshot = node.snapshot();
        ConfigEntry effective = snapshot.effectiveConfig().orElseThrow();
        assertThat(effective.name()).isEqualTo("00-x.conflist");
        assertThat(effective.resolves()).isFalse();
        assertThat(effective.problem()).hasValueSatisfying(p -> assertThat(p).contains("outside the allowed roots"));
    }

    @Test
    void oversizedFileIsRefusedWithoutReadingItWhole()
            throws IOException
    {
        // A sparse 8 GiB file: reading it whole would take minutes and exhaust the heap.
        try (RandomAccessFile file = new RandomAccessFile(node.conf("00-huge.conflist").toFile(), "rw")) {
            file.setLength(8L * 1024 * 1024 * 1024);
        }
        node.write("10-calico.conflist", TestNode.CALICO);
        NodeSnapshot snapshot = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> node.snapshot());
        ParseResult result = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> snapshot.parse(snapshot.entry("00-huge.conflist").orElseThrow()));
        assertThat(result).isInstanceOfSatisfying(ParseResult.Failed.class, f -> assertThat(f.reason()).isEqualTo(ParseResult.Reason.TOO_LARGE));
        assertThat(result.error()).hasValueSatisfying(e -> assertThat(e).contains("larger than the 1048576-byte limit"));
        assertThat(snapshot.effectiveConfig()).map(ConfigEntry::name).contains("10-calico.conflist");
    }

    @Test
    void fifoNeverBlocks()
    {
        node.fifo(node.conf("00-pipe.conflist"));
        node.fifo(node.conf("01-pipe.conflist-current"));
        node.link("01-pipe.conflist", "01-pipe.conflist-current");
        node.write("10-calico.conflist", TestNode.CALICO);
        NodeSnapshot snapshot = node.snapshot();
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            assertThat(snapshot.effectiveConfig()).map(ConfigEntry::name).contains("10-calico.conflist");
            assertThat(snapshot.parse(snapshot.entry("00-pipe.conflist").orElseThrow())).isInstanceOfSatisfying(ParseResult.Failed.class,
                    f -> assertThat(f.reason()).isEqualTo(ParseResult.Reason.UNREADABLE));
        });
    }

    @Test
    void missingConfDirIsReportedNotThrown()
            throws IOException
    {
        Files.delete(node.confDir());
        NodeSnapshot snapshot = node.snapshot();
        assertThat(snapshot.entries()).isEmpty();
        assertThat(snapshot.listingProblem()).contains("/etc/cni/net.d: does not exist");
    }

    @Test
    void confDirThatIsAFileIsReported()
            throws IOException
    {
        Files.delete(node.confDir());
        Files.writeString(node.confDir(), "not a directory");
        NodeSnapshot snapshot = node.snapshot();
        assertThat(snapshot.entries()).isEmpty();
        assertThat(snapshot.listingProblem()).contains("/etc/cni/net.d: is not a directory");
    }
}
