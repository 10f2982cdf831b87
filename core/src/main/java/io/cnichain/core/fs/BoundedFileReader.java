package io.cnichain.core.fs;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;

import io.cnichain.core.fs.linux.FileSystemCalls;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Reads a regular file whole, but never more than a limit and never anything that is not a regular file
 * (opening a FIFO for reading would block the agent until someone writes to it): {@link FileSystemCalls#readRegularFile}.
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
            // Opened without following a link and without blocking, then checked on the descriptor (kernel calls),
            // or checked, then opened (the Java fallback).
            byte[] bytes = FileSystemCalls.get().readRegularFile(file, limit);
            if (bytes.length > limit) {
                throw tooLarge(reportedPath, sizeOf(file, bytes.length));
            }
            return bytes;
        }
        catch (FileSystemCalls.NotRegularFile e) {
            throw new CniChainException(ErrorCode.IO, reportedPath, "is " + e.kind() + ", not a regular file");
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

    /** Only the limit and one byte were read: the size, for the message, from the file system. */
    private static long sizeOf(Path file, long atLeast)
    {
        try {
            return Math.max(atLeast, java.nio.file.Files.size(file));
        }
        catch (IOException e) {
            return atLeast;
        }
    }

    private CniChainException tooLarge(Path reportedPath, long size)
    {
        return new CniChainException(ErrorCode.TOO_LARGE, reportedPath, "is " + size + " bytes, larger than the " + limit + "-byte limit for a CNI configuration; not read");
    }
}
