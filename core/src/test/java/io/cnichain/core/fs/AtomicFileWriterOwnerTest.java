package io.cnichain.core.fs;

import io.cnichain.core.fs.FileMode;
import io.cnichain.testkit.NeedsRoot;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The owner and group of a file we replace are kept, unless the file is wholly ours: only root can give a file to
 * someone else, so this runs as root (in CI it must), on a file that belongs to nobody:nogroup, never to the user
 * running the test.
 */
@NeedsRoot
@ExtendWith(TempNodeExtension.class)
class AtomicFileWriterOwnerTest
{
    static final FileMode KEEP = FileMode.keepExistingOr(PosixFilePermissions.fromString("rw-r--r--"));

    @Test
    void aRewriteKeepsOwnerGroupAndModeOfAFileThatIsNotOurs(TestNode node)
            throws IOException
    {
        Path file = giveAway(node.write("10-calico.conflist", TestNode.CALICO), "rw-r-----");
        new AtomicFileWriter().write(file, file, "new".getBytes(StandardCharsets.UTF_8), KEEP, Optional.empty());
        assertThat(file).hasContent("new");
        assertOwnedByNobody(file, "rw-r-----");
    }

    @Test
    void aFileWrittenInPlaceOfAnotherTakesItsOwnerGroupAndMode(TestNode node)
            throws IOException
    {
        // A .conf converted to a .conflist: the new name gets everything of the old one, as uninstall does the other way.
        Path conf = giveAway(node.write("10-bridge.conf", "{}"), "rw-------");
        PosixFileAttributes original = Files.readAttributes(conf, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        Path conflist = node.conf("10-bridge.conflist");
        new AtomicFileWriter().write(conflist, conflist, "{}".getBytes(StandardCharsets.UTF_8), FileMode.sameAs(original), Optional.empty());
        assertOwnedByNobody(conflist, "rw-------");
    }

    /**
     * A file wholly ours (a kubeconfig with the plugin's token, a binary root runs) is the agent's whoever owned the one
     * it replaces: that owner could otherwise read the token, or write what root runs.
     */
    @Test
    void aFileWhollyOursTakesTheAgentsOwnerNotTheReplacedOnes(TestNode node)
            throws IOException
    {
        Path file = giveAway(node.write("ZZZ-linkerd-cni-kubeconfig", "old"), "rw-------");
        new AtomicFileWriter().write(file, file, "token".getBytes(StandardCharsets.UTF_8), FileMode.exactly(PosixFilePermissions.fromString("rw-------")),
                Optional.empty());
        assertThat(Files.getAttribute(file, "unix:uid")).isEqualTo(0);
        assertThat(Files.getAttribute(file, "unix:gid")).isEqualTo(0);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }

    private static Path giveAway(Path file, String mode)
            throws IOException
    {
        UserPrincipalLookupService users = file.getFileSystem().getUserPrincipalLookupService();
        PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
        view.setOwner(users.lookupPrincipalByName("nobody"));
        view.setGroup(users.lookupPrincipalByGroupName("nogroup"));
        view.setPermissions(PosixFilePermissions.fromString(mode));
        assertThat(Files.getAttribute(file, "unix:uid")).as("the file must not be ours for the test to mean anything").isNotEqualTo(0);
        return file;
    }

    private static void assertOwnedByNobody(Path file, String mode)
            throws IOException
    {
        PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        assertThat(attributes.owner().getName()).isEqualTo("nobody");
        assertThat(attributes.group().getName()).isEqualTo("nogroup");
        assertThat(Files.getAttribute(file, "unix:uid")).isNotEqualTo(0);
        assertThat(PosixFilePermissions.toString(attributes.permissions())).isEqualTo(mode);
    }
}
