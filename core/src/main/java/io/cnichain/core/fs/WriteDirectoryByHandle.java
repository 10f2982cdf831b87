package io.cnichain.core.fs;

import io.cnichain.core.fs.linux.FileSystemCalls;

import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/**
 * A {@link WriteDirectory} held open: by the kernel's descriptor where the native calls run, and by a
 * {@link SecureDirectoryStream} for what only Java's file API does (owners by name) and where there are no native calls.
 * With the descriptor, the stream is opened only when one of those is asked for, which most writes never do.
 */
final class WriteDirectoryByHandle
        extends WriteDirectory
{
    private final Optional<FileSystemCalls.Directory> held;
    private final Path directory;
    private final StreamOpener opener;
    private SecureDirectoryStream<Path> handle;

    /** The directory held by a stream, and by the kernel's descriptor when there is one. */
    WriteDirectoryByHandle(SecureDirectoryStream<Path> handle, Optional<FileSystemCalls.Directory> held, Path directory)
    {
        this.handle = handle;
        this.held = held;
        this.directory = directory;
        this.opener = () -> handle;
    }

    /** The directory held by the kernel's descriptor; the stream opened when first asked for. */
    WriteDirectoryByHandle(StreamOpener opener, FileSystemCalls.Directory held, Path directory)
    {
        this.held = Optional.of(held);
        this.directory = directory;
        this.opener = opener;
    }

    /** Opens the stream on the same directory, reached as the descriptor was (no link followed). */
    @FunctionalInterface
    interface StreamOpener
    {
        SecureDirectoryStream<Path> open()
                throws IOException;
    }

    private SecureDirectoryStream<Path> stream()
            throws IOException
    {
        if (handle == null) {
            handle = opener.open();
        }
        return handle;
    }

    @Override
    void renameNoReplace(String from, String to)
            throws IOException
    {
        held().renameNoReplace(from, to);
    }

    @Override
    void exchange(String a, String b)
            throws IOException
    {
        held().exchange(a, b);
    }

    /** @throws UnsupportedOperationException where only the Java fallback holds the directory */
    private FileSystemCalls.Directory held()
    {
        return held.orElseThrow(() -> new UnsupportedOperationException("no renameat2 here"));
    }

    @Override
    FileSystemCalls.CopiedAttributes copyExtendedAttributes(String from, String to)
            throws IOException
    {
        if (held.isPresent()) {
            return held.get().copyExtendedAttributes(from, to);
        }
        return copyUserAttributes(directory.resolve(from), directory.resolve(to));
    }

    @Override
    Optional<FileSystemCalls.Status> status(String name)
            throws IOException
    {
        return held.isPresent() ? held.get().status(name) : Optional.empty();
    }

    @Override
    Optional<Replaced> replaced(String name)
            throws IOException
    {
        if (held.isPresent()) {
            return held.get().status(name).map(Replaced::of);
        }
        return super.replaced(name);
    }

    @Override
    Optional<PosixFileAttributes> attributes(String name)
    {
        try {
            return Optional.of(view(name).readAttributes());
        }
        catch (IOException e) {
            return Optional.empty();
        }
    }

    @Override
    FileChannel create(String name, Set<PosixFilePermission> permissions)
            throws IOException
    {
        return (FileChannel) stream().newByteChannel(Path.of(name), Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(permissions));
    }

    @Override
    void createSynced(String name, Set<PosixFilePermission> permissions, byte[] content)
            throws IOException
    {
        if (held.isPresent()) {
            held.get().createSynced(name, FileMode.bits(permissions), content);
        }
        else {
            super.createSynced(name, permissions, content);
        }
    }

    @Override
    void setMode(String name, int mode)
            throws IOException
    {
        if (held.isPresent()) {
            held.get().setMode(name, mode);
        }
        else {
            setModeByPath(directory.resolve(name), mode);
        }
    }

    @Override
    PosixFileAttributeView view(String name)
            throws IOException
    {
        return stream().getFileAttributeView(Path.of(name), PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    byte[] read(String name, long most)
            throws IOException
    {
        if (held.isPresent()) {
            return held.get().readRegularFile(name, most);
        }
        try (SeekableByteChannel channel = stream().newByteChannel(Path.of(name), Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
            return Channels.newInputStream(channel).readNBytes((int) Math.min(Integer.MAX_VALUE - 8, most + 1));
        }
    }

    @Override
    void rename(String from, String to)
            throws IOException
    {
        if (held.isPresent()) {
            held.get().replace(from, to);
            return;
        }
        handle.move(Path.of(from), handle, Path.of(to));
    }

    @Override
    boolean delete(String name)
            throws IOException
    {
        if (held.isPresent()) {
            return held.get().delete(name);
        }
        try {
            handle.deleteFile(Path.of(name));
            return true;
        }
        catch (NoSuchFileException e) {
            return false;
        }
    }

    @Override
    void sync()
            throws IOException
    {
        if (held.isPresent()) {
            held.get().sync();
            return;
        }
        try (FileChannel channel = (FileChannel) handle.newByteChannel(Path.of("."), Set.of(StandardOpenOption.READ))) {
            channel.force(true);
        }
    }

    @Override
    public void close()
            throws IOException
    {
        try {
            if (handle != null) {
                handle.close();
            }
        }
        finally {
            if (held.isPresent()) {
                held.get().close();
            }
        }
    }

    @Override
    public String toString()
    {
        return directory.toString();
    }
}
