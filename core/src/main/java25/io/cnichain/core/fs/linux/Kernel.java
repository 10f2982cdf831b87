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
import java.nio.file.Path;

import static io.cnichain.core.fs.linux.Errno.EINTR;
import static io.cnichain.core.fs.linux.Errno.ELOOP;
import static io.cnichain.core.fs.linux.Errno.ENXIO;
import static io.cnichain.core.fs.linux.Errno.failure;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The system calls themselves, all through libc's {@code syscall}: one downcall stub for every call, since each
 * distinct C signature costs the JVM a stub and its method-handle classes to link. The structures the kernel fills
 * or reads are described by memory layouts ({@link Statx}); the flags and numbers are the kernel's ({@link Architecture},
 * {@link Errno}).
 */
final class Kernel
{
    static final int AT_FDCWD = -100;
    static final int AT_EMPTY_PATH = 0x1000;
    static final int AT_SYMLINK_NOFOLLOW = 0x100;
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

    /** The kernel's limits on the list of attribute names and on one value (XATTR_LIST_MAX, XATTR_SIZE_MAX). */
    static final int XATTR_LIST_MAX = 65536, XATTR_SIZE_MAX = 65536;

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

    /**
     * @param mask the fields to fill in ({@link Statx#TYPE_MODE}, ...)
     * @return the structure {@code statx} filled in; null with errno set
     */
    private MemorySegment statx(Arena arena, MemorySegment state, int dirFd, MemorySegment path, int flags, int mask)
            throws Throwable
    {
        MemorySegment stat = arena.allocate(Statx.LAYOUT);
        return (int) sys(state, arch.statx, dirFd, path.address(), flags, mask, stat.address()) == 0 ? stat : null;
    }

    /** @return what {@code statx} says of an open descriptor, the fields of {@code mask} filled in; null with errno set */
    private MemorySegment statOf(Arena arena, MemorySegment state, int fd, int mask)
            throws Throwable
    {
        return statx(arena, state, fd, arena.allocateFrom(""), AT_EMPTY_PATH, mask);
    }

    /** @return the file type and permission bits of an open descriptor, or -1 with errno set */
    int mode(Arena arena, MemorySegment state, int fd)
            throws Throwable
    {
        MemorySegment stat = statOf(arena, state, fd, Statx.TYPE_MODE);
        return stat == null ? -1 : Statx.mode(stat);
    }

    /** @return the file type and permission bits of a path, its final link not followed, or -1 with errno set */
    int lstatMode(Arena arena, MemorySegment state, MemorySegment path)
            throws Throwable
    {
        MemorySegment stat = statx(arena, state, AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, Statx.TYPE_MODE);
        return stat == null ? -1 : Statx.mode(stat);
    }

    /**
     * @return the mode, link count, owner and group of an entry of a directory, a link not followed; null with errno set
     */
    FileSystemCalls.Status status(Arena arena, MemorySegment state, int dirFd, MemorySegment name)
            throws Throwable
    {
        MemorySegment stat = statx(arena, state, dirFd, name, AT_SYMLINK_NOFOLLOW, Statx.STATUS);
        return stat == null ? null : Statx.status(stat);
    }

    /**
     * @return the device, inode, size and times of a path, a link not followed ({@link FileSystemCalls#identityOf}); null
     *         with errno set
     */
    FileSystemCalls.Identity identity(Arena arena, MemorySegment state, MemorySegment path)
            throws Throwable
    {
        MemorySegment stat = statx(arena, state, AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, Statx.IDENTITY);
        return stat == null ? null : Statx.identity(stat);
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

    /**
     * Sets a regular file's mode, set-id bits included ({@link FileSystemCalls.Directory#setMode}): opened without
     * following a link and without blocking, checked on the descriptor, changed by it.
     *
     * @param file the file, for errors
     */
    void setMode(Arena arena, MemorySegment state, int dirFd, MemorySegment name, Path file, int mode)
            throws Throwable
    {
        int fd = openat(state, dirFd, name, O_RDONLY | arch.oNoFollow | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            int error = errno(state);
            throw error == ELOOP ? new FileSystemCalls.NotRegularFile(file, "a symbolic link") : failure("open", file, error);
        }
        try {
            MemorySegment stat = statOf(arena, state, fd, Statx.TYPE_MODE);
            if (stat == null) {
                throw failure("statx", file, errno(state));
            }
            if (!FileSystemCalls.isRegularFile(Statx.mode(stat))) {
                throw new FileSystemCalls.NotRegularFile(file, FileSystemCalls.kindOf(Statx.mode(stat)));
            }
            if (sys(state, arch.fchmod, fd, mode, 0, 0, 0) != 0) {
                throw failure("fchmod", file, errno(state));
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
            MemorySegment stat = statOf(arena, state, fd, Statx.TYPE_MODE | Statx.SIZE);
            if (stat == null) {
                throw failure("statx", file, errno(state));
            }
            int mode = Statx.mode(stat);
            if (!FileSystemCalls.isRegularFile(mode)) {
                throw new FileSystemCalls.NotRegularFile(file, FileSystemCalls.kindOf(mode));
            }
            return readAll(state, arena, fd, file, limit + 1, Statx.size(stat) + 1);
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
        // No larger than the file, nor than asked: each byte allocated is zeroed first, and a configuration is a few
        // hundred bytes. At least a page: a file may grow, and some report no size.
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
}
