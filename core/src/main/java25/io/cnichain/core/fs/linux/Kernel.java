package io.cnichain.core.fs.linux;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The system calls themselves, all through libc's {@code syscall}: one downcall stub for every call, since each
 * distinct C signature costs the JVM a stub and its method-handle classes to link. The structures the kernel fills
 * or reads are described by memory layouts; the flags and numbers are the kernel's.
 */
final class Kernel
{
    static final int AT_FDCWD = -100;
    static final int AT_EMPTY_PATH = 0x1000;
    static final int AT_SYMLINK_NOFOLLOW = 0x100;
    static final int STATX_TYPE_MODE = 0x0001 | 0x0002;
    static final int O_RDONLY = 0;
    static final int O_WRONLY = 1;
    static final int O_CREAT = 0100;
    static final int O_EXCL = 0200;
    static final int O_NONBLOCK = 04000;
    static final int O_CLOEXEC = 02000000;
    static final long RESOLVE_NO_MAGICLINKS = 0x02;
    static final long RESOLVE_NO_SYMLINKS = 0x04;
    static final long RESOLVE_BENEATH = 0x08;
    static final int RENAME_NOREPLACE = 1;
    static final int RENAME_EXCHANGE = 2;
    /** The same number on x86_64 and aarch64. */
    static final long SYS_OPENAT2 = 437;

    static final int EPERM = 1, ENOENT = 2, E2BIG = 7, EINTR = 4, ENXIO = 6, EACCES = 13, EBUSY = 16, EEXIST = 17, EXDEV = 18,
            ENOTDIR = 20, EINVAL = 22, ENOSPC = 28, EROFS = 30, ERANGE = 34, ENOSYS = 38, ELOOP = 40, ENODATA = 61, EOPNOTSUPP = 95,
            EDQUOT = 122;
    /** The kernel's limits on the list of attribute names and on one value (XATTR_LIST_MAX, XATTR_SIZE_MAX). */
    static final int XATTR_LIST_MAX = 65536, XATTR_SIZE_MAX = 65536;

    /** {@code struct statx}, up to the fields read; the same on every architecture. */
    static final StructLayout STATX = MemoryLayout.structLayout(
            JAVA_INT.withName("stx_mask"), JAVA_INT.withName("stx_blksize"), JAVA_LONG.withName("stx_attributes"),
            JAVA_INT.withName("stx_nlink"), JAVA_INT.withName("stx_uid"), JAVA_INT.withName("stx_gid"),
            JAVA_SHORT.withName("stx_mode"), MemoryLayout.paddingLayout(2), JAVA_LONG.withName("stx_ino"), JAVA_LONG.withName("stx_size"),
            JAVA_LONG.withName("stx_blocks"), JAVA_LONG.withName("stx_attributes_mask"),
            // stx_atime and stx_btime, then stx_ctime and stx_mtime: each a struct statx_timestamp (seconds, nanoseconds, padding).
            MemoryLayout.paddingLayout(32),
            JAVA_LONG.withName("stx_ctime_sec"), JAVA_INT.withName("stx_ctime_nsec"), MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("stx_mtime_sec"), JAVA_INT.withName("stx_mtime_nsec"), MemoryLayout.paddingLayout(4),
            JAVA_INT.withName("stx_rdev_major"), JAVA_INT.withName("stx_rdev_minor"), JAVA_INT.withName("stx_dev_major"),
            JAVA_INT.withName("stx_dev_minor"), MemoryLayout.paddingLayout(112));
    static final VarHandle STX_MODE = STATX.varHandle(groupElement("stx_mode"));
    /** statx's mask for the fields {@link #status} reads: type, mode, link count, owner and group. */
    static final int STATX_STATUS = STATX_TYPE_MODE | 0x0004 | 0x0008 | 0x0010;
    // Plain reads at these offsets: a var handle for each field would be more to link at start.
    private static final long STX_NLINK_AT = STATX.byteOffset(groupElement("stx_nlink"));
    private static final long STX_UID_AT = STATX.byteOffset(groupElement("stx_uid"));
    private static final long STX_GID_AT = STATX.byteOffset(groupElement("stx_gid"));
    private static final long STX_MODE_AT = STATX.byteOffset(groupElement("stx_mode"));
    private static final long STX_INO_AT = STATX.byteOffset(groupElement("stx_ino"));
    private static final long STX_SIZE_AT = STATX.byteOffset(groupElement("stx_size"));
    private static final long STX_CTIME_SEC_AT = STATX.byteOffset(groupElement("stx_ctime_sec"));
    private static final long STX_CTIME_NSEC_AT = STATX.byteOffset(groupElement("stx_ctime_nsec"));
    private static final long STX_MTIME_SEC_AT = STATX.byteOffset(groupElement("stx_mtime_sec"));
    private static final long STX_MTIME_NSEC_AT = STATX.byteOffset(groupElement("stx_mtime_nsec"));
    private static final long STX_DEV_MAJOR_AT = STATX.byteOffset(groupElement("stx_dev_major"));
    private static final long STX_DEV_MINOR_AT = STATX.byteOffset(groupElement("stx_dev_minor"));
    /** statx's mask for the fields {@link #identity} reads: inode, size, change and modification times (the device always comes). */
    static final int STATX_IDENTITY = 0x0100 | 0x0200 | 0x0080 | 0x0040;
    /** statx's mask bit for {@code stx_size}. */
    static final int STATX_SIZE = 0x0200;
    /** {@code struct linux_dirent64}'s fixed part; the name follows it, NUL-terminated, within {@code d_reclen}. */
    static final StructLayout DIRENT64 = MemoryLayout.structLayout(
            JAVA_LONG.withName("d_ino"), JAVA_LONG.withName("d_off"), JAVA_SHORT.withName("d_reclen"), JAVA_BYTE.withName("d_type"));
    static final VarHandle D_RECLEN = DIRENT64.varHandle(groupElement("d_reclen"));
    /** {@code struct open_how}, openat2's argument. */
    static final StructLayout OPEN_HOW = MemoryLayout.structLayout(JAVA_LONG.withName("flags"), JAVA_LONG.withName("mode"), JAVA_LONG.withName("resolve"));

