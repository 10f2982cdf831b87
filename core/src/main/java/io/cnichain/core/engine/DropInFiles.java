package io.cnichain.core.engine;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.discovery.DropIns;
import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.core.fs.FileMode;
import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.core.fs.DirectoryWriter;
import io.cnichain.core.fs.linux.FileSystemCalls;
import io.cnichain.core.host.HostPaths;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import static java.util.Objects.requireNonNull;

/**
 * Our drop-in files: {@code <conf dir>/<network name>/<type>.conf}, written and removed under the rules of every write;
 * the plugin directory made when it is missing, with a marker that records which directory we made (its inode), so
 * that uninstall removes that directory again and nothing else; and the event in the conf dir that makes the runtime
 * reload, since it watches the conf dir and not the plugin directories (containerd reloads on a write, rename or
 * remove there, and ignores a create). Nothing is removed by its name alone: a file only when it holds a plugin of our
 * type (no other installer writes a drop-in of it: Linkerd's edits the list), a directory only when the marker records
 * it and nothing else is in it.
 */
final class DropInFiles
{
    /** In a plugin directory we made: libcni reads only {@code *.conf}, so it is never a plugin. */
    static final String MARKER = ".cni-chain-created";
    /** The start of the name of the file created and removed in the conf dir to make the runtime reload; never a configuration. */
    static final String RELOAD = ".cni-chain-reload-";
    private static final FileMode FILE_MODE = FileMode.keepExistingOr(PosixFilePermissions.fromString("rw-r--r--"));

    private final HostPaths host;
    private final Path confDir;
    private final BoundedFileReader reader;
    private final AtomicFileWriter writer;
    private final DirectoryWriter directories = new DirectoryWriter();
    private final String type;

    DropInFiles(HostPaths host, Path confDir, BoundedFileReader reader, AtomicFileWriter writer, String type)
    {
        this.host = requireNonNull(host, "host is null");
        this.confDir = requireNonNull(confDir, "confDir is null");
        this.reader = requireNonNull(reader, "reader is null");
        this.writer = requireNonNull(writer, "writer is null");
        this.type = requireNonNull(type, "type is null");
    }

    /** Our drop-in's host path in a plugin directory. */
    Path file(Path directory)
    {
        return directory.resolve(type + DropIns.EXTENSION);
    }

    /**
     * Writes our drop-in into a plugin directory, made first when it is missing, unless it holds these bytes already.
     *
     * @return what was written; empty when nothing was
     * @throws CniChainException when it cannot be written, or a file of another type has our drop-in's name
     */
    List<FileOutcome.Written> place(Path directory, byte[] content)
    {
        Path container = host.toContainer(directory);
        List<FileOutcome.Written> written = new ArrayList<>();
        if (directories.createDirectoryBelow(host.root(), container, directory, PosixFilePermissions.fromString("rwxr-xr-x"))) {
            byte[] marker = marker(inode(container).orElseThrow(() -> new CniChainException(ErrorCode.IO, directory, "vanished as it was made")));
            writer.createBelow(host.root(), container.resolve(MARKER), directory.resolve(MARKER), marker, FILE_MODE);
        }
        Path file = file(directory);
        Optional<byte[]> existing = read(file);
        if (existing.isPresent() && Arrays.equals(existing.get(), content)) {
            return written;
        }
        if (existing.isPresent() && !DropIns.pluginType(existing.get()).map(type::equals).orElse(false)) {
            throw new CniChainException(ErrorCode.IO, file, "has our drop-in's name but is not a " + type + " plugin cni-chain wrote; not replaced "
                    + "(move it, or set placement: patch)");
        }
        writer.writeBelow(host.root(), host.toContainer(file), file, content, FILE_MODE, existing);
        written.add(FileOutcome.Written.of(file, content));
        return written;
    }

