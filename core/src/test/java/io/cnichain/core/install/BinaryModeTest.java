package io.cnichain.core.install;

import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.core.host.HostPaths;
import io.cnichain.core.logcapture.CapturedLog;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every runtime on the node runs the plugin binary as root for every pod: it is installed with its source's mode,
 * except that it is never writable by others.
 */
@Tag("reliability")
@Tag("reliability")
@ExtendWith(TempNodeExtension.class)
class BinaryModeTest
{
    @Test
    void aWorldWritableSourceIsInstalledWithoutWriteForOthersAndSaidSoOnce(TestNode node)
            throws IOException
    {
        Path source = node.imageBinDir().resolve("linkerd-cni");
        Files.setPosixFilePermissions(source, PosixFilePermissions.fromString("rwxrwxrwx"));
        BinaryInstaller installer = new BinaryInstaller(new HostPaths(node.hostRoot()), node.imageBinDir(), TestNode.BIN_DIR, new AtomicFileWriter());
        CapturedLog.clear();

        assertThat(installer.install("linkerd")).containsExactly(Path.of("/opt/cni/bin/linkerd-cni"));
        Path binary = node.binDir().resolve("linkerd-cni");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(binary))).isEqualTo("rwxrwxr-x");
        assertThat(binary).hasSameBinaryContentAs(source);
        assertThat(CapturedLog.lines()).contains("WARN " + source + " is writable by anyone; installing it without that permission");

        // In place with the mode it should have: not written again on the next pass.
        Object inode = Files.getAttribute(binary, "unix:ino");
        assertThat(installer.install("linkerd")).isEmpty();
        assertThat(Files.getAttribute(binary, "unix:ino")).isEqualTo(inode);
    }

    @Test
    void aNarrowSourceModeIsKeptExactlyAlsoOverAWiderInstalledOne(TestNode node)
            throws IOException
    {
        Path source = node.imageBinDir().resolve("linkerd-cni");
        Files.setPosixFilePermissions(source, PosixFilePermissions.fromString("rwxr-x---"));
        Path binary = node.binDir().resolve("linkerd-cni");
        Files.writeString(binary, "an older version");
        Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("rwxrwxrwx"));
        new BinaryInstaller(new HostPaths(node.hostRoot()), node.imageBinDir(), TestNode.BIN_DIR, new AtomicFileWriter()).install("linkerd");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(binary))).isEqualTo("rwxr-x---");
    }
}
