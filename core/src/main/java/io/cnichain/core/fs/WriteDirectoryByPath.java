package io.cnichain.core.fs;

import io.cnichain.core.fs.linux.FileSystemCalls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/** A {@link WriteDirectory} by its path, where the platform has no {@link SecureDirectoryStream} (not Linux). */
final class WriteDirectoryByPath
        extends WriteDirectory
{
    private final Path directory;

    WriteDirectoryByPath(Path directory)
    {
        this.directory = directory;
    }

    @Override
    Optional<PosixFileAttributes> attributes(String name)
    {
        try {
            return Optional.of(Files.readAttributes(directory.resolve(name), PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
        }
        catch (IOException e) {
            return Optional.empty();
        }
    }

    @Override
    Optional<FileSystemCalls.Status> status(String name)
    {
        return Optional.empty();
    }

    @Override
    FileChannel create(String name, Set<PosixFilePermission> permissions)
            throws IOException
    {
        return FileChannel.open(directory.resolve(name), Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                PosixFilePermissions.asFileAttribute(permissions));
    }

    @Override
    void setMode(String name, int mode)
            throws IOException
    {
        setModeByPath(directory.resolve(name), mode);
    }

    @Override
    PosixFileAttributeView view(String name)
    {
        return Files.getFileAttributeView(directory.resolve(name), PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    byte[] read(String name, long most)
            throws IOException
    {
        try (InputStream in = Files.newInputStream(directory.resolve(name))) {
            return in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, most + 1));
        }
    }

    @Override
    void rename(String from, String to)
            throws IOException
    {
        Files.move(directory.resolve(from), directory.resolve(to), StandardCopyOption.ATOMIC_MOVE);
    }

    @Override
    FileSystemCalls.CopiedAttributes copyExtendedAttributes(String from, String to)
            throws IOException
    {
        return copyUserAttributes(directory.resolve(from), directory.resolve(to));
    }

    @Override
    void renameNoReplace(String from, String to)
    {
        throw new UnsupportedOperationException("no renameat2 here");
    }

    @Override
    void exchange(String a, String b)
    {
        throw new UnsupportedOperationException("no renameat2 here");
    }

    @Override
    boolean delete(String name)
            throws IOException
    {
        return Files.deleteIfExists(directory.resolve(name));
    }

    @Override
    void sync()
            throws IOException
    {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    @Override
    public void close()
    {
        // nothing held
    }

    @Override
    public String toString()
    {
        return directory.toString();
    }
}
