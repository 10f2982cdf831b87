package io.cnichain.core.install;

import io.cnichain.core.fs.Sha256;
import io.cnichain.core.fs.linux.FileSystemCalls;
import io.cnichain.core.fs.linux.FileSystemCalls.Identity;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads of the bin dir's files and of the sources for {@link BinaryInstaller}: a binary is compared and digested a
 * chunk at a time, never held whole (a plugin's binary may be larger than the agent's heap); the install record is
 * small and read whole.
 */
final class BinDirFiles
{
    private static final long MAX_RECORD_BYTES = 64 * 1024;

    private BinDirFiles() {}

    /**
     * A file of the bin dir, which others write: read without following a link or blocking, and no more than one byte
     * past {@code limit} (more than that equals nothing we wrote).
     *
     * @return empty when it is missing, or not a regular file
     */
    private static Optional<byte[]> readRegular(Path file, long limit)
            throws IOException
    {
        try {
            return Optional.of(FileSystemCalls.get().readRegularFile(file, limit));
        }
        catch (NoSuchFileException | FileSystemCalls.NotRegularFile e) {
            return Optional.empty();
        }
    }

    /** Whether a file of the bin dir is a regular file that holds these bytes, no more, no less. */
    static boolean holds(Path file, byte[] bytes)
            throws IOException
    {
        Optional<byte[]> present = readRegular(file, bytes.length);
        return present.isPresent() && Arrays.equals(bytes, present.get());
    }

    /**
     * Streamed, however large the file.
     *
     * @param options {@link LinkOption#NOFOLLOW_LINKS} for a file of the bin dir; none for a source, which may be a link
     */
    static String sha256(Path file, LinkOption... options)
            throws IOException
    {
        Set<OpenOption> open = new HashSet<>(Arrays.asList(options));
        open.add(StandardOpenOption.READ);
        try (FileChannel channel = FileChannel.open(file, open)) {
            return Sha256.hex(channel);
        }
    }

    /**
     * Each source's digest while its file stays the same ({@link Identity}): a real plugin binary's takes hundreds of
     * milliseconds with C1 alone. Not refused for a file changed just before the read, as the parse cache refuses it: the
     * chart's init container copies the binary there a moment before the agent starts, and a rewrite of the same size
     * within one clock tick would only leave a record that uninstall finds not matching, so the binary stays.
     */
    static final class SourceDigests
    {
        private final Map<Path, Known> known = new HashMap<>();

        String of(Path source)
                throws IOException
        {
            Path file = source.toRealPath();
            Optional<Identity> before = FileSystemCalls.get().identityOf(file);
            Known cached = known.get(source);
            if (cached != null && before.isPresent() && cached.identity().equals(before.get())) {
                return cached.sha256();
            }
            String sha256 = sha256(file);
            Optional<Identity> after = FileSystemCalls.get().identityOf(file);
            if (before.isPresent() && before.equals(after)) {
                known.put(source, new Known(after.get(), sha256));
            }
            else {
                known.remove(source);
            }
            return sha256;
        }

        private record Known(Identity identity, String sha256) {}
    }

    /**
     * Whether a regular file of the bin dir holds the source's bytes, no more, no less: compared 64 KiB at a time, never
     * held whole. (Opened by name after its look, as {@link #sha256} is: the bin dir is written by root alone.)
     */
    static boolean sameBytes(Path source, Path file)
            throws IOException
    {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try (FileChannel ours = FileChannel.open(source, StandardOpenOption.READ);
                FileChannel theirs = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            if (ours.size() != theirs.size()) {
                return false;
            }
            ByteBuffer a = ByteBuffer.allocate(64 * 1024);
            ByteBuffer b = ByteBuffer.allocate(64 * 1024);
            while (true) {
                int read = fill(ours, a.clear());
                if (read != fill(theirs, b.clear()) || !a.flip().equals(b.flip())) {
                    return false;
                }
                if (read < a.capacity()) {
                    return true;
                }
            }
        }
        catch (NoSuchFileException e) {
            return false;
        }
    }

    /** @return how many bytes the buffer got: fewer than it holds only at the channel's end */
    private static int fill(FileChannel channel, ByteBuffer buffer)
            throws IOException
    {
        while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
            // Short reads are read on.
        }
        return buffer.position();
    }

    /**
     * @return the record of an earlier install: each binary's name and the SHA-256 of the bytes it copied, lines that
     *         are not well formed (or name anything but a plain file of the bin dir) left out
     * @throws IOException when it exists but cannot be read
     */
    static Map<String, String> readRecord(Path target)
            throws IOException
    {
        Map<String, String> entries = new LinkedHashMap<>();
        Optional<byte[]> record = readRegular(target.resolve(BinaryInstaller.RECORD), MAX_RECORD_BYTES);
        if (record.isEmpty()) {
            return entries;
        }
        for (String line : new String(record.get(), StandardCharsets.UTF_8).split("\\R")) {
            String[] fields = line.split("  ", 2);
            if (!line.startsWith("#") && fields.length == 2 && fields[0].matches("[0-9a-f]{64}") && !fields[1].isEmpty() && !fields[1].contains("/")
                    && !fields[1].startsWith(".")) {
                entries.putIfAbsent(fields[1], fields[0]);
            }
        }
        return entries;
    }
}
