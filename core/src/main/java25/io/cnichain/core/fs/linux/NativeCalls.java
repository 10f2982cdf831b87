package io.cnichain.core.fs.linux;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The kernel's calls through the Foreign Function &amp; Memory API, all through libc's {@code syscall} (one downcall
 * stub for them all). Compiled for Java 25 only; {@link Selection} loads it reflectively.
 * <p>
 * {@link #load()} tries each call once: a kernel or a seccomp profile that refuses one ({@code ENOSYS},
 * {@code EPERM}) makes the whole layer fall back, with the reason, rather than half of it.
 */
public final class NativeCalls
        implements FileSystemCalls
{
    private static final int AT_FDCWD = -100;
    private static final int AT_EMPTY_PATH = 0x1000;
    private static final int AT_SYMLINK_NOFOLLOW = 0x100;
    private static final int STATX_TYPE_MODE_SIZE = 0x0001 | 0x0002 | 0x0200;
    private static final int O_RDONLY = 0;
    private static final int O_NONBLOCK = 04000;
    private static final int O_CLOEXEC = 02000000;
    private static final long RESOLVE_NO_MAGICLINKS = 0x02;
    private static final long RESOLVE_NO_SYMLINKS = 0x04;
    private static final long RESOLVE_BENEATH = 0x08;
    private static final int RENAME_NOREPLACE = 1;
    private static final int RENAME_EXCHANGE = 2;
    private static final long SYS_OPENAT2 = 437;   // the same number on x86_64 and aarch64

    private static final int EPERM = 1, ENOENT = 2, EINTR = 4, ENXIO = 6, EACCES = 13, EEXIST = 17, EXDEV = 18,
            ENOTDIR = 20, EINVAL = 22, ENOSYS = 38, ELOOP = 40, EOPNOTSUPP = 95, EBUSY = 16, ENOSPC = 28, EROFS = 30,
            E2BIG = 7, ERANGE = 34, ENODATA = 61, EDQUOT = 122;
    /** The kernel's limits: the list of names, and one value (XATTR_LIST_MAX, XATTR_SIZE_MAX). */
    private static final int XATTR_LIST_MAX = 65536, XATTR_SIZE_MAX = 65536;

    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    /** struct statx: the fields read, at their offsets (the same on every architecture). */
    private static final long STATX_SIZE = 256, STX_MODE = 28, STX_SIZE = 40;
    /** struct linux_dirent64: d_reclen at 16, d_name from 19. */
    private static final long D_RECLEN = 16, D_NAME = 19;

    private final Architecture arch;
    /**
     * libc's {@code syscall(long number, ...)}, the one downcall of them all: each distinct C signature costs the JVM a
     * generated stub and a few dozen method-handle classes at start-up (about 25 ms each here, none of it in the AOT
     * cache), so every call goes through this one, with its arguments as five longs (pointers by address).
     */
    private final MethodHandle syscall;

    private NativeCalls(Architecture arch)
    {
        this.arch = arch;
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        syscall = handle(linker, libc, "syscall", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                Linker.Option.captureCallState("errno"), Linker.Option.firstVariadicArg(1));
    }

    private long sys(MemorySegment state, long number, long a, long b, long c, long d, long e)
            throws Throwable
    {
        return (long) syscall.invokeExact(state, number, a, b, c, d, e);
    }

    private int openat(MemorySegment state, int dirFd, MemorySegment path, int flags)
            throws Throwable
    {
        return (int) sys(state, arch.openat, dirFd, path.address(), flags, 0, 0);
    }

    private int statx(MemorySegment state, int dirFd, MemorySegment path, int flags, int mask, MemorySegment buffer)
            throws Throwable
    {
        return (int) sys(state, arch.statx, dirFd, path.address(), flags, mask, buffer.address());
    }

    private long read(MemorySegment state, int fd, MemorySegment buffer, long count)
            throws Throwable
    {
        return sys(state, arch.read, fd, buffer.address(), count, 0, 0);
    }

    private int close(MemorySegment state, int fd)
            throws Throwable
    {
        return (int) sys(state, arch.close, fd, 0, 0, 0, 0);
    }

    private int renameat2(MemorySegment state, int fromDir, MemorySegment from, int toDir, MemorySegment to, int flags)
            throws Throwable
    {
        return (int) sys(state, arch.renameat2, fromDir, from.address(), toDir, to.address(), flags);
    }

    private long getdents64(MemorySegment state, int fd, MemorySegment buffer, long count)
            throws Throwable
    {
        return sys(state, arch.getdents64, fd, buffer.address(), count, 0, 0);
    }

    /**
     * @return the native calls, once each has answered a harmless probe
     * @throws UnsupportedOperationException naming the call that was refused, or the architecture
     */
    public static FileSystemCalls load()
    {
        Architecture arch = Architecture.current();
        NativeCalls calls = new NativeCalls(arch);
        calls.probe();
        return calls;
    }

    @Override
    public String describe()
    {
        return "kernel calls through FFM (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, statx, getdents64, renameat2)";
    }

    @Override
    public boolean isNative()
    {
        return true;
    }

    @Override
    public byte[] readRegularFile(Path file, long limit)
            throws IOException
    {
        return call((arena, state) -> {
            // O_NOFOLLOW makes a final link fail with ELOOP; O_NONBLOCK makes a FIFO's open return at once.
            int fd = openat(state, AT_FDCWD, arena.allocateFrom(file.toString()), O_RDONLY | arch.oNoFollow | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0) {
                int error = errno(state);
                if (error == ELOOP) {
                    throw new NotRegularFile(file, "a symbolic link");
                }
                if (error == ENXIO) {
                    throw new NotRegularFile(file, "a socket or a device without a driver");
                }
                throw failure("open", file, error);
            }
            try {
                MemorySegment stat = arena.allocate(STATX_SIZE, 8);
                if (statx(state, fd, arena.allocateFrom(""), AT_EMPTY_PATH, STATX_TYPE_MODE_SIZE, stat) != 0) {
                    throw failure("statx", file, errno(state));
                }
                int mode = Short.toUnsignedInt(stat.get(JAVA_SHORT, STX_MODE));
                if ((mode & 0170000) != 0100000) {
                    throw new NotRegularFile(file, FileSystemCalls.kindOf(mode));
                }
                return readAll(state, arena, fd, file, limit + 1);
            }
            finally {
                int ignored = close(state, fd);
            }
        });
    }

    @Override
    public List<EntryName> listNames(Path directory)
            throws IOException
    {
        return call((arena, state) -> {
            int fd = openat(state, AT_FDCWD, arena.allocateFrom(directory.toString()), O_RDONLY | arch.oDirectory | O_CLOEXEC);
            if (fd < 0) {
                throw failure("open", directory, errno(state));
            }
            try {
                List<EntryName> names = new ArrayList<>();
                MemorySegment buffer = arena.allocate(32 * 1024, 8);
                while (true) {
                    long n = getdents64(state, fd, buffer, buffer.byteSize());
                    if (n < 0) {
                        int error = errno(state);
                        if (error == EINTR) {
                            continue;
                        }
                        throw failure("getdents64", directory, error);
                    }
                    if (n == 0) {
                        return names;
                    }
                    for (long offset = 0; offset < n; ) {
                        int length = Short.toUnsignedInt(buffer.get(JAVA_SHORT, offset + D_RECLEN));
                        byte[] name = cString(buffer.asSlice(offset + D_NAME, length - D_NAME));
                        if (!(name.length == 1 && name[0] == '.') && !(name.length == 2 && name[0] == '.' && name[1] == '.')) {
                            names.add(new EntryName(name, true));
                        }
                        offset += length;
                    }
                }
            }
            finally {
                int ignored = close(state, fd);
            }
        });
    }

    @Override
    public Optional<Directory> openDirectory(Path base, Path relative)
            throws IOException
    {
        return call((arena, state) -> {
            int baseFd = openat(state, AT_FDCWD, arena.allocateFrom(base.toString()), O_RDONLY | arch.oDirectory | O_CLOEXEC);
            if (baseFd < 0) {
                throw failure("open", base, errno(state));
            }
            try {
                String path = relative.toString().isEmpty() ? "." : relative.toString();
                int fd = openBeneath(arena, state, baseFd, path);
                if (fd < 0) {
                    int error = errno(state);
                    if (error == ELOOP || error == EXDEV || error == ENOTDIR) {
                        throw new LinkBelowBase(base, relative);
                    }
                    throw failure("openat2", base.resolve(relative), error);
                }
                return Optional.of(new HeldDirectory(fd, base.resolve(relative)));
            }
            finally {
                int ignored = close(state, baseFd);
            }
        });
    }

    private int openBeneath(Arena arena, MemorySegment state, int dirFd, String path)
            throws Throwable
    {
        // struct open_how { u64 flags; u64 mode; u64 resolve; }
        MemorySegment how = arena.allocate(24, 8);
        how.set(JAVA_LONG, 0, O_RDONLY | arch.oDirectory | O_CLOEXEC);
        how.set(JAVA_LONG, 8, 0);
        how.set(JAVA_LONG, 16, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
        return (int) sys(state, SYS_OPENAT2, dirFd, arena.allocateFrom(path).address(), how.address(), 24L, 0);
    }

    /** A directory held by its descriptor. */
    private final class HeldDirectory
            implements Directory
    {
        private final int fd;
        private final Path path;

        HeldDirectory(int fd, Path path)
        {
            this.fd = fd;
            this.path = path;
        }

        @Override
        public void renameNoReplace(String from, String to)
                throws IOException
        {
            rename(from, to, RENAME_NOREPLACE);
        }

        @Override
        public void exchange(String a, String b)
                throws IOException
        {
            rename(a, b, RENAME_EXCHANGE);
        }

        private void rename(String from, String to, int flags)
                throws IOException
        {
            call((arena, state) -> {
                if (renameat2(state, fd, arena.allocateFrom(from), fd, arena.allocateFrom(to), flags) == 0) {
                    return null;
                }
                int error = errno(state);
                if (error == EINVAL || error == EOPNOTSUPP || error == ENOSYS) {
                    // A file system (overlay of old kernels, some FUSE) without the flag.
                    throw new UnsupportedOperationException(path + ": the file system cannot renameat2 with flags " + flags);
                }
                if (error == EEXIST) {
                    throw new FileAlreadyExistsException(path.resolve(to).toString());
                }
                throw failure("renameat2", path.resolve(from), error);
            });
        }

        @Override
        public CopiedAttributes copyExtendedAttributes(String from, String to)
                throws IOException
        {
            return call((arena, state) -> {
                int source = openFile(arena, state, from);
                try {
                    int target = openFile(arena, state, to);
                    try {
                        return copyAttributes(arena, state, source, target);
                    }
                    finally {
                        int ignored = NativeCalls.this.close(state, target);
                    }
                }
                finally {
                    int ignored = NativeCalls.this.close(state, source);
                }
            });
        }

        /** Opened for its attributes: read-only, never through a link, never waiting on a FIFO. */
        private int openFile(Arena arena, MemorySegment state, String name)
                throws Throwable
        {
            int file = openat(state, fd, arena.allocateFrom(name), O_RDONLY | arch.oNoFollow | O_NONBLOCK | O_CLOEXEC);
            if (file < 0) {
                throw failure("open", path.resolve(name), errno(state));
            }
            return file;
        }

        private CopiedAttributes copyAttributes(Arena arena, MemorySegment state, int source, int target)
                throws Throwable
        {
            MemorySegment names = arena.allocate(XATTR_LIST_MAX);
            long length = sys(state, arch.flistxattr, source, names.address(), names.byteSize(), 0, 0);
            if (length < 0) {
                int error = errno(state);
                if (error == EOPNOTSUPP) {
                    return new CopiedAttributes(List.of(), List.of());
                }
                throw failure("flistxattr", path, error);
            }
            List<String> kept = new ArrayList<>();
            List<String> notKept = new ArrayList<>();
            MemorySegment value = arena.allocate(XATTR_SIZE_MAX);
            for (long start = 0; start < length; ) {
                MemorySegment name = names.asSlice(start);
                byte[] bytes = cString(name.asSlice(0, length - start));
                start += bytes.length + 1;
                String shown = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
                long size = sys(state, arch.fgetxattr, source, name.address(), value.address(), value.byteSize(), 0);
                if (size < 0) {
                    int error = errno(state);
                    if (error != ENODATA) {  // removed since it was listed: nothing to keep
                        notKept.add(shown + " (cannot be read: " + name(error) + ")");
                    }
                    continue;
                }
                if (sys(state, arch.fsetxattr, target, name.address(), value.address(), size, 0) == 0) {
                    kept.add(shown);
                }
                else {
                    notKept.add(shown + " (" + name(errno(state)) + ")");
                }
            }
            return new CopiedAttributes(kept, notKept);
        }

        @Override
        public void close()
        {
            try (Arena arena = Arena.ofConfined()) {
                int ignored = NativeCalls.this.close(arena.allocate(CAPTURE), fd);
            }
            catch (RuntimeException | Error e) {
                throw e;
            }
            catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private void probe()
    {
        try {
            call((arena, state) -> {
                int root = openat(state, AT_FDCWD, arena.allocateFrom("/"), O_RDONLY | arch.oDirectory | O_CLOEXEC);
                if (root < 0) {
                    throw refused("open", errno(state));
                }
                try {
                    int fd = openBeneath(arena, state, root, ".");
                    if (fd < 0) {
                        throw refused("openat2", errno(state));
                    }
                    int ignored = close(state, fd);
                    MemorySegment stat = arena.allocate(STATX_SIZE, 8);
                    if (statx(state, root, arena.allocateFrom(""), AT_EMPTY_PATH, STATX_TYPE_MODE_SIZE, stat) != 0) {
                        throw refused("statx", errno(state));
                    }
                    MemorySegment buffer = arena.allocate(4096, 8);
                    if (getdents64(state, root, buffer, buffer.byteSize()) < 0) {
                        throw refused("getdents64", errno(state));
                    }
                    // Both names missing: ENOENT where renameat2 exists, ENOSYS or EPERM where it is refused.
                    String missing = ".cni-chain-probe-" + ProcessHandle.current().pid();
                    if (renameat2(state, root, arena.allocateFrom(missing), root, arena.allocateFrom(missing + ".2"), RENAME_NOREPLACE) == 0
                            || errno(state) != ENOENT) {
                        throw refused("renameat2", errno(state));
                    }
                }
                finally {
                    int ignored = close(state, root);
                }
                return null;
            });
        }
        catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One use of the calls: an arena for its memory and a segment for errno, both freed when it ends. */
    @FunctionalInterface
    private interface Call<T>
    {
        T run(Arena arena, MemorySegment state)
                throws Throwable;
    }

    private static <T> T call(Call<T> body)
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

    private static UnsupportedOperationException refused(String call, int errno)
    {
        return new UnsupportedOperationException(call + " refused (" + name(errno) + "; a kernel before 5.6 or a seccomp profile)");
    }

    private byte[] readAll(MemorySegment state, Arena arena, int fd, Path file, long most)
            throws Throwable
    {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        MemorySegment buffer = arena.allocate(64 * 1024, 8);
        while (out.size() < most) {
            long want = Math.min(buffer.byteSize(), most - out.size());
            long n = read(state, fd, buffer, want);
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

    private static byte[] cString(MemorySegment segment)
    {
        long length = 0;
        while (length < segment.byteSize() && segment.get(JAVA_BYTE, length) != 0) {
            length++;
        }
        return segment.asSlice(0, length).toArray(JAVA_BYTE);
    }

    private static int errno(MemorySegment state)
    {
        return (int) ERRNO.get(state, 0L);
    }

    private static IOException failure(String call, Path path, int errno)
    {
        // The exceptions and messages Java's own file calls give for the same errors.
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

    private static String name(int errno)
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

    private static MethodHandle handle(Linker linker, SymbolLookup libc, String name, FunctionDescriptor descriptor, Linker.Option... options)
    {
        return linker.downcallHandle(libc.find(name).orElseThrow(() -> new UnsupportedOperationException("libc has no " + name)), descriptor, options);
    }

    /** The open flags and the system call numbers, which differ between architectures. */
    private enum Architecture
    {
        X86_64(0200000, 0400000, 257, 332, 0, 3, 316, 217, 196, 193, 190),
        AARCH64(040000, 0100000, 56, 291, 63, 57, 276, 61, 13, 10, 7);

        final int oDirectory;
        final int oNoFollow;
        final long openat;
        final long statx;
        final long read;
        final long close;
        final long renameat2;
        final long getdents64;
        final long flistxattr;
        final long fgetxattr;
        final long fsetxattr;

        Architecture(int oDirectory, int oNoFollow, long openat, long statx, long read, long close, long renameat2, long getdents64,
                long flistxattr, long fgetxattr, long fsetxattr)
        {
            this.flistxattr = flistxattr;
            this.fgetxattr = fgetxattr;
            this.fsetxattr = fsetxattr;
            this.oDirectory = oDirectory;
            this.oNoFollow = oNoFollow;
            this.openat = openat;
            this.statx = statx;
            this.read = read;
            this.close = close;
            this.renameat2 = renameat2;
            this.getdents64 = getdents64;
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
