package io.cnichain.core.install;

import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.core.host.HostPaths;
import io.cnichain.core.logcapture.CapturedLog;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(TempNodeExtension.class)
class BinaryInstallerTest
{
    TestNode node;
    BinaryInstaller installer;

    @BeforeEach
    void setUp(TestNode node)
    {
        this.node = node;
        installer = new BinaryInstaller(new HostPaths(node.hostRoot()), node.imageBinDir(), TestNode.BIN_DIR, new AtomicFileWriter());
    }

    @Test
    void copiesEveryRegularFileWithItsModeAndSkipsIdenticalOnes()
            throws IOException
    {
        Files.writeString(node.imageBinDir().resolve("helper"), "data");
        Files.setPosixFilePermissions(node.imageBinDir().resolve("helper"), PosixFilePermissions.fromString("rw-r-----"));
        Files.createDirectories(node.imageBinDir().resolve("subdir"));

        assertThat(install(installer)).containsExactly(Path.of("/opt/cni/bin/helper"), Path.of("/opt/cni/bin/linkerd-cni"));
        Path binary = node.binDir().resolve("linkerd-cni");
        assertThat(binary).hasSameBinaryContentAs(node.imageBinDir().resolve("linkerd-cni"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(binary))).isEqualTo("rwxr-xr-x");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(node.binDir().resolve("helper")))).isEqualTo("rw-r-----");
        assertThat(node.binDir().resolve("subdir")).doesNotExist();

        Object inode = Files.getAttribute(binary, "unix:ino");
        assertThat(install(installer)).isEmpty();
        assertThat(Files.getAttribute(binary, "unix:ino")).isEqualTo(inode);
    }

    @Test
    void aSourceThatIsALinkIsCopiedRecordedAndRemovedAsTheFileItLeadsTo()
            throws IOException
    {
        // As in an image whose binary is a link to a versioned file.
        Path real = node.imageBinDir().resolveSibling("linkerd-cni-v1.6.2");
        Files.move(node.imageBinDir().resolve("linkerd-cni"), real);
        Files.createSymbolicLink(node.imageBinDir().resolve("linkerd-cni"), real);

        assertThat(install(installer)).containsExactly(Path.of("/opt/cni/bin/linkerd-cni"));
        Path binary = node.binDir().resolve("linkerd-cni");
        assertThat(Files.isSymbolicLink(binary)).isFalse();
        assertThat(binary).hasSameBinaryContentAs(real);
        assertThat(node.binDir().resolve(BinaryInstaller.RECORD)).content().contains("  linkerd-cni");
        assertThat(install(installer)).isEmpty();

        assertThat(installer.uninstall()).containsExactly(Path.of("/opt/cni/bin/linkerd-cni"));
        assertThat(binary).doesNotExist();
    }

    /** The record waits for the files that name the plugin: {@code Installer} writes it after the patch. */
    @Test
    void theRecordIsWrittenWhenAskedAfterTheCopy()
            throws IOException
    {
        Path record = node.binDir().resolve(BinaryInstaller.RECORD);
        assertThat(installer.install("linkerd")).containsExactly(Path.of("/opt/cni/bin/linkerd-cni"));
        assertThat(record).doesNotExist();

        installer.recordCopies();
        assertThat(Files.readString(record)).endsWith(sha256(node.imageBinDir().resolve("linkerd-cni")) + "  linkerd-cni\n");
        Object inode = Files.getAttribute(record, "unix:ino");
        installer.recordCopies();
        assertThat(install(installer)).isEmpty();
        assertThat(Files.getAttribute(record, "unix:ino")).as("unchanged, not written again").isEqualTo(inode);
    }

    /** A source's digest is kept while its file stays the same; one rewritten in place, at the same size, is digested again. */
    @Test
    void aSourceRewrittenInPlaceIsRecordedWithItsNewDigest()
            throws IOException
    {
        Path source = node.imageBinDir().resolve("linkerd-cni");
        install(installer);
        String before = sha256(source);
        byte[] bytes = Files.readAllBytes(source);
        bytes[bytes.length - 1] ^= 1;
        Files.write(source, bytes);
        Files.setLastModifiedTime(source, java.nio.file.attribute.FileTime.fromMillis(Files.getLastModifiedTime(source).toMillis() + 1000));
        assertThat(sha256(source)).isNotEqualTo(before);

        assertThat(install(installer)).containsExactly(Path.of("/opt/cni/bin/linkerd-cni"));
        assertThat(node.binDir().resolve(BinaryInstaller.RECORD)).content().endsWith(sha256(source) + "  linkerd-cni\n");
    }

    /** A pass may end before its record (a step that threw, a record that could not be written): what it copied is ours still. */
    @Test
    void aBinaryCopiedByAnInstallNotYetRecordedIsStillOurs()
            throws IOException
    {
        Files.writeString(node.imageBinDir().resolve("helper"), "data");
        assertThat(installer.install("linkerd")).containsExactly(Path.of("/opt/cni/bin/helper"), Path.of("/opt/cni/bin/linkerd-cni"));
        CapturedLog.clear();

        Files.writeString(node.imageBinDir().resolve("helper"), "data, newer");
        assertThat(install(installer)).containsExactly(Path.of("/opt/cni/bin/helper"));
        assertThat(CapturedLog.lines()).noneMatch(line -> line.contains("is the host's"));
        assertThat(node.binDir().resolve(BinaryInstaller.RECORD)).content().contains("  helper\n").contains("  linkerd-cni\n");
        assertThat(installer.uninstall()).containsExactly(Path.of("/opt/cni/bin/helper"), Path.of("/opt/cni/bin/linkerd-cni"));
    }

    /** A source emptied (a mount gone, a wrong CONTAINER_CNI_BIN_DIR) copies nothing, and keeps the record of what is ours. */
    @Test
    void anEmptySourceLeavesTheRecordAsItIs()
            throws IOException
    {
        install(installer);
        Path record = node.binDir().resolve(BinaryInstaller.RECORD);
        String before = Files.readString(record);
        Files.delete(node.imageBinDir().resolve("linkerd-cni"));

        assertThat(install(installer)).isEmpty();
        assertThat(record).hasContent(before);
        assertThat(installer.uninstall()).as("removed by the record").containsExactly(Path.of("/opt/cni/bin/linkerd-cni"));
    }

    @Test
    void replacesADifferingBinaryAtomically()
            throws IOException
    {
        Path binary = node.binDir().resolve("linkerd-cni");
        Files.writeString(binary, "old version");
        Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("rw-------"));
        install(installer);
        assertThat(binary).hasSameBinaryContentAs(node.imageBinDir().resolve("linkerd-cni"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(binary))).isEqualTo("rwxr-xr-x");
    }

    @Test
    void uninstallRemovesOnlyWhatIsStillOurs()
            throws IOException
    {
        Files.writeString(node.imageBinDir().resolve("helper"), "data");
        install(installer);
        Files.writeString(node.binDir().resolve("helper"), "someone else's now");
        node.binaries("bridge");
        assertThat(installer.uninstall()).containsExactly(Path.of("/opt/cni/bin/linkerd-cni"));
        assertThat(node.binDir().resolve("helper")).hasContent("someone else's now");
        assertThat(node.binDir().resolve("bridge")).exists();
    }

    @Test
    void aHostBinaryOfTheSameNameIsNeitherReplacedNorRemoved()
            throws IOException
    {
        // The image carries a bridge too; the host's stays the host's: install must not replace it, nor uninstall delete it.
        Files.writeString(node.imageBinDir().resolve("bridge"), "the image's bridge");
        Path hosts = node.binDir().resolve("bridge");
        Files.writeString(hosts, "the host's bridge");
        CapturedLog.clear();

        assertThat(install(installer)).containsExactly(Path.of("/opt/cni/bin/linkerd-cni"));
        assertThat(hosts).hasContent("the host's bridge");
        assertThat(node.binDir().resolve(BinaryInstaller.RECORD)).content().doesNotContain("bridge").contains("linkerd-cni");
        assertThat(CapturedLog.lines()).anyMatch(line -> line.contains("/opt/cni/bin/bridge is the host's, not installed by cni-chain: left as it is"));

        // Even with the same bytes as the image's, it is not ours to remove.
        Files.writeString(hosts, "the image's bridge");
        assertThat(installer.uninstall()).containsExactly(Path.of("/opt/cni/bin/linkerd-cni"));
        assertThat(hosts).hasContent("the image's bridge");
    }

    /** On a host the image's directory is gone: the record install kept tells uninstall which binaries are ours. */
    @Test
    void withoutItsSourceUninstallRemovesWhatTheRecordNames()
            throws IOException
    {
        install(installer);
        node.binaries("bridge");
        Path record = node.binDir().resolve(BinaryInstaller.RECORD);
        assertThat(Files.readString(record)).startsWith("# written by cni-chain install").containsPattern("\n[0-9a-f]{64}  linkerd-cni\n");
        assertThat(Files.getPosixFilePermissions(record)).isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        Files.delete(node.imageBinDir().resolve("linkerd-cni"));
        assertThat(installer.uninstall()).containsExactly(Path.of("/opt/cni/bin/linkerd-cni"));
        assertThat(installer.leftForWantOfSource("linkerd-cni")).isEmpty();
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
        assertThat(record).doesNotExist();
        assertThat(node.binDir().resolve("bridge")).as("not install's").exists();
    }

    @Test
    void aRecordedBinaryWhoseBytesChangedIsLeftAndSaid()
            throws IOException
    {
        install(installer);
        Files.writeString(node.binDir().resolve("linkerd-cni"), "#!/bin/sh\n# someone else's\n");
        Files.delete(node.imageBinDir().resolve("linkerd-cni"));
        assertThat(installer.uninstall()).isEmpty();
        assertThat(installer.leftForWantOfSource("linkerd-cni")).hasValueSatisfying(why -> assertThat(why)
                .isEqualTo("/opt/cni/bin/linkerd-cni: left in place: its bytes changed since install copied it (/opt/cni/bin/" + BinaryInstaller.RECORD
                        + " has its SHA-256), so it is someone else's now"));
        assertThat(node.binDir().resolve("linkerd-cni")).exists();
    }

    /** Without its source and without a record, uninstall cannot tell the plugin's binary is ours: it stays, said. */
    @Test
    void withoutItsSourceOrARecordThePluginsBinaryIsLeftAndUninstallSaysWhy()
            throws IOException
    {
        install(installer);
        node.binaries("bridge");
        Files.delete(node.binDir().resolve(BinaryInstaller.RECORD));
        Files.delete(node.imageBinDir().resolve("linkerd-cni"));
        assertThat(installer.uninstall()).isEmpty();
        assertThat(installer.leftForWantOfSource("linkerd-cni")).hasValueSatisfying(why -> assertThat(why)
                .startsWith("/opt/cni/bin/linkerd-cni: left in place: uninstall removes a binary only when it has the bytes of the one install copied from "
                        + node.imageBinDir() + " (CONTAINER_CNI_BIN_DIR), which is empty")
                .endsWith("or remove the file by hand if install put it there"));
        Files.delete(node.imageBinDir());
        assertThat(installer.leftForWantOfSource("linkerd-cni")).hasValueSatisfying(why -> assertThat(why).contains("which does not exist"));
        assertThat(node.binDir().resolve("linkerd-cni")).exists();
        assertThat(installer.leftForWantOfSource("bridge-less")).isEmpty();

        // With its source there, nothing is left for that reason.
        Files.createDirectories(node.imageBinDir());
        Files.copy(node.binDir().resolve("linkerd-cni"), node.imageBinDir().resolve("linkerd-cni"));
        assertThat(installer.uninstall()).containsExactly(Path.of("/opt/cni/bin/linkerd-cni"));
        assertThat(installer.leftForWantOfSource("linkerd-cni")).isEmpty();
    }

    @Test
    void sourceThatIsTheBinDirItselfIsNeitherCopiedNorRemovedWithoutARecord()
    {
        node.binaries("bridge", "linkerd-cni");
        BinaryInstaller same = new BinaryInstaller(new HostPaths(node.hostRoot()), node.binDir(), TestNode.BIN_DIR, new AtomicFileWriter());
        assertThat(install(same)).isEmpty();
        assertThat(same.namesUninstallMayRemove()).as("the host's binaries are not the image's").containsExactly("linkerd-cni");
        assertThat(same.uninstall()).isEmpty();
        assertThat(same.leftForWantOfSource("linkerd-cni")).hasValue("/opt/cni/bin/linkerd-cni: left in place: the binary source " + node.binDir()
                + " (CONTAINER_CNI_BIN_DIR) is the CNI bin dir itself, so no install copied it from there, and no record of an install "
                + "(/opt/cni/bin/" + BinaryInstaller.RECORD + ") names it as cni-chain's; remove the file by hand if cni-chain put it there");
        assertThat(node.binDir().resolve("bridge")).exists();
        assertThat(node.binDir().resolve("linkerd-cni")).exists();
    }

    /** Uninstall by hand on a host, with the defaults: the source is the bin dir itself, and the record decides. */
    @Test
    void sourceThatIsTheBinDirItselfLeavesItToTheRecord()
            throws IOException
    {
        Files.writeString(node.imageBinDir().resolve("helper"), "data");
        install(installer);
        node.binaries("bridge");
        Files.writeString(node.binDir().resolve("helper"), "someone else's now");
        BinaryInstaller onTheHost = new BinaryInstaller(new HostPaths(node.hostRoot()), node.binDir(), TestNode.BIN_DIR, new AtomicFileWriter());

        assertThat(onTheHost.namesUninstallMayRemove()).containsExactly("helper", "linkerd-cni");
        assertThat(onTheHost.uninstall()).containsExactly(Path.of("/opt/cni/bin/linkerd-cni"));
        assertThat(onTheHost.leftForWantOfSource("linkerd-cni")).hasValueSatisfying(why -> assertThat(why)
                .startsWith("/opt/cni/bin/helper: left in place: its bytes changed since install copied it"));
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
        assertThat(node.binDir().resolve(BinaryInstaller.RECORD)).doesNotExist();
        assertThat(node.binDir().resolve("bridge")).exists();
        assertThat(node.binDir().resolve("helper")).hasContent("someone else's now");
    }

    /**
     * The bin dir is others' to write: a file there is read without following a link and no further than the image's
     * binary, so a huge file (sparse, costing no disk) at the plugin's name, or a link to one, costs the agent no memory,
     * on install as on uninstall.
     */
    @Test
    void aHugeFileOrALinkToOneAtThePluginsNameIsNeverReadWhole()
            throws IOException
    {
        Path huge = sparse(node.root().resolve("huge"));
        Path binary = node.binDir().resolve("linkerd-cni");
        Files.createSymbolicLink(binary, huge);
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> install(installer)))
                .as("a link at the plugin's name is refused, not followed").isInstanceOf(io.cnichain.core.CniChainException.class);
        assertThat(Files.isSymbolicLink(binary)).isTrue();

        Files.delete(binary);
        sparse(binary);
        assertThat(install(installer)).containsExactly(Path.of("/opt/cni/bin/linkerd-cni"));
        assertThat(binary).hasSameBinaryContentAs(node.imageBinDir().resolve("linkerd-cni"));
        Files.delete(binary);
        sparse(binary);
        assertThat(installer.uninstall()).as("not the binary install copied").isEmpty();
        assertThat(Files.size(binary)).isEqualTo(3L << 30);
    }

    /** Install as {@code Installer} runs it: the copies, then their record. */
    private static java.util.List<Path> install(BinaryInstaller installer)
    {
        java.util.List<Path> written = installer.install("linkerd");
        installer.recordCopies();
        return written;
    }

    private static String sha256(Path file)
            throws IOException
    {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        }
        catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** 3 GiB that cost the disk nothing. */
    private static Path sparse(Path file)
            throws IOException
    {
        try (java.io.RandomAccessFile huge = new java.io.RandomAccessFile(file.toFile(), "rw")) {
            huge.setLength(3L << 30);
        }
        return file;
    }
}
