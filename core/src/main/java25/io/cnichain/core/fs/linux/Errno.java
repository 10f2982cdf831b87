package io.cnichain.core.fs.linux;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

/** The kernel's error numbers the calls look at, and what each becomes: a name for messages, or Java's exception. */
final class Errno
{
    static final int EPERM = 1, ENOENT = 2, E2BIG = 7, EINTR = 4, ENXIO = 6, EACCES = 13, EBUSY = 16, EEXIST = 17, EXDEV = 18,
            ENOTDIR = 20, EINVAL = 22, ENOSPC = 28, EROFS = 30, ERANGE = 34, ENOSYS = 38, ELOOP = 40, ENODATA = 61, EOPNOTSUPP = 95,
            EDQUOT = 122;

    private Errno() {}

    static UnsupportedOperationException refused(String call, int errno)
    {
        return new UnsupportedOperationException(call + " refused (" + name(errno) + "; a kernel before 5.6 or a seccomp profile)");
    }

    /** The exceptions and messages Java's own file calls give for the same errors. */
    static IOException failure(String call, Path path, int errno)
    {
        return switch (errno) {
            case ENOENT -> new NoSuchFileException(path.toString());
            case EACCES -> new AccessDeniedException(path.toString());
            case EPERM -> new FileSystemException(path.toString(), null, "Operation not permitted");
            case EEXIST -> new FileAlreadyExistsException(path.toString());
            case ENOTDIR -> new NotDirectoryException(path.toString());
            case ENOSPC -> new FileSystemException(path.toString(), null, "No space left on device");
            case EROFS -> new FileSystemException(path.toString(), null, "Read-only file system");
            case EBUSY -> new FileSystemException(path.toString(), null, "Device or resource busy");
            default -> new FileSystemException(path.toString(), null, call + ": " + name(errno));
        };
    }

    static String name(int errno)
    {
        return switch (errno) {
            case EPERM -> "EPERM: not permitted";
            case ENOENT -> "ENOENT";
            case ENXIO -> "ENXIO";
            case EACCES -> "EACCES: permission denied";
            case EEXIST -> "EEXIST";
            case EXDEV -> "EXDEV";
            case ENOTDIR -> "ENOTDIR";
            case EINVAL -> "EINVAL";
            case ENOSYS -> "ENOSYS";
            case ELOOP -> "ELOOP";
            case EOPNOTSUPP -> "EOPNOTSUPP: not supported by this file system";
            case E2BIG -> "E2BIG";
            case ERANGE -> "ERANGE";
            case ENOSPC -> "ENOSPC: no space for it";
            case EDQUOT -> "EDQUOT: over quota";
            case EROFS -> "EROFS";
            default -> "errno " + errno;
        };
    }
}
