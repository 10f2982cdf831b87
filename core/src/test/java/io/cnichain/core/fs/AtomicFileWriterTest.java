package io.cnichain.core.fs;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.discovery.ConfigNames;
import io.cnichain.core.fs.FileMode;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(TempNodeExtension.class)
class AtomicFileWriterTest
{
    static final FileMode DEFAULT = FileMode.keepExistingOr(PosixFilePermissions.fromString("rw-r--r--"));

    TestNode node;

    @BeforeEach
    void setUp(TestNode node)
    {
        this.node = node;
    }

    @Test
    void replacesContentAndKeepsMode()
            throws IOException
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        new AtomicFileWriter().write(file, file, bytes("new"), DEFAULT, Optional.empty());
        assertThat(file).hasContent("new");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-r-----");
        assertThat(tempFiles(node.confDir())).isEmpty();
    }

    @Test
    void setIdBitsAndUserAttributesAreKept()
            throws IOException
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        Files.setAttribute(file, "unix:mode", 06440);
        java.nio.file.attribute.UserDefinedFileAttributeView attributes = Files.getFileAttributeView(file,
                java.nio.file.attribute.UserDefinedFileAttributeView.class);
        attributes.write("cni.origin", java.nio.ByteBuffer.wrap(bytes("primary")));

        new AtomicFileWriter().write(file, file, bytes("new"), DEFAULT, Optional.empty());

        assertThat(file).hasContent("new");
        assertThat((Integer) Files.getAttribute(file, "unix:mode") & 07777).as("mode %o", Files.getAttribute(file, "unix:mode")).isEqualTo(06440);
        java.nio.file.attribute.UserDefinedFileAttributeView after = Files.getFileAttributeView(file,
                java.nio.file.attribute.UserDefinedFileAttributeView.class);
        assertThat(after.list()).containsExactly("cni.origin");
        java.nio.ByteBuffer value = java.nio.ByteBuffer.allocate(after.size("cni.origin"));
        after.read("cni.origin", value);
        assertThat(new String(value.array(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("primary");
    }

    @Test
    void newFileGetsTheRequestedModeAndExactModeReplacesAnExistingOne()
            throws IOException
    {
        Path file = node.conf("ZZZ-kubeconfig");
        new AtomicFileWriter().write(file, file, bytes("secret"), FileMode.exactly(PosixFilePermissions.fromString("rw-------")), Optional.empty());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
        new AtomicFileWriter().write(file, file, bytes("secret2"), FileMode.exactly(PosixFilePermissions.fromString("rw-------")), Optional.empty());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }

    @Test
    void theRenameReplacesTheInodeSoReadersSeeOldOrNewNeverAPart()
            throws IOException
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        Object before = Files.getAttribute(file, "unix:ino");
        new AtomicFileWriter().write(file, file, bytes("{}"), DEFAULT, Optional.empty());
        assertThat(Files.getAttribute(file, "unix:ino")).isNotEqualTo(before);
    }

    @Test
    void tempFileLivesInTheTargetsDirectoryUnderANameNoRuntimeLoads()
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        AtomicReference<Path> seen = new AtomicReference<>();
        new AtomicFileWriter((tempFile, target) -> {
            seen.set(tempFile);
            assertThat(tempFile).exists().hasContent("patched");
        }).write(file, file, bytes("patched"), DEFAULT, Optional.empty());
        Path tempFile = seen.get();
        assertThat(tempFile.getParent()).isEqualTo(node.confDir());
        String name = tempFile.getFileName().toString();
        assertThat(AtomicFileWriter.isTempName(name)).isTrue();
        assertThat(ConfigNames.isRuntimeLoadable(name)).as("a runtime must never load " + name).isFalse();
        assertThat(ConfigNames.isNeverConfig(name)).isTrue();
        assertThat(name).startsWith(".").doesNotEndWith(".conf").doesNotEndWith(".conflist").doesNotEndWith(".json");
    }

    @Test
    void crashBetweenTempWriteAndRenameLeavesTheOriginalIntactAndTheNextRunRemovesTheTemp()
            throws IOException
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        String original = Files.readString(file);
        AtomicFileWriter crashing = new AtomicFileWriter((tempFile, target) -> {
            throw new SimulatedCrash();
        });
        assertThatThrownBy(() -> crashing.write(file, file, bytes("half-done"), DEFAULT, Optional.empty())).isInstanceOf(SimulatedCrash.class);
        assertThat(file).hasContent(original);
        List<Path> stale = tempFiles(node.confDir());
        assertThat(stale).hasSize(1);
        assertThat(node.snapshot().entries()).filteredOn(e -> e.runtimeLoadable()).extracting(e -> e.name()).containsExactly("10-calico.conflist");

        assertThat(new AtomicFileWriter().removeStaleTemps(node.confDir())).isEqualTo(stale);
        assertThat(tempFiles(node.confDir())).isEmpty();
        assertThat(file).hasContent(original);
    }

    @Test
    void abandonsTheWriteWhenTheFileChangedMeanwhile()
            throws IOException
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        byte[] read = Files.readAllBytes(file);
        AtomicFileWriter racing = new AtomicFileWriter((tempFile, target) -> Files.writeString(target, "{\"primary\":\"rewrote it\"}"));
        assertThatThrownBy(() -> racing.write(file, file, bytes("ours"), DEFAULT, Optional.of(read)))
                .isInstanceOfSatisfying(CniChainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONCURRENT_CHANGE));
        assertThat(file).hasContent("{\"primary\":\"rewrote it\"}");
        assertThat(tempFiles(node.confDir())).isEmpty();
    }

    @Test
    void refusesToReplaceALinkOrASpecialFile()
    {
        node.write("10-oci.conflist-current", TestNode.OCI);
        Path link = node.link("10-oci.conflist", "10-oci.conflist-current");
        assertThatThrownBy(() -> new AtomicFileWriter().write(link, link, bytes("x"), DEFAULT, Optional.empty()))
                .hasMessageContaining("is not a regular file");
        assertThat(Files.isSymbolicLink(link)).isTrue();
        Path fifo = node.fifo(node.conf("pipe"));
        assertThatThrownBy(() -> new AtomicFileWriter().write(fifo, fifo, bytes("x"), DEFAULT, Optional.empty()))
                .hasMessageContaining("is not a regular file");
        assertThat(Files.isRegularFile(fifo, LinkOption.NOFOLLOW_LINKS)).isFalse();
    }

    @Test
    void unwritableDirectoryIsAClearError()
            throws IOException
    {
        Path missingDir = node.host("/etc/cni/nowhere/10-x.conflist");
        assertThatThrownBy(() -> new AtomicFileWriter().write(missingDir, Path.of("/etc/cni/nowhere/10-x.conflist"), bytes("x"), DEFAULT, Optional.empty()))
                .isInstanceOfSatisfying(CniChainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.IO);
                    assertThat(e.getMessage()).startsWith("/etc/cni/nowhere/10-x.conflist: cannot be written: ");
                });
    }

    private static List<Path> tempFiles(Path dir)
            throws IOException
    {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> AtomicFileWriter.isTempName(p.getFileName().toString())).toList();
        }
    }

    private static byte[] bytes(String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static final class SimulatedCrash
            extends RuntimeException
    {
        SimulatedCrash()
        {
            super("simulated crash before the rename");
        }
    }
}
