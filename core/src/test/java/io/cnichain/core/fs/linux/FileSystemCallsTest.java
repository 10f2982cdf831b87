package io.cnichain.core.fs.linux;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Both ways of making the calls, on real files: the kernel's through FFM (on Java 25, as the agent runs) and the Java
 * fallback, forced as a seccomp profile or an older runtime would force it.
 */
class FileSystemCallsTest
{
    @TempDir
    Path dir;

    static FileSystemCalls calls(String which)
    {
        FileSystemCalls calls = Selection.choose(which);
        if (which.equals("native")) {
            // Built and run on 25 (scripts/test): the native calls must be there. Only a JDK 17 build lacks them.
            assumeTrue(Runtime.version().feature() >= 25, "the native calls need Java 25");
            assertThat(calls.isNative()).as(calls.describe()).isTrue();
        }
        else {
            assertThat(calls.isNative()).isFalse();
        }
        return calls;
    }

    @ParameterizedTest
    @ValueSource(strings = {"native", "java"})
    void readsARegularFileUpToOneBytePastTheLimit(String which)
            throws IOException
    {
        Path file = Files.write(dir.resolve("10-a.conflist"), "0123456789".getBytes(StandardCharsets.US_ASCII));
        assertThat(calls(which).readRegularFile(file, 100)).asString(StandardCharsets.US_ASCII).isEqualTo("0123456789");
        assertThat(calls(which).readRegularFile(file, 4)).hasSize(5);
    }

