package io.cnichain.core.fs;

import io.cnichain.core.host.HostPaths;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import io.cnichain.spi.ConfigEntry.EntryKind;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Real symlinks in a temp host root; absolute targets are host paths and must land under the host root. */
@ExtendWith(TempNodeExtension.class)
class SymlinkResolverTest
{
    TestNode node;
    SymlinkResolver resolver;

    @BeforeEach
    void setUp(TestNode node)
    {
        this.node = node;
        resolver = new SymlinkResolver(new HostPaths(node.hostRoot()), List.of(Path.of("/etc/cni")));
    }

    @Test
    void regularFileResolvesToItself()
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Resolution resolution = resolver.resolve(Path.of("/etc/cni/net.d/10-calico.conflist"));
        assertThat(resolution.kind()).contains(EntryKind.FILE);
        assertThat(resolution.chain()).isEmpty();
        assertThat(resolution.target()).contains(Path.of("/etc/cni/net.d/10-calico.conflist"));
    }

    @Test
    void relativeLinkResolvesAgainstTheLinksDirectory()
    {
        node.write("10-oci.conflist-current", TestNode.OCI);
        node.link("10-oci.conflist", "10-oci.conflist-current");
        Resolution resolution = resolver.resolve(Path.of("/etc/cni/net.d/10-oci.conflist"));
        assertThat(resolution.kind()).contains(EntryKind.SYMLINK);
        assertThat(resolution.chain()).containsExactly(Path.of("/etc/cni/net.d/10-oci.conflist"));
        assertThat(resolution.target()).contains(Path.of("/etc/cni/net.d/10-oci.conflist-current"));
    }

    @Test
    void absoluteLinkIsAHostPathAndLandsUnderTheHostRoot()
    {
        node.write("10-oci.conflist-current", TestNode.OCI);
        node.link("10-oci.conflist", "/etc/cni/net.d/10-oci.conflist-current");
        // The same absolute path exists nowhere on this machine outside the host root: resolution must not
        // look at the machine's own /etc.
        assertThat(Path.of("/etc/cni/net.d/10-oci.conflist-current")).doesNotExist();
        Resolution resolution = resolver.resolve(Path.of("/etc/cni/net.d/10-oci.conflist"));
        assertThat(resolution.target()).contains(Path.of("/etc/cni/net.d/10-oci.conflist-current"));
    }

    @Test
    void chainOfThreeLinksIsFollowedToTheEnd()
    {
        node.writeAt(node.host("/etc/cni/real/oci.json"), TestNode.OCI);
        node.link("10-oci.conflist", "hop1");
        node.link("hop1", "/etc/cni/net.d/hop2");
        node.link("hop2", "../real/oci.json");
        Resolution resolution = resolver.resolve(Path.of("/etc/cni/net.d/10-oci.conflist"));
        assertThat(resolution.chain()).containsExactly(
                Path.of("/etc/cni/net.d/10-oci.conflist"), Path.of("/etc/cni/net.d/hop1"), Path.of("/etc/cni/net.d/hop2"));
        assertThat(resolution.target()).contains(Path.of("/etc/cni/real/oci.json"));
    }

    @Test
    void loopIsRefusedWithTheChain()
    {
        node.link("a.conflist", "b.conflist");
        node.link("b.conflist", "a.conflist");
        Resolution resolution = resolver.resolve(Path.of("/etc/cni/net.d/a.conflist"));
        assertThat(resolution.target()).isEmpty();
        assertThat(resolution.problem()).hasValueSatisfying(p -> assertThat(p)
                .startsWith("/etc/cni/net.d/a.conflist: symlink loop: ")
                .contains("/etc/cni/net.d/a.conflist -> /etc/cni/net.d/b.conflist -> /etc/cni/net.d/a.conflist"));
    }

    @Test
    void selfLoopIsRefused()
    {
        node.link("self.conflist", "self.conflist");
        assertThat(resolver.resolve(Path.of("/etc/cni/net.d/self.conflist")).problem()).hasValueSatisfying(p -> assertThat(p).contains("symlink loop"));
    }

    @Test
    void danglingLinkIsReported()
    {
        node.link("10-gone.conflist", "10-gone.conflist-current");
        Resolution resolution = resolver.resolve(Path.of("/etc/cni/net.d/10-gone.conflist"));
        assertThat(resolution.exists()).isTrue();
        assertThat(resolution.problem()).contains(
                "/etc/cni/net.d/10-gone.conflist: dangling link: /etc/cni/net.d/10-gone.conflist -> /etc/cni/net.d/10-gone.conflist-current, which does not exist");
    }

    @Test
    void targetOutsideTheAllowedRootsIsRefusedButStaysReadable()
    {
        node.writeAt(node.host("/var/lib/elsewhere/10-x.conflist"), TestNode.CALICO);
        node.link("10-x.conflist", "/var/lib/elsewhere/10-x.conflist");
        Resolution resolution = resolver.resolve(Path.of("/etc/cni/net.d/10-x.conflist"));
        assertThat(resolution.target()).isEmpty();
        assertThat(resolution.readable()).contains(Path.of("/var/lib/elsewhere/10-x.conflist"));
        assertThat(resolution.problem()).contains("/etc/cni/net.d/10-x.conflist: resolves to /var/lib/elsewhere/10-x.conflist, "
                + "outside the allowed roots [/etc/cni]; add its directory to allowedRoots to patch it");
    }

    @Test
    void dotDotCannotEscapeTheHostRoot()
            throws IOException
    {
        // ../../../../.. from the conf dir stops at the host's /, exactly as on the node.
        Files.writeString(node.root().resolve("outside.conflist"), "{}");
        node.link("10-up.conflist", "../../../../../../outside.conflist");
        Resolution resolution = resolver.resolve(Path.of("/etc/cni/net.d/10-up.conflist"));
        assertThat(resolution.target()).isEmpty();
        assertThat(resolution.problem()).hasValueSatisfying(p -> assertThat(p).contains("/outside.conflist, which does not exist"));
    }

    @Test
    void fifoIsRefused()
    {
        node.fifo(node.conf("10-pipe.conflist-current"));
        node.link("10-pipe.conflist", "10-pipe.conflist-current");
        Resolution resolution = resolver.resolve(Path.of("/etc/cni/net.d/10-pipe.conflist"));
        assertThat(resolution.problem()).contains("/etc/cni/net.d/10-pipe.conflist: resolves to /etc/cni/net.d/10-pipe.conflist-current, a FIFO, not a regular file");
        assertThat(resolver.resolve(Path.of("/etc/cni/net.d/10-pipe.conflist-current")).problem())
                .contains("/etc/cni/net.d/10-pipe.conflist-current: is a FIFO, not a regular file");
    }

    @Test
    void directoryIsRefused()
            throws IOException
    {
        Files.createDirectories(node.conf("calico-tls"));
        node.link("10-dir.conflist", "calico-tls");
        assertThat(resolver.resolve(Path.of("/etc/cni/net.d/10-dir.conflist")).problem())
                .contains("/etc/cni/net.d/10-dir.conflist: resolves to /etc/cni/net.d/calico-tls, a directory, not a regular file");
        assertThat(resolver.resolve(Path.of("/etc/cni/net.d/calico-tls")).kind()).contains(EntryKind.DIRECTORY);
    }

    @Test
    void linkToAnotherDirectoryWithAnotherExtension()
    {
        node.writeAt(node.host("/etc/cni/oci/10-oci.conflist-current"), TestNode.OCI);
        node.link("10-oci.conflist", "../oci/10-oci.conflist-current");
        Resolution resolution = resolver.resolve(Path.of("/etc/cni/net.d/10-oci.conflist"));
        assertThat(resolution.target()).contains(Path.of("/etc/cni/oci/10-oci.conflist-current"));
    }

    @Test
    void linkedDirectoryInTheMiddleOfThePathIsFollowed()
    {
        node.writeAt(node.host("/etc/cni/versions/v2/10-oci.conflist-current"), TestNode.OCI);
        node.linkAt(node.host("/etc/cni/current"), "versions/v2");
        node.link("10-oci.conflist", "/etc/cni/current/10-oci.conflist-current");
        Resolution resolution = resolver.resolve(Path.of("/etc/cni/net.d/10-oci.conflist"));
        assertThat(resolution.chain()).containsExactly(Path.of("/etc/cni/net.d/10-oci.conflist"), Path.of("/etc/cni/current"));
        assertThat(resolution.target()).contains(Path.of("/etc/cni/versions/v2/10-oci.conflist-current"));
    }

    @Test
    void missingPathIsReportedAsMissing()
    {
        Resolution resolution = resolver.resolve(Path.of("/etc/cni/net.d/nothing.conflist"));
        assertThat(resolution.exists()).isFalse();
        assertThat(resolution.problem()).contains("/etc/cni/net.d/nothing.conflist: does not exist");
    }
}
