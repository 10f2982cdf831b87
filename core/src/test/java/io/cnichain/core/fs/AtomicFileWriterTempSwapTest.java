package io.cnichain.core.fs;

import io.cnichain.core.CniChainException;
import io.cnichain.core.fs.FileMode;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
^ * {@link KeptAttributes#carryOver} sets the set-id/sticky bits of the replaced file on the temp file
 * BY PATH ({@code Files.setAttribute(temp, "unix:mode", ...)}), which follows a link. The temp file lives in the conf
 * dir, which the primary can write: a primary that renames a symlink over our temp file (it sees the name by inotify)
 * between its creation and that call makes the agent chmod whatever the link names, to a mode the primary chose
 * (its own conf file's mode). Here: a host binary in /opt/cni/bin becomes set-uid and writable by anyone.
 */
@ExtendWith(TempNodeExtension.class)
class AtomicFileWriterTempSwapTest
{
    static final FileMode KEEP = FileMode.keepExistingOr(PosixFilePermissions.fromString("rw-r--r--"));

    @Test
    void aTempFileSwappedForALinkNeverLetsTheKeptModeLandOnAnotherFile(TestNode node)
            throws Exception
    {
        Path confDir = node.confDir();
        Path conf = node.write("10-calico.conflist", TestNode.CALICO);
        Path victim = Files.writeString(node.binDir().resolve("bridge"), "#!/bin/sh\n# the host's own binary\n");
        Files.setAttribute(victim, "unix:mode", 0755);
        AtomicBoolean stop = new AtomicBoolean();
        Thread primary = new Thread(() -> {
            long n = 0;
            while (!stop.get()) {
                try (DirectoryStream<Path> temps = Files.newDirectoryStream(confDir, ".cni-chain-*.tmp")) {
                    for (Path temp : temps) {
                        Path link = confDir.resolve(".evil-" + n++);
                        Files.createSymbolicLink(link, Path.of("../../../opt/cni/bin/bridge"));
                        try {
                            Files.move(link, temp, StandardCopyOption.ATOMIC_MOVE);
                        }
                        catch (IOException e) {
                            Files.deleteIfExists(link);
                        }
                    }
                }
                catch (IOException ignored) {
                    // the temp file went meanwhile: look again
                }
            }
        }, "compromised-primary");
        primary.setDaemon(true);
        primary.start();
        int attempts = 0;
        try {
            while (attempts < 5000 && mode(victim) == 0755) {
                attempts++;
                // The primary's own file, set-uid/set-gid and 0777: its mode is what carryOver copies.
                if (Files.isSymbolicLink(conf) || !Files.exists(conf, LinkOption.NOFOLLOW_LINKS)) {
                    Files.deleteIfExists(conf);
                    node.write("10-calico.conflist", TestNode.CALICO);
                }
                Files.setAttribute(conf, "unix:mode", 06777);
                try {
                    new AtomicFileWriter().write(conf, Path.of("/etc/cni/net.d/10-calico.conflist"),
                            ("{\"n\":" + attempts + "}").getBytes(StandardCharsets.UTF_8), KEEP, Optional.empty());
                }
                catch (CniChainException e) {
                    // the swap made this write fail: what matters is what it did before failing
                }
            }
        }
        finally {
            stop.set(true);
            primary.join(5000);
        }
        assertThat(Integer.toOctalString(mode(victim)))
                .as("after %d writes, the mode of /opt/cni/bin/bridge (never a file the agent writes)", attempts)
                .isEqualTo("755");
    }

    private static int mode(Path file)
            throws IOException
    {
        return (Integer) Files.getAttribute(file, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    }
}
