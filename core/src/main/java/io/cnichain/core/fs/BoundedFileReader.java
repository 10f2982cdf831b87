package io.cnichain.core.fs;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Reads a regular file whole, but never more than a limit and never anything that is not a regular file
 * (opening a FIFO for reading would block the agent until someone writes to it).
 */
public final class BoundedFileReader
{
    /** Real CNI configurations are a few kilobytes; anything over this is not one. */
    public static final long DEFAULT_LIMIT = 1024 * 1024;

    private final long limit;

    public BoundedFileReader(long limit)
    {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive: " + limit);
        }
        this.limit = limit;
    }

    public long limit()
    {
        return limit;
    }

    /**
     * @param file         the file to read, as the agent sees it
     * @param reportedPath the path to name in errors (the host path)
     * @return the bytes
     * @throws CniChainException {@link ErrorCode#TOO_LARGE} over the limit, {@link ErrorCode#IO} when the file
     *                           is missing, unreadable or not a regular file
     */
    public byte[] read(Path file, Path reportedPath)
    {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isRegularFile()) {
                throw new CniChainException(ErrorCode.IO, reportedPath, "is " + (attributes.isDirectory() ? "a directory" : FileKinds.describe(file)) + ", not a regular file");
            }
            if (attributes.size() > limit) {
                throw tooLarge(reportedPath, attributes.size());
            }
            try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                // The file may grow between the size check and the read: read at most one byte past the limit.
                byte[] bytes = in.readNBytes((int) limit + 1);
                if (bytes.length > limit) {
                    throw tooLarge(reportedPath, bytes.length);
                }
                return bytes;
            }
        }
        catch (java.nio.file.NoSuchFileException e) {
            throw new CniChainException(ErrorCode.IO, reportedPath, "does not exist");
        }
        catch (java.nio.file.AccessDeniedException e) {
            throw new CniChainException(ErrorCode.IO, reportedPath, "cannot be read: permission denied");
        }
        catch (IOException e) {
            throw new CniChainException(ErrorCode.IO, reportedPath, "cannot be read: " + e.getMessage(), e);
        }
    }

    private CniChainException tooLarge(Path reportedPath, long size)
    {
        return new CniChainException(ErrorCode.TOO_LARGE, reportedPath, "is " + size + " bytes, larger than the " + limit + "-byte limit for a CNI configuration; not read");
    }
}
