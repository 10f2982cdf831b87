package io.cnichain.core.fs.linux;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * What Java 17's file API can do in place of the kernel's calls, and where it falls short: the type check and the open
 * are two steps (a FIFO swapped in between blocks the open), and names come decoded in the JVM's path encoding (a name
 * that is not valid there comes back changed).
 */
final class JavaCalls
        implements FileSystemCalls
{
    private final String reason;

    JavaCalls(String reason)
    {
        this.reason = reason;
    }

    @Override
    public String describe()
    {
        return "Java fallback (" + reason + "): a FIFO swapped in between the type check and the open can block a read or a listing,"
                + " and renames cannot refuse to replace";
    }

    @Override
    public boolean isNative()
    {
        return false;
    }

    @Override
    public byte[] readRegularFile(Path file, long limit)
            throws IOException
    {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isRegularFile()) {
            throw new NotRegularFile(file, kindOf(file));
        }
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            return in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limit + 1));
        }
    }

    @Override
    public OptionalInt modeOf(Path path)
            throws IOException
    {
        try {
            return OptionalInt.of((Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS));
        }
        catch (NoSuchFileException | NotDirectoryException e) {
            return OptionalInt.empty();
        }
    }

    @Override
    public Optional<Identity> identityOf(Path path)
            throws IOException
    {
        try {
            Map<String, Object> attributes = Files.readAttributes(path, "unix:dev,ino,size,lastModifiedTime,ctime", LinkOption.NOFOLLOW_LINKS);
            return Optional.of(new Identity((Long) attributes.get("dev"), (Long) attributes.get("ino"), (Long) attributes.get("size"),
                    nanos(attributes.get("lastModifiedTime")), nanos(attributes.get("ctime"))));
        }
        catch (NoSuchFileException | NotDirectoryException e) {
            return Optional.empty();
        }
    }

    private static long nanos(Object time)
    {
        return ((FileTime) time).to(TimeUnit.NANOSECONDS);
    }

    @Override
    public List<EntryName> listNames(Path directory)
            throws IOException
    {
        // Java opens a directory to list it without O_DIRECTORY, and the open of a FIFO blocks until a writer comes: the
        // kind is checked first (links followed, as O_DIRECTORY follows them), which leaves the window between the two.
        if (!Files.readAttributes(directory, BasicFileAttributes.class).isDirectory()) {
            throw new NotDirectoryException(directory.toString());
        }
        List<EntryName> names = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
            for (Path path : stream) {
                Path name = path.getFileName();
                byte[] decoded = name.toString().getBytes(PathNames.ENCODING);
                // A path keeps the kernel's bytes and compares by them: a name that decoding changed differs from the
                // path made of its decoded form.
                names.add(new EntryName(decoded, PathNames.toPath(directory, decoded).map(p -> p.equals(path)).orElse(false)));
            }
        }
        return names;
    }

    @Override
    public Optional<Directory> openDirectory(Path base, Path relative)
    {
        return Optional.empty();
    }

    private static String kindOf(Path file)
    {
        try {
            return FileSystemCalls.kindOf((Integer) Files.getAttribute(file, "unix:mode", LinkOption.NOFOLLOW_LINKS));
        }
        catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return "not a regular file";
        }
    }
}