    /**
     * Removes our drop-in from a plugin directory, and our marker with it: the directory too when the marker records
     * this very directory as ours and nothing else is in it. A directory with anything else in it is someone's now; it
     * stays, without our marker.
     *
     * @return the drop-in removed, if there was one of ours
     * @throws CniChainException when it cannot be removed
     */
    Optional<Path> remove(Path directory)
    {
        Path file = file(directory);
        Optional<byte[]> existing = read(file);
        if (existing.isEmpty() || !DropIns.pluginType(existing.get()).map(type::equals).orElse(false)) {
            return Optional.empty();
        }
        writer.deleteBelow(host.root(), host.toContainer(file), file);
        Path container = host.toContainer(directory);
        if (markerIsOurs(directory)) {
            boolean onlyOurs = onlyMarkerLeft(container);
            writer.deleteBelow(host.root(), container.resolve(MARKER), directory.resolve(MARKER));
            if (onlyOurs) {
                // rmdir: a file that came in meanwhile keeps the directory.
                directories.deleteEmptyDirectoryBelow(host.root(), container, directory);
            }
        }
        return Optional.of(file);
    }

    /**
     * What the marker holds for a directory we made: its inode, which no copy of it (a backup restored, a directory
     * brought from another node) and no other directory has.
     */
    private byte[] marker(long inode)
    {
        return ("made by cni-chain for its " + type + " drop-in; removed with it\ndirectory inode " + inode + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /** Whether the plugin directory holds the marker we write for it: a marker made for another directory is not ours. */
    private boolean markerIsOurs(Path directory)
    {
        Path container = host.toContainer(directory);
        Optional<Long> inode = inode(container);
        if (inode.isEmpty()) {
            return false;
        }
        try {
            return read(directory.resolve(MARKER)).map(bytes -> Arrays.equals(bytes, marker(inode.get()))).orElse(false);
        }
        catch (CniChainException e) {
            // A FIFO, a link or an unreadable file by the marker's name is not one we wrote.
            return false;
        }
    }

    private static Optional<Long> inode(Path container)
    {
        try {
            return FileSystemCalls.get().identityOf(container).map(FileSystemCalls.Identity::inode);
        }
        catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Every plugin directory of the conf dir that holds a drop-in of ours (host paths), in name order. */
    List<Path> directoriesWithOurs()
    {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(host.toContainer(confDir))) {
            for (Path entry : stream) {
                Path ours = entry.resolve(type + DropIns.EXTENSION);
                if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS) && Files.isRegularFile(ours, LinkOption.NOFOLLOW_LINKS)) {
                    Path directory = confDir.resolve(entry.getFileName().toString());
                    if (read(file(directory)).flatMap(DropIns::pluginType).map(type::equals).orElse(false)) {
                        found.add(directory);
                    }
                }
            }
        }
        catch (IOException e) {
            // An unlistable conf dir is said by the snapshot; nothing of ours can be found in it.
        }
        found.sort(null);
        return found;
    }

    /**
     * An event in the conf dir, which the runtime watches: a file created, then removed (the removal is what containerd
     * acts on). A name of its own each time, created new (never over anything there), so that what is removed is the
     * file this call created and nobody's else.
     */
    void notifyRuntime()
    {
        Path file = confDir.resolve(RELOAD + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        Path container = host.toContainer(file);
        writer.createBelow(host.root(), container, file, new byte[0], FILE_MODE);
        writer.deleteBelow(host.root(), container, file);
    }

    private Optional<byte[]> read(Path file)
    {
        Path container = host.toContainer(file);
        if (!Files.exists(container, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        return Optional.of(reader.read(container, file));
    }

    private static boolean onlyMarkerLeft(Path directory)
    {
        try {
            byte[] marker = MARKER.getBytes(StandardCharsets.UTF_8);
            return FileSystemCalls.get().listNames(directory).stream().allMatch(name -> Arrays.equals(name.bytes(), marker));
        }
        catch (IOException e) {
            return false;
        }
    }
}
