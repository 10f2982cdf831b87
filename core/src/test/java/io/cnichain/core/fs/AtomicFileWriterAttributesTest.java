package io.cnichain.core.fs;

import io.cnichain.core.fs.FileMode;
import io.cnichain.core.fs.linux.FileSystemCalls;
import io.cnichain.core.logcapture.CapturedLog;
import io.cnichain.testkit.NeedsRoot;
import io.cnichain.testkit.NeedsRootExtension;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A file we replace keeps what its owner put on it beyond the bytes and the mode: its POSIX ACL, and its
 * {@code security.*}, {@code trusted.*} and {@code user.*} extended attributes. The attributes are set and read with
 * the attr and acl packages' own tools, not with our calls. Root, because only root may set {@code trusted.*} and
 * {@code security.*} attributes (in CI it runs as root).
 */
@NeedsRoot
@ExtendWith(TempNodeExtension.class)
class AtomicFileWriterAttributesTest
{
    static final FileMode KEEP = FileMode.keepExistingOr(PosixFilePermissions.fromString("rw-r--r--"));

    @BeforeEach
    void kernelCalls()
    {
        // The fallback can see only user.* attributes; this is the agent's own path, the kernel's calls.
        assertThat(FileSystemCalls.get().isNative()).as(FileSystemCalls.get().describe()).isTrue();
        CapturedLog.clear();
    }

    @Test
    void aRewriteKeepsTheAclAndEveryExtendedAttribute(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        NeedsRootExtension.run("setfacl", "-m", "u:nobody:r--", file.toString());
        NeedsRootExtension.run("setfattr", "-n", "trusted.cnichain-test", "-v", "trusted-value", file.toString());
        NeedsRootExtension.run("setfattr", "-n", "security.cnichain-test", "-v", "security-value", file.toString());
        NeedsRootExtension.run("setfattr", "-n", "user.owner-note", "-v", "user-value", file.toString());
        String before = attributes(file);
        assertThat(before).contains("system.posix_acl_access", "trusted.cnichain-test=\"trusted-value\"",
                "security.cnichain-test=\"security-value\"", "user.owner-note=\"user-value\"");

        new AtomicFileWriter().write(file, file, "new".getBytes(StandardCharsets.UTF_8), KEEP, Optional.empty());

        assertThat(file).hasContent("new");
        assertThat(attributes(file)).isEqualTo(before);
        assertThat(NeedsRootExtension.run("getfacl", "-c", "-p", file.toString())).contains("user:nobody:r--");
        assertThat(CapturedLog.lines()).noneMatch(line -> line.startsWith("WARN"));
    }

    @Test
    void aHardLinkThatARenameCannotKeepIsSaid(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        Path other = Files.createLink(node.root().resolve("calico-copy.conflist"), file);
        String old = Files.readString(file);

        new AtomicFileWriter().write(file, file, "new".getBytes(StandardCharsets.UTF_8), KEEP, Optional.empty());

        assertThat(file).hasContent("new");
        assertThat(other).as("the other name keeps the old bytes").hasContent(old);
        assertThat(Files.getAttribute(file, "unix:nlink", LinkOption.NOFOLLOW_LINKS)).isEqualTo(1);
        assertThat(CapturedLog.lines()).containsExactly("WARN " + file + ": has 2 hard links; the new version replaces this name only,"
                + " the other 1 still hold the old bytes (a write a reader can never see half of is a rename, and a rename makes a new file)");
    }

    @Test
    void aModeTheDirectorysDefaultAclNarrowedAtCreationIsSetExactly(TestNode node)
            throws Exception
    {
        // A default ACL, not the umask, decides a new file's mode in such a directory: here owner only, where a
        // kubeconfig-like file asks for rw-r--r--. The write must not take the created mode for the one asked.
        NeedsRootExtension.run("setfacl", "-d", "-m", "u::rw-,g::---,o::---", node.confDir().toString());
        Path file = node.conf("new.conflist");

        new AtomicFileWriter().write(file, file, "{}".getBytes(StandardCharsets.UTF_8), FileMode.exactly(PosixFilePermissions.fromString("rw-r--r--")),
                Optional.empty());
        new AtomicFileWriter().write(file, file, "{ }".getBytes(StandardCharsets.UTF_8), KEEP, Optional.empty());

        assertThat(file).hasContent("{ }");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS))).isEqualTo("rw-r--r--");
    }

    /** Every extended attribute, as getfattr dumps them (the ACL's in hex), in name order. */
    private static String attributes(Path file)
            throws Exception
    {
        return NeedsRootExtension.run("getfattr", "--absolute-names", "-d", "-m", "-", "-e", "text", file.toString()).lines()
                .filter(line -> !line.startsWith("#")).sorted().reduce("", (a, b) -> a + b + "\n");
    }
}