    @ParameterizedTest
    @ValueSource(strings = {"native", "java"})
    void readsFilesLargerThanAPageAndThanOneBufferWhole(String which)
            throws IOException
    {
        // The native read sizes its buffer by the file's size, at least a page and at most 64 KiB: a file past either
        // bound is read in several reads, and a limit within it still stops one byte past.
        for (int size : new int[] {4095, 4096, 4097, 65_535, 65_536, 65_537, 200_000}) {
            byte[] content = new byte[size];
            for (int i = 0; i < size; i++) {
                content[i] = (byte) ('a' + i % 26);
            }
            Path file = Files.write(dir.resolve("big-" + size), content);
            assertThat(calls(which).readRegularFile(file, 1 << 20)).as("size %d", size).isEqualTo(content);
            assertThat(calls(which).readRegularFile(file, size - 1)).as("size %d, limit one less", size).isEqualTo(content);
            assertThat(calls(which).readRegularFile(file, 5000)).as("size %d, limit 5000", size).hasSize(Math.min(size, 5001));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"native", "java"})
    void saysWhatIsAtAPathWithoutFollowingItsLinkAndNothingWhereNothingIs(String which)
            throws Exception
    {
        FileSystemCalls calls = calls(which);
        Path file = Files.writeString(dir.resolve("10-a.conflist"), "{}");
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r-----"));
        Path link = Files.createSymbolicLink(dir.resolve("link"), dir.resolve("missing"));
        Path fifo = dir.resolve("fifo");
        mkfifo(fifo);

        assertThat(calls.modeOf(file)).hasValue(0100640);
        assertThat(calls.modeOf(dir).orElseThrow() & 0170000).isEqualTo(0040000);
        // The link itself, dangling as it is.
        assertThat(calls.modeOf(link).orElseThrow() & 0170000).isEqualTo(0120000);
        assertThat(calls.modeOf(fifo).orElseThrow() & 0170000).isEqualTo(0010000);
        assertThat(calls.modeOf(dir.resolve("gone"))).isEmpty();
        // A component that is not a directory: nothing can be there either (ENOTDIR).
        assertThat(calls.modeOf(file.resolve("below"))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"native", "java"})
    void tellsWhichFileIsAtAPathAndInWhichStateWithoutFollowingItsLink(String which)
            throws Exception
    {
        FileSystemCalls calls = calls(which);
        Path file = Files.writeString(dir.resolve("10-a.conflist"), "{\"a\":1}");
        Instant modified = Instant.parse("2026-01-02T03:04:05.123456789Z");
        Files.setLastModifiedTime(file, FileTime.from(modified));
        Path link = Files.createSymbolicLink(dir.resolve("link"), file);

        FileSystemCalls.Identity identity = calls.identityOf(file).orElseThrow();
        // What Java's own stat says of the same file: the device as the C library encodes st_dev, the times to the nanosecond.
        assertThat(identity.device()).isEqualTo(Files.getAttribute(file, "unix:dev"));
        assertThat(identity.inode()).isEqualTo(Files.getAttribute(file, "unix:ino"));
        assertThat(identity.size()).isEqualTo(7);
        assertThat(identity.modifiedNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(modified.getEpochSecond()) + modified.getNano());
        assertThat(identity.changedNanos()).isEqualTo(((FileTime) Files.getAttribute(file, "unix:ctime")).to(TimeUnit.NANOSECONDS));
        assertThat(calls.identityOf(file)).hasValue(identity);
        // The link's own identity, not its target's.
        assertThat(calls.identityOf(link).orElseThrow().inode()).isEqualTo(Files.getAttribute(link, "unix:ino", LinkOption.NOFOLLOW_LINKS))
                .isNotEqualTo(identity.inode());
        // Another file renamed in its place, of the same size and times, is another identity.
        Path other = Files.writeString(dir.resolve("other"), "{\"a\":2}");
        Files.setLastModifiedTime(other, FileTime.from(modified));
        Files.move(other, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertThat(calls.identityOf(file)).isPresent().isNotEqualTo(Optional.of(identity));
        assertThat(calls.identityOf(dir.resolve("gone"))).isEmpty();
        // A component that is not a directory: nothing can be there either (ENOTDIR).
        assertThat(calls.identityOf(file.resolve("below"))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"native", "java"})
    void refusesALinkAFifoADirectoryAndNothing(String which)
            throws Exception
    {
        FileSystemCalls calls = calls(which);
        Path target = Files.writeString(dir.resolve("target.conflist"), "{}");
        Path link = Files.createSymbolicLink(dir.resolve("link.conflist"), target);
        Path fifo = dir.resolve("fifo.conflist");
        mkfifo(fifo);

        assertThatThrownBy(() -> calls.readRegularFile(link, 100)).isInstanceOf(FileSystemCalls.NotRegularFile.class).hasMessageContaining("a symbolic link");
        // Were the FIFO opened blocking, this would wait for a writer forever.
        CompletableFuture<Throwable> read = CompletableFuture.supplyAsync(() -> {
            try {
                calls.readRegularFile(fifo, 100);
                return null;
            }
            catch (IOException e) {
                return e;
            }
        });
        assertThat(read.get(10, TimeUnit.SECONDS)).isInstanceOf(FileSystemCalls.NotRegularFile.class).hasMessageContaining("a FIFO");
        assertThatThrownBy(() -> calls.readRegularFile(dir, 100)).isInstanceOf(FileSystemCalls.NotRegularFile.class).hasMessageContaining("a directory");
        assertThatThrownBy(() -> calls.readRegularFile(dir.resolve("none"), 100)).isInstanceOf(NoSuchFileException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"native", "java"})
    void listingAFifoRefusesItWithoutOpeningIt(String which)
            throws Exception
    {
        FileSystemCalls calls = calls(which);
        Path fifo = dir.resolve("k8s-pod-network");
        mkfifo(fifo);

        // Were the FIFO opened to be listed, this would wait for a writer forever.
        CompletableFuture<Throwable> listing = CompletableFuture.supplyAsync(() -> {
            try {
                calls.listNames(fifo);
                return null;
            }
            catch (IOException e) {
                return e;
            }
        });
        try {
            assertThat(listing.get(10, TimeUnit.SECONDS)).isInstanceOf(NotDirectoryException.class);
        }
        finally {
            release(fifo);
        }
        assertThatThrownBy(() -> calls.listNames(Files.writeString(dir.resolve("file"), "{}"))).isInstanceOf(NotDirectoryException.class);
        assertThatThrownBy(() -> calls.listNames(dir.resolve("none"))).isInstanceOf(NoSuchFileException.class);
    }

    /** Opens a FIFO for reading and writing, which never blocks, so that a reader blocked in its open goes on. */
    static void release(Path fifo)
            throws IOException
    {
        new java.io.RandomAccessFile(fifo.toFile(), "rw").close();
    }

    @Test
    void nativeReadsNeverBlockOnAFifoSwappedInAfterAnyLook()
            throws Exception
    {
        // The race of the fallback (type checked, then opened) has no window here: the open itself cannot block, and
        // the check is on what was opened. A FIFO swapped in by rename, again and again, while reads go on.
        FileSystemCalls calls = calls("native");
        Path file = dir.resolve("10-a.conflist");
        Files.writeString(file, "{}");
        Path fifo = dir.resolve("swap");
        Path regular = dir.resolve("swap-regular");
        CompletableFuture<Void> swapper = CompletableFuture.runAsync(() -> {
            try {
                long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
                while (System.nanoTime() < end) {
                    mkfifo(fifo);
                    Files.move(fifo, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    Files.writeString(regular, "{}");
                    Files.move(regular, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
            catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> {
            int fifos = 0;
            while (!swapper.isDone()) {
                try {
                    calls.readRegularFile(file, 100);
                }
                catch (FileSystemCalls.NotRegularFile e) {
                    fifos++;
                }
                catch (IOException e) {
                    // missing for a moment: fine
                }
            }
            return fifos;
        });
        swapper.get(30, TimeUnit.SECONDS);
        assertThat(reader.get(10, TimeUnit.SECONDS)).as("reads that met the FIFO, and returned").isPositive();
    }

    @Test
    void nativeListingGivesEveryNameAsItsBytes()
            throws Exception
    {
        FileSystemCalls calls = calls("native");
        Files.writeString(dir.resolve("10-calico.conflist"), "{}");
        sh("touch \"$(printf '05-caf\\351.conflist')\"");
        List<FileSystemCalls.EntryName> names = calls.listNames(dir);
        assertThat(names).extracting(FileSystemCalls.EntryName::exact).containsOnly(true);
        assertThat(names).extracting(name -> PathNames.printable(name.bytes())).containsExactlyInAnyOrder("10-calico.conflist", "05-caf\\xe9.conflist");
        byte[] invalid = names.stream().filter(n -> n.bytes()[0] == '0').findFirst().orElseThrow().bytes();
        assertThat(invalid).containsExactly("05-caf".getBytes(StandardCharsets.US_ASCII)[0], (byte) '5', (byte) '-', (byte) 'c', (byte) 'a', (byte) 'f',
                (byte) 0xe9, (byte) '.', (byte) 'c', (byte) 'o', (byte) 'n', (byte) 'f', (byte) 'l', (byte) 'i', (byte) 's', (byte) 't');
        assertThat(PathNames.toPath(dir, invalid)).isEmpty();
    }

    @Test
    void fallbackListingMarksANameItSawOnlyDecoded()
            throws Exception
    {
        FileSystemCalls calls = calls("java");
        Files.writeString(dir.resolve("10-calico.conflist"), "{}");
        sh("touch \"$(printf '05-caf\\351.conflist')\"");
        List<FileSystemCalls.EntryName> names = calls.listNames(dir);
        assertThat(names).hasSize(2);
        assertThat(names).filteredOn(FileSystemCalls.EntryName::exact).extracting(n -> new String(n.bytes(), StandardCharsets.UTF_8))
                .containsExactly("10-calico.conflist");
    }

    @ParameterizedTest
    @ValueSource(strings = {"native", "java"})
    void holdsADirectoryBelowABaseOnlyWithoutLinks(String which)
            throws IOException
    {
        FileSystemCalls calls = calls(which);
        Path real = Files.createDirectories(dir.resolve("etc/cni/net.d"));
        Files.createSymbolicLink(dir.resolve("linked"), real);
        Optional<FileSystemCalls.Directory> held = calls.openDirectory(dir, Path.of("etc/cni/net.d"));
        assertThat(held.isPresent()).isEqualTo(which.equals("native"));
        held.ifPresent(FileSystemCalls.Directory::close);
        if (which.equals("native")) {
            assertThatThrownBy(() -> calls.openDirectory(dir, Path.of("linked"))).isInstanceOf(FileSystemCalls.LinkBelowBase.class);
            assertThatThrownBy(() -> calls.openDirectory(dir, Path.of("../"))).isInstanceOf(FileSystemCalls.LinkBelowBase.class);
        }
    }

    @Test
    void aHeldDirectoryTellsAnEntrysModeLinksOwnerAndGroupByNumberWithoutFollowingALink()
            throws IOException
    {
        FileSystemCalls calls = calls("native");
        Path file = Files.writeString(dir.resolve("a"), "A");
        Files.setAttribute(file, "unix:mode", 02640);
        Files.createLink(dir.resolve("b"), file);
        Files.createSymbolicLink(dir.resolve("link"), file);
        try (FileSystemCalls.Directory held = calls.openDirectory(dir, Path.of("")).orElseThrow()) {
            FileSystemCalls.Status status = held.status("a").orElseThrow();
            assertThat(status.mode()).as("mode %o", status.mode()).isEqualTo(Files.getAttribute(file, "unix:mode")).isEqualTo(0102640);
            assertThat(status.links()).isEqualTo(2);
            assertThat(status.uid()).isEqualTo(Files.getAttribute(file, "unix:uid"));
            assertThat(status.gid()).isEqualTo(Files.getAttribute(file, "unix:gid"));
            assertThat(held.status("link").orElseThrow().mode() & 0170000).as("the link itself").isEqualTo(0120000);
            assertThat(held.status("missing")).isEmpty();
        }
    }

    @Test
    void aHeldDirectoryReadsItsRegularFilesOnlyAndNoMoreThanAskedAndOneByte()
            throws Exception
    {
        FileSystemCalls calls = calls("native");
        Files.writeString(dir.resolve("a"), "0123456789");
        Files.createSymbolicLink(dir.resolve("link"), dir.resolve("a"));
        mkfifo(dir.resolve("fifo"));
        Files.createDirectory(dir.resolve("sub"));
        try (FileSystemCalls.Directory held = calls.openDirectory(dir, Path.of("")).orElseThrow()) {
            assertThat(held.readRegularFile("a", 100)).asString().isEqualTo("0123456789");
            assertThat(held.readRegularFile("a", 4)).as("one byte more than the limit, to show there is more").asString().isEqualTo("01234");
            assertThatThrownBy(() -> held.readRegularFile("link", 100)).isInstanceOf(FileSystemCalls.NotRegularFile.class)
                    .hasMessageContaining("a symbolic link");
            // Were the FIFO opened blocking, this would wait for a writer forever.
            CompletableFuture<Throwable> read = CompletableFuture.supplyAsync(() -> {
                try {
                    held.readRegularFile("fifo", 100);
                    return null;
                }
                catch (IOException e) {
                    return e;
                }
            });
            assertThat(read.get(10, TimeUnit.SECONDS)).isInstanceOf(FileSystemCalls.NotRegularFile.class).hasMessageContaining("a FIFO");
            assertThatThrownBy(() -> held.readRegularFile("sub", 100)).isInstanceOf(FileSystemCalls.NotRegularFile.class).hasMessageContaining("a directory");
            assertThatThrownBy(() -> held.readRegularFile("none", 100)).isInstanceOf(NoSuchFileException.class).hasMessageContaining(dir.resolve("none").toString());
        }
    }

    @Test
    void aHeldDirectoryCreatesANewFileWithItsContentButNeverOverAnEntryOrThroughALink()
            throws IOException
    {
        FileSystemCalls calls = calls("native");
        Path outside = Files.createDirectory(dir.resolve("outside"));
        Files.writeString(dir.resolve("taken"), "theirs");
        Files.createSymbolicLink(dir.resolve("dangling"), outside.resolve("made-through-the-link"));
        byte[] content = "x".repeat(200_000).getBytes(StandardCharsets.UTF_8);
        try (FileSystemCalls.Directory held = calls.openDirectory(dir, Path.of("")).orElseThrow()) {
            held.createSynced("new", 0600, content);
            assertThat(Files.readAllBytes(dir.resolve("new"))).isEqualTo(content);
            assertThat(held.status("new").orElseThrow().mode()).as("a regular file, rw------- (no umask takes from it)").isEqualTo(0100600);

            assertThatThrownBy(() -> held.createSynced("taken", 0644, content)).isInstanceOf(FileAlreadyExistsException.class);
            assertThat(Files.readString(dir.resolve("taken"))).isEqualTo("theirs");
            assertThatThrownBy(() -> held.createSynced("dangling", 0644, content)).isInstanceOf(FileAlreadyExistsException.class);
            assertThat(outside).isEmptyDirectory();
        }
    }

    @Test
    void aHeldDirectoryReplacesDeletesAndSyncsItsOwnEntriesOnly()
            throws IOException
    {
        FileSystemCalls calls = calls("native");
        Files.writeString(dir.resolve("a"), "A");
        Files.writeString(dir.resolve("b"), "B");
        Path outside = Files.createDirectory(dir.resolve("outside"));
        Files.writeString(outside.resolve("c"), "C");
        Files.createSymbolicLink(dir.resolve("link"), outside.resolve("c"));
        try (FileSystemCalls.Directory held = calls.openDirectory(dir, Path.of("")).orElseThrow()) {
            held.replace("a", "b");
            assertThat(Files.readString(dir.resolve("b"))).isEqualTo("A");
            assertThat(dir.resolve("a")).doesNotExist();
            assertThat(held.delete("link")).as("the link itself").isTrue();
            assertThat(outside.resolve("c")).hasContent("C");
            assertThat(held.delete("link")).as("gone already").isFalse();
            assertThatThrownBy(() -> held.delete("outside")).as("a directory is not removed").isInstanceOf(IOException.class);
            assertThat(outside).isDirectory();
            held.sync();
        }
    }

    @Test
    void nativeRenamesRefuseToReplaceAndExchangeBothWays()
            throws IOException
    {
        FileSystemCalls calls = calls("native");
        Files.writeString(dir.resolve("a"), "A");
        Files.writeString(dir.resolve("b"), "B");
        try (FileSystemCalls.Directory held = calls.openDirectory(dir, Path.of("")).orElseThrow()) {
            assertThatThrownBy(() -> held.renameNoReplace("a", "b")).isInstanceOf(FileAlreadyExistsException.class);
            assertThat(Files.readString(dir.resolve("b"))).isEqualTo("B");
            held.exchange("a", "b");
            assertThat(Files.readString(dir.resolve("a"))).isEqualTo("B");
            assertThat(Files.readString(dir.resolve("b"))).isEqualTo("A");
            held.renameNoReplace("a", "c");
            assertThat(Files.readString(dir.resolve("c"))).isEqualTo("B");
            assertThat(dir.resolve("a")).doesNotExist();
            assertThatThrownBy(() -> held.exchange("a", "b")).isInstanceOf(NoSuchFileException.class);
        }
    }

    @Test
    void describesWhichCallsAndWhy()
    {
        assertThat(Selection.choose("java").describe()).startsWith("Java fallback (forced by -Dcnichain.fs.calls=java)");
        assertThat(Selection.choose("nonsense").describe()).contains("is not auto, native or java");
        if (Runtime.version().feature() >= 25) {
            assertThat(Selection.choose("auto").describe()).startsWith("kernel calls through FFM");
        }
    }

    @Test
    void printableNamesCannotForgeALogLine()
    {
        assertThat(PathNames.printable("a\nb.conflist".getBytes(StandardCharsets.UTF_8))).isEqualTo("a\\x0ab.conflist");
        assertThat(PathNames.printable("README-é.txt".getBytes(StandardCharsets.UTF_8))).isEqualTo("README-é.txt");
        assertThat(PathNames.printable(new byte[] {'x', (byte) 0xe9})).isEqualTo("x\\xe9");
    }

    private void sh(String command)
            throws Exception
    {
        Process process = new ProcessBuilder("sh", "-c", command).directory(dir.toFile()).inheritIO().start();
        assertThat(process.waitFor()).isZero();
    }

    private static void mkfifo(Path path)
    {
        try {
            Process process = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
            assertThat(process.waitFor()).isZero();
        }
        catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
