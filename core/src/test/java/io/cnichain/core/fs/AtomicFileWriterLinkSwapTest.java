package io.cnichain.core.fs;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.fs.FileMode;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A configuration's path is resolved link-free from the host root; a directory on it swapped for a link out of the
 * allowed roots afterwards must not take the write there (the reliability suite found it did, racing a real agent).
 */
@Tag("reliability")
@Tag("reliability")
@ExtendWith(TempNodeExtension.class)
class AtomicFileWriterLinkSwapTest
{
    static final FileMode KEEP = FileMode.keepExistingOr(PosixFilePermissions.fromString("rw-r--r--"));

    @Test
    void aDirectorySwappedForALinkAfterTheTempFileIsMadeDoesNotTakeTheRenameThere(TestNode node)
            throws IOException
    {
        Path target = node.writeAt(node.host("/etc/cni/oci/10-oci.conflist-current"), TestNode.OCI);
        Path outside = node.writeAt(node.host("/etc/outside/10-oci.conflist-current"), "outside");
        Path directory = target.getParent();
        Path away = directory.resolveSibling("oci.away");
        AtomicFileWriter swapping = new AtomicFileWriter((temp, renamed) -> {
            Files.move(directory, away);
            Files.createSymbolicLink(directory, Path.of("../outside"));
        });
        swapping.writeBelow(node.hostRoot(), target, Path.of("/etc/cni/oci/10-oci.conflist-current"), bytes("patched"), KEEP, Optional.of(bytes(
                node.readAt(target))));
        assertThat(outside).hasContent("outside");
        assertThat(away.resolve("10-oci.conflist-current")).as("written where the path led when it was resolved").hasContent("patched");
        try (var files = Files.list(outside.getParent())) {
            assertThat(files).containsExactly(outside);
        }
    }

    @Test
    void aDirectoryThatIsALinkWhenTheWriteStartsIsRefusedNotFollowed(TestNode node)
            throws IOException
    {
        Path outside = node.writeAt(node.host("/etc/outside/10-oci.conflist-current"), "outside");
        node.linkAt(node.host("/etc/cni/oci"), "../outside");
        Path target = node.host("/etc/cni/oci/10-oci.conflist-current");
        assertThatThrownBy(() -> new AtomicFileWriter().writeBelow(node.hostRoot(), target, Path.of("/etc/cni/oci/10-oci.conflist-current"),
                bytes("patched"), KEEP, Optional.of(bytes("outside"))))
                .isInstanceOfSatisfying(CniChainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.IO))
                .hasMessage("/etc/cni/oci/10-oci.conflist-current: not written: " + node.host("/etc/cni/oci")
                        + " became a link (or is no longer a directory) since the path was resolved");
        assertThatThrownBy(() -> new AtomicFileWriter().deleteBelow(node.hostRoot(), target, Path.of("/etc/cni/oci/10-oci.conflist-current")))
                .hasMessageContaining("not deleted: ");
        assertThat(outside).hasContent("outside");
        try (var files = Files.list(outside.getParent())) {
            assertThat(files).containsExactly(outside);
        }
    }

    @Test
    void aLinkAboveTheBaseIsFollowedAsBefore(TestNode node)
            throws IOException
    {
        // The host root itself (or a configured directory) may be reached through a link: only below it is none allowed.
        Path real = node.writeAt(node.root().resolve("real-host/etc/cni/net.d/10-calico.conflist"), TestNode.CALICO);
        Path linkedRoot = Files.createSymbolicLink(node.root().resolve("linked-host"), Path.of("real-host"));
        new AtomicFileWriter().writeBelow(linkedRoot, linkedRoot.resolve("etc/cni/net.d/10-calico.conflist"), Path.of("/etc/cni/net.d/10-calico.conflist"),
                bytes("patched"), KEEP, Optional.empty());
        assertThat(real).hasContent("patched");
    }

    private static byte[] bytes(String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
