package io.cnichain.core.fs;

import io.cnichain.core.fs.linux.FileSystemCalls;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The directory a write happens in, held open: every operation of the write (temp file, attributes, the check of the
 * target, the rename, the sync) is relative to that one directory, so a directory swapped for a link meanwhile cannot
 * take any of it elsewhere. It is reached from a trusted base without following any link below it: a path that the
 * resolver walked when it was link-free and that has since gained a link is refused, not followed. Where the platform
 * has no {@link SecureDirectoryStream} (not Linux), paths are used as before.
 */
abstract class WriteDirectory
        implements Closeable
{
    /**
     * @param base      a directory trusted as it is (links in it followed: the host root, or a configured directory)
     * @param directory the directory to write in: {@code base} or below it
     * @throws LinkOnTheWay when a directory below {@code base} is now a link (or not a directory)
     */
    static WriteDirectory open(Path base, Path directory)
            throws IOException
    {
        if (!directory.normalize().startsWith(base.normalize())) {
            throw new IllegalArgumentException(directory + " is not below " + base);
        }
        Path relative = base.normalize().relativize(directory.normalize());
        // By the kernel's descriptor where the native calls run (openat2, no link below the base followed); the stream
        // Java's file API needs for owners by name is then opened, the same way, only if asked for.
        Optional<FileSystemCalls.Directory> held;
        try {
            held = FileSystemCalls.get().openDirectory(base.normalize(), relative);
        }
        catch (FileSystemCalls.LinkBelowBase e) {
            throw new LinkOnTheWay(directory);
        }
        if (held.isPresent()) {
            return new WriteDirectoryByHandle(() -> openStream(base, relative).orElseThrow(() -> new IOException(directory + ": no secure directory stream")),
                    held.get(), directory);
        }
        Optional<SecureDirectoryStream<Path>> stream = openStream(base, relative);
        return stream.isPresent() ? new WriteDirectoryByHandle(stream.get(), Optional.empty(), directory) : new WriteDirectoryByPath(directory);
    }

    /**
     * @return the directory as a {@link SecureDirectoryStream}, reached from the base one name at a time without following
     *         a link; empty where the platform has none
     * @throws LinkOnTheWay when a directory below the base is now a link (or not a directory)
     */
    private static Optional<SecureDirectoryStream<Path>> openStream(Path base, Path relative)
            throws IOException
    {
        DirectoryStream<Path> stream = Files.newDirectoryStream(base);
        if (!(stream instanceof SecureDirectoryStream<Path> secure)) {
            stream.close();
            return Optional.empty();
        }
        SecureDirectoryStream<Path> current = secure;
        try {
            for (int i = 0; i < relative.getNameCount(); i++) {
                Path name = relative.getName(i);
                if (name.toString().isEmpty()) {
                    continue;
                }
                SecureDirectoryStream<Path> next;
                try {
                    next = current.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS);
                }
                catch (NoSuchFileException | java.nio.file.AccessDeniedException e) {
                    throw e;
                }
                catch (FileSystemException e) {
                    // ELOOP (a link, not followed) or ENOTDIR
                    throw new LinkOnTheWay(base.resolve(relative.subpath(0, i + 1)));
                }
                current.close();
                current = next;
            }
        }
        catch (IOException | RuntimeException e) {
            current.close();
            throw e;
        }
        return Optional.of(current);
    }

    /** @return the attributes of an entry, not following a link, or empty when there is none */
    abstract Optional<PosixFileAttributes> attributes(String name);

    /**
     * @return an entry's mode, links, owner and group by number ({@link FileSystemCalls.Directory#status}), not following
     *         a link; empty where only Java's file API holds the directory, or there is no such entry
     */
    abstract Optional<FileSystemCalls.Status> status(String name)
            throws IOException;

    /** Creates a new file (never through a link) with these permissions (less the umask). */
    abstract FileChannel create(String name, Set<PosixFilePermission> permissions)
            throws IOException;

    /**
     * Creates a new file (never through a link, never over another entry) with these permissions (less the umask),
     * holding the content, synced to disk.
     */
    void createSynced(String name, Set<PosixFilePermission> permissions, byte[] content)
            throws IOException
    {
        try (FileChannel channel = create(name, permissions)) {
            ByteBuffer buffer = ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
    }

    /** {@link #createSynced}, with the content copied from another file a mebibyte at a time. */
    void createSyncedFrom(String name, Set<PosixFilePermission> permissions, Path source)
            throws IOException
    {
        try (FileChannel channel = create(name, permissions); FileChannel in = FileChannel.open(source, StandardOpenOption.READ)) {
            // Read from the source's own position, which each transfer moves on, until its end (a transfer of nothing).
            long done = 0;
            long n;
            while ((n = channel.transferFrom(in, done, 1024 * 1024)) > 0) {
                done += n;
            }
            channel.force(true);
        }
    }

    abstract PosixFileAttributeView view(String name)
            throws IOException;

    /** Sets an entry's mode, the set-id and sticky bits included, never through a link ({@link FileSystemCalls.Directory#setMode}). */
    abstract void setMode(String name, int mode)
            throws IOException;

    /**
     * Java's file API sets the set-id bits by path only, and follows a link even when told not to: a link is refused
     * just before, which leaves a moment the kernel's calls do not.
     */
    static void setModeByPath(Path file, int mode)
            throws IOException
    {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new FileSystemCalls.NotRegularFile(file, Files.isSymbolicLink(file) ? "a symbolic link" : "not a regular file");
        }
        Files.setAttribute(file, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * What a write needs to know of the entry it replaces.
     *
     * @param regularFile whether it is a regular file (not followed if a link)
     * @param permissions its permission bits
     * @param status      its mode, links, owner and group by number, where the kernel's calls hold the directory
     */
    record Replaced(boolean regularFile, Set<PosixFilePermission> permissions, Optional<FileSystemCalls.Status> status)
    {
        static Replaced of(FileSystemCalls.Status status)
        {
            return new Replaced(FileSystemCalls.isRegularFile(status.mode()), FileMode.permissions(status.mode()), Optional.of(status));
        }
    }

    /** @return the entry a write would replace, not following a link; empty when there is none */
    Optional<Replaced> replaced(String name)
            throws IOException
    {
        return attributes(name).map(a -> new Replaced(a.isRegularFile(), a.permissions(), Optional.empty()));
    }

    /**
     * @param most the most bytes the caller needs: more may be read, and at least one more when there are
     * @throws NoSuchFileException when there is no such entry
     */
    abstract byte[] read(String name, long most)
            throws IOException;

    /** Renames an entry over another, atomically, within this directory. */
    abstract void rename(String from, String to)
            throws IOException;

    /**
     * Renames unless the target exists (renameat2 RENAME_NOREPLACE).
     *
     * @throws java.nio.file.FileAlreadyExistsException when it exists
     * @throws UnsupportedOperationException where only a plain rename can be made
     */
    abstract void renameNoReplace(String from, String to)
            throws IOException;

    /**
     * Swaps two entries atomically (renameat2 RENAME_EXCHANGE).
     *
     * @throws UnsupportedOperationException where it cannot be made
     */
    abstract void exchange(String a, String b)
            throws IOException;

    /**
     * Copies the extended attributes of one file here to another: all of them by the kernel's calls; only the user's
     * ({@code user.*}, the only ones Java can see) by the fallback.
     */
    abstract FileSystemCalls.CopiedAttributes copyExtendedAttributes(String from, String to)
            throws IOException;

    /** The fallback's copy: the user's attributes, the only ones Java's file API can see. */
    static FileSystemCalls.CopiedAttributes copyUserAttributes(Path from, Path to)
            throws IOException
    {
        UserDefinedFileAttributeView source = Files.getFileAttributeView(from, UserDefinedFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
        UserDefinedFileAttributeView target = Files.getFileAttributeView(to, UserDefinedFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
        List<String> names;
        try {
            names = source == null || target == null ? List.of() : source.list();
        }
        catch (IOException | UnsupportedOperationException e) {
            return new FileSystemCalls.CopiedAttributes(List.of(), List.of());  // a file system without them: none to keep
        }
        List<String> kept = new ArrayList<>();
        for (String name : names) {
            ByteBuffer value = ByteBuffer.allocate(source.size(name));
            source.read(name, value);
            value.flip();
            target.write(name, value);
            kept.add("user." + name);
        }
        return new FileSystemCalls.CopiedAttributes(kept, List.of());
    }

    /** @return whether the entry existed */
    abstract boolean delete(String name)
            throws IOException;

    /** fsync of the directory itself, so that a rename or delete survives a crash. */
    abstract void sync()
            throws IOException;

    /** A directory below the base became a link (or something else than a directory) since it was resolved. */
    static final class LinkOnTheWay
            extends IOException
    {
        final Path where;

        LinkOnTheWay(Path where)
        {
            super(where + " is no longer a directory (a link?)");
            this.where = where;
        }
    }
}