    static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(groupElement("errno"));

    final Architecture arch;
    /** libc's {@code syscall(long number, ...)}, with five arguments, pointers passed by address. */
    private final MethodHandle syscall;

    Kernel(Architecture arch)
    {
        this.arch = arch;
        Linker linker = Linker.nativeLinker();
        MemorySegment symbol = linker.defaultLookup().find("syscall").orElseThrow(() -> new UnsupportedOperationException("libc has no syscall"));
        syscall = linker.downcallHandle(symbol, FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                Linker.Option.captureCallState("errno"), Linker.Option.firstVariadicArg(1));
    }

    long sys(MemorySegment state, long number, long a, long b, long c, long d, long e)
            throws Throwable
    {
        return (long) syscall.invokeExact(state, number, a, b, c, d, e);
    }

    int openat(MemorySegment state, int dirFd, MemorySegment path, int flags)
            throws Throwable
    {
        return openat(state, dirFd, path, flags, 0);
    }

    int openat(MemorySegment state, int dirFd, MemorySegment path, int flags, int mode)
            throws Throwable
    {
        return (int) sys(state, arch.openat, dirFd, path.address(), flags, mode, 0);
    }

    /** openat2 with RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS and RESOLVE_NO_MAGICLINKS: a directory below, no link followed. */
    int openDirectoryBeneath(Arena arena, MemorySegment state, int dirFd, String path)
            throws Throwable
    {
        MemorySegment how = arena.allocate(OPEN_HOW);
        how.set(JAVA_LONG, OPEN_HOW.byteOffset(groupElement("flags")), O_RDONLY | arch.oDirectory | O_CLOEXEC);
        how.set(JAVA_LONG, OPEN_HOW.byteOffset(groupElement("resolve")), RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
        return (int) sys(state, SYS_OPENAT2, dirFd, arena.allocateFrom(path).address(), how.address(), how.byteSize(), 0);
    }

    int statx(MemorySegment state, int dirFd, MemorySegment path, int flags, int mask, MemorySegment buffer)
            throws Throwable
    {
        return (int) sys(state, arch.statx, dirFd, path.address(), flags, mask, buffer.address());
    }

    /** @return the file type and permission bits of an open descriptor, or -1 with errno set */
    int mode(Arena arena, MemorySegment state, int fd)
            throws Throwable
    {
        MemorySegment stat = statOf(arena, state, fd, STATX_TYPE_MODE);
        return stat == null ? -1 : Short.toUnsignedInt(stat.get(JAVA_SHORT, STX_MODE_AT));
    }

    /** @return what {@code statx} says of an open descriptor, the fields of {@code mask} filled in; null with errno set */
    private MemorySegment statOf(Arena arena, MemorySegment state, int fd, int mask)
            throws Throwable
    {
        MemorySegment stat = arena.allocate(STATX);
        return statx(state, fd, arena.allocateFrom(""), AT_EMPTY_PATH, mask, stat) == 0 ? stat : null;
    }

    /** @return the file type and permission bits of a path, its final link not followed, or -1 with errno set */
    int lstatMode(Arena arena, MemorySegment state, MemorySegment path)
            throws Throwable
    {
        MemorySegment stat = arena.allocate(STATX);
        if (statx(state, AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_TYPE_MODE, stat) != 0) {
            return -1;
        }
        return Short.toUnsignedInt((short) STX_MODE.get(stat, 0L));
    }

    /**
     * @return the mode, link count, owner and group of an entry of a directory, a link not followed; null with errno set
     */
    FileSystemCalls.Status status(Arena arena, MemorySegment state, int dirFd, MemorySegment name)
            throws Throwable
    {
        MemorySegment stat = arena.allocate(STATX);
        if (statx(state, dirFd, name, AT_SYMLINK_NOFOLLOW, STATX_STATUS, stat) != 0) {
            return null;
        }
        return new FileSystemCalls.Status(Short.toUnsignedInt(stat.get(JAVA_SHORT, STX_MODE_AT)), stat.get(JAVA_INT, STX_NLINK_AT),
                stat.get(JAVA_INT, STX_UID_AT), stat.get(JAVA_INT, STX_GID_AT));
    }

    /**
     * @return the device, inode, size and times of a path, a link not followed ({@link FileSystemCalls#identityOf}); null
     *         with errno set
     */
    FileSystemCalls.Identity identity(Arena arena, MemorySegment state, MemorySegment path)
            throws Throwable
    {
        MemorySegment stat = arena.allocate(STATX);
        if (statx(state, AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_IDENTITY, stat) != 0) {
            return null;
        }
        long major = Integer.toUnsignedLong(stat.get(JAVA_INT, STX_DEV_MAJOR_AT));
        long minor = Integer.toUnsignedLong(stat.get(JAVA_INT, STX_DEV_MINOR_AT));
        // st_dev as glibc's makedev() makes it, so that the Java fallback (which reads st_dev) agrees.
        long device = (major & 0xfffff000L) << 32 | (major & 0xfffL) << 8 | (minor & 0xffffff00L) << 12 | minor & 0xffL;
        return new FileSystemCalls.Identity(device, stat.get(JAVA_LONG, STX_INO_AT), stat.get(JAVA_LONG, STX_SIZE_AT),
                nanos(stat, STX_MTIME_SEC_AT, STX_MTIME_NSEC_AT), nanos(stat, STX_CTIME_SEC_AT, STX_CTIME_NSEC_AT));
    }

    private static long nanos(MemorySegment stat, long secondsAt, long nanosAt)
    {
        return stat.get(JAVA_LONG, secondsAt) * 1_000_000_000L + Integer.toUnsignedLong(stat.get(JAVA_INT, nanosAt));
    }

    /**
     * Creates a new regular file in a directory (never through a link, never over an existing entry), writes the content
     * whole, syncs it and closes it ({@link FileSystemCalls.Directory#createSynced}).
     *
     * @param file the file, for errors
     */
    void createSynced(Arena arena, MemorySegment state, int dirFd, MemorySegment name, Path file, int mode, byte[] content)
            throws Throwable
    {
        int fd = openat(state, dirFd, name, O_WRONLY | O_CREAT | O_EXCL | arch.oNoFollow | O_CLOEXEC, mode);
        if (fd < 0) {
            throw failure("open", file, errno(state));
        }
        try {
            MemorySegment bytes = arena.allocateFrom(JAVA_BYTE, content);
            for (long done = 0; done < content.length; ) {
                long n = sys(state, arch.write, fd, bytes.address() + done, content.length - done, 0, 0);
                if (n < 0) {
                    int error = errno(state);
                    if (error == EINTR) {
                        continue;
                    }
                    throw failure("write", file, error);
                }
                done += n;
            }
            if (fsync(state, fd) != 0) {
                throw failure("fsync", file, errno(state));
            }
        }
        finally {
            int ignored = close(state, fd);
        }
    }

    /** @return 0, or -1 with errno set */
    int unlinkat(MemorySegment state, int dirFd, MemorySegment name)
            throws Throwable
    {
        return (int) sys(state, arch.unlinkat, dirFd, name.address(), 0, 0, 0);
    }

    /** @return 0, or -1 with errno set (EINTR retried) */
    int fsync(MemorySegment state, int fd)
            throws Throwable
    {
        int result;
        do {
            result = (int) sys(state, arch.fsync, fd, 0, 0, 0, 0);
        }
        while (result != 0 && errno(state) == EINTR);
        return result;
    }

    long read(MemorySegment state, int fd, MemorySegment buffer, long count)
            throws Throwable
    {
        return sys(state, arch.read, fd, buffer.address(), count, 0, 0);
    }

    int close(MemorySegment state, int fd)
            throws Throwable
    {
        return (int) sys(state, arch.close, fd, 0, 0, 0, 0);
    }

    int renameat2(MemorySegment state, int fromDir, MemorySegment from, int toDir, MemorySegment to, int flags)
            throws Throwable
    {
        return (int) sys(state, arch.renameat2, fromDir, from.address(), toDir, to.address(), flags);
    }

    long getdents64(MemorySegment state, int fd, MemorySegment buffer, long count)
            throws Throwable
    {
        return sys(state, arch.getdents64, fd, buffer.address(), count, 0, 0);
    }

    /** @param names where the names go; {@link MemorySegment#NULL} asks for the size of the list alone */
    long flistxattr(MemorySegment state, int fd, MemorySegment names)
            throws Throwable
    {
        return sys(state, arch.flistxattr, fd, names.address(), names.byteSize(), 0, 0);
    }

    long fgetxattr(MemorySegment state, int fd, MemorySegment name, MemorySegment value)
            throws Throwable
    {
        return sys(state, arch.fgetxattr, fd, name.address(), value.address(), value.byteSize(), 0);
    }

    long fsetxattr(MemorySegment state, int fd, MemorySegment name, MemorySegment value, long size)
            throws Throwable
    {
        return sys(state, arch.fsetxattr, fd, name.address(), value.address(), size, 0);
    }

    /**
     * Reads a regular file whole ({@link FileSystemCalls#readRegularFile}): opened without following a link and without
     * blocking, then checked on the opened descriptor.
     *
     * @param dirFd the directory {@code name} is relative to ({@link #AT_FDCWD}: the working directory, for a path)
     * @param file  the file, for errors
     * @return at most {@code limit + 1} bytes
     */
    byte[] readRegularFile(Arena arena, MemorySegment state, int dirFd, MemorySegment name, Path file, long limit)
            throws Throwable
    {
        // O_NOFOLLOW makes a final link fail with ELOOP; O_NONBLOCK makes a FIFO's open return at once.
        int fd = openat(state, dirFd, name, O_RDONLY | arch.oNoFollow | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            int error = errno(state);
            if (error == ELOOP) {
                throw new FileSystemCalls.NotRegularFile(file, "a symbolic link");
            }
            if (error == ENXIO) {
                throw new FileSystemCalls.NotRegularFile(file, "a socket or a device without a driver");
            }
            throw failure("open", file, error);
        }
        try {
            MemorySegment stat = statOf(arena, state, fd, STATX_TYPE_MODE | STATX_SIZE);
            if (stat == null) {
                throw failure("statx", file, errno(state));
            }
            int mode = Short.toUnsignedInt(stat.get(JAVA_SHORT, STX_MODE_AT));
            if (!FileSystemCalls.isRegularFile(mode)) {
                throw new FileSystemCalls.NotRegularFile(file, FileSystemCalls.kindOf(mode));
            }
            return readAll(state, arena, fd, file, limit + 1, stat.get(JAVA_LONG, STX_SIZE_AT) + 1);
        }
        finally {
            int ignored = close(state, fd);
        }
    }

    /**
     * Reads up to {@code most} bytes from a descriptor.
     *
     * @param expected how many bytes the file holds by its size (one more, to see its end), which sizes the buffer
     */
    byte[] readAll(MemorySegment state, Arena arena, int fd, Path file, long most, long expected)
            throws Throwable
    {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // No larger than the file, nor than asked: each byte allocated is zeroed first, and a configuration of a few
        // hundred bytes was read through 64 KiB. At least a page: a file may grow, and some report no size.
        MemorySegment buffer = arena.allocate(Math.min(Math.min(64 * 1024, most), Math.max(4096, expected)), 8);
        while (out.size() < most) {
            long n = read(state, fd, buffer, Math.min(buffer.byteSize(), most - out.size()));
            if (n < 0) {
                int error = errno(state);
                if (error == EINTR) {
                    continue;
                }
                throw failure("read", file, error);
            }
            if (n == 0) {
                break;
            }
            out.write(buffer.asSlice(0, n).toArray(JAVA_BYTE), 0, (int) n);
        }
        return out.toByteArray();
    }

    /** One use of the calls: an arena for its memory and a segment for errno, both freed when it ends. */
    @FunctionalInterface
    interface Call<T>
    {
        T run(Arena arena, MemorySegment state)
                throws Throwable;
    }

    static <T> T call(Call<T> body)
            throws IOException
    {
        try (Arena arena = Arena.ofConfined()) {
            return body.run(arena, arena.allocate(CAPTURE));
        }
        catch (IOException | RuntimeException | Error e) {
            throw e;
        }
        catch (Throwable e) {
            // The downcall handles declare Throwable; a checked exception other than an IOException is a bug.
            throw new IllegalStateException(e);
        }
    }

    static byte[] cString(MemorySegment segment)
    {
        long length = 0;
        while (length < segment.byteSize() && segment.get(JAVA_BYTE, length) != 0) {
            length++;
        }
        return segment.asSlice(0, length).toArray(JAVA_BYTE);
    }

    static int errno(MemorySegment state)
    {
        return (int) ERRNO.get(state, 0L);
    }

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

    /** The open flags and the system call numbers, which differ between architectures. */
    enum Architecture
    {
        X86_64(0200000, 0400000, 257, 332, 0, 1, 74, 3, 316, 263, 217, 196, 193, 190),
        AARCH64(040000, 0100000, 56, 291, 63, 64, 82, 57, 276, 35, 61, 13, 10, 7);

        final int oDirectory;
        final int oNoFollow;
        final long openat;
        final long statx;
        final long read;
        final long write;
        final long fsync;
        final long close;
        final long renameat2;
        final long unlinkat;
        final long getdents64;
        final long flistxattr;
        final long fgetxattr;
        final long fsetxattr;

        Architecture(int oDirectory, int oNoFollow, long openat, long statx, long read, long write, long fsync, long close, long renameat2,
                long unlinkat, long getdents64, long flistxattr, long fgetxattr, long fsetxattr)
        {
            this.oDirectory = oDirectory;
            this.oNoFollow = oNoFollow;
            this.openat = openat;
            this.statx = statx;
            this.read = read;
            this.write = write;
            this.fsync = fsync;
            this.close = close;
            this.renameat2 = renameat2;
            this.unlinkat = unlinkat;
            this.getdents64 = getdents64;
            this.flistxattr = flistxattr;
            this.fgetxattr = fgetxattr;
            this.fsetxattr = fsetxattr;
        }

        static Architecture current()
        {
            return switch (System.getProperty("os.arch")) {
                case "amd64", "x86_64" -> X86_64;
                case "aarch64", "arm64" -> AARCH64;
                default -> throw new UnsupportedOperationException("no open flags known for " + System.getProperty("os.arch"));
            };
        }
    }
}
