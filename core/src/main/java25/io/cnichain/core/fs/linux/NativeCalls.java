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
 * The kernel's calls through the Foreign Function &amp; Memory API (libc's wrappers; {@code openat2} through
 * {@code syscall}, which libc does not wrap). Compiled for Java 25 only; {@link Selection} loads it reflectively.
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
            ENOTDIR = 20, EINVAL = 22, ENOSYS = 38, ELOOP = 40, EOPNOTSUPP = 95, EBUSY = 16, ENOSPC = 28, EROFS = 30;

    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    /** struct statx: the fields read, at their offsets (the same on every architecture). */
    private static final long STATX_SIZE = 256, STX_MODE = 28, STX_SIZE = 40;
    /** struct linux_dirent64: d_reclen at 16, d_name from 19. */
    private static final long D_RECLEN = 16, D_NAME = 19;

    private final Architecture arch;
    private final MethodHandle openat;
    private final MethodHandle openat2;
    private final MethodHandle statx;
    private final MethodHandle read;
    private final MethodHandle close;
    private final MethodHandle renameat2;
    private final MethodHandle getdents64;

    private NativeCalls(Architecture arch)
    {
        this.arch = arch;
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        openat = handle(linker, libc, "openat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
                errno, Linker.Option.firstVariadicArg(3));
        openat2 = handle(linker, libc, "syscall", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG),
                errno, Linker.Option.firstVariadicArg(1));
        statx = handle(linker, libc, "statx", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS), errno);
        read = handle(linker, libc, "read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), errno);
        close = handle(linker, libc, "close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), errno);
        renameat2 = handle(linker, libc, "renameat2", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT), errno);
        getdents64 = handle(linker, libc, "getdents64", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), errno);
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
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            // O_NOFOLLOW makes a final link fail with ELOOP; O_NONBLOCK makes a FIFO's open return at once.
            int fd = (int) openat.invokeExact(state, AT_FDCWD, arena.allocateFrom(file.toString()), O_RDONLY | arch.oNoFollow | O_NONBLOCK | O_CLOEXEC, 0);
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
                if ((int) statx.invokeExact(state, fd, arena.allocateFrom(""), AT_EMPTY_PATH, STATX_TYPE_MODE_SIZE, stat) != 0) {
                    throw failure("statx", file, errno(state));
                }
                int mode = Short.toUnsignedInt(stat.get(JAVA_SHORT, STX_MODE));
                if ((mode & 0170000) != 0100000) {
                    throw new NotRegularFile(file, FileSystemCalls.kindOf(mode));
                }
                return readAll(state, arena, fd, file, limit + 1);
            }
            finally {
                int ignored = (int) close.invokeExact(state, fd);
            }
        }
        catch (IOException | RuntimeException | Error e) {
            throw e;
        }
        catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public List<EntryName> listNames(Path directory)
            throws IOException
    {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            int fd = (int) openat.invokeExact(state, AT_FDCWD, arena.allocateFrom(directory.toString()), O_RDONLY | arch.oDirectory | O_CLOEXEC, 0);
            if (fd < 0) {
                throw failure("open", directory, errno(state));
            }
            try {
                List<EntryName> names = new ArrayList<>();
                MemorySegment buffer = arena.allocate(32 * 1024, 8);
                while (true) {
                    long n = (long) getdents64.invokeExact(state, fd, buffer, buffer.byteSize());
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
                int ignored = (int) close.invokeExact(state, fd);
            }
        }
        catch (IOException | RuntimeException | Error e) {
            throw e;
        }
        catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Optional<Directory> openDirectory(Path base, Path relative)
            throws IOException
    {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            int baseFd = (int) openat.invokeExact(state, AT_FDCWD, arena.allocateFrom(base.toString()), O_RDONLY | arch.oDirectory | O_CLOEXEC, 0);
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
                int ignored = (int) close.invokeExact(state, baseFd);
            }
        }
        catch (IOException | RuntimeException | Error e) {
            throw e;
        }
        catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    private int openBeneath(Arena arena, MemorySegment state, int dirFd, String path)
            throws Throwable
    {
        // struct open_how { u64 flags; u64 mode; u64 resolve; }
        MemorySegment how = arena.allocate(24, 8);
        how.set(JAVA_LONG, 0, O_RDONLY | arch.oDirectory | O_CLOEXEC);
        how.set(JAVA_LONG, 8, 0);
        how.set(JAVA_LONG, 16, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
        return (int) (long) openat2.invokeExact(state, SYS_OPENAT2, (long) dirFd, arena.allocateFrom(path), how, 24L);
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
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = arena.allocate(CAPTURE);
                if ((int) renameat2.invokeExact(state, fd, arena.allocateFrom(from), fd, arena.allocateFrom(to), flags) == 0) {
                    return;
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
            }
            catch (IOException | RuntimeException | Error e) {
                throw e;
            }
            catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close()
        {
            try (Arena arena = Arena.ofConfined()) {
                int ignored = (int) close.invokeExact(arena.allocate(CAPTURE), fd);
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
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            int root = (int) openat.invokeExact(state, AT_FDCWD, arena.allocateFrom("/"), O_RDONLY | arch.oDirectory | O_CLOEXEC, 0);
            if (root < 0) {
                throw refused("open", errno(state));
            }
            try {
                int fd = openBeneath(arena, state, root, ".");
                if (fd < 0) {
                    throw refused("openat2", errno(state));
                }
                int ignored = (int) close.invokeExact(state, fd);
                MemorySegment stat = arena.allocate(STATX_SIZE, 8);
                if ((int) statx.invokeExact(state, root, arena.allocateFrom(""), AT_EMPTY_PATH, STATX_TYPE_MODE_SIZE, stat) != 0) {
                    throw refused("statx", errno(state));
                }
                MemorySegment buffer = arena.allocate(4096, 8);
                if ((long) getdents64.invokeExact(state, root, buffer, buffer.byteSize()) < 0) {
                    throw refused("getdents64", errno(state));
                }
                // Both names missing: ENOENT where renameat2 exists, ENOSYS or EPERM where it is refused.
                String missing = ".cni-chain-probe-" + ProcessHandle.current().pid();
                if ((int) renameat2.invokeExact(state, root, arena.allocateFrom(missing), root, arena.allocateFrom(missing + ".2"), RENAME_NOREPLACE) == 0
                        || errno(state) != ENOENT) {
                    throw refused("renameat2", errno(state));
                }
            }
            finally {
                int ignored = (int) close.invokeExact(state, root);
            }
        }
        catch (RuntimeException | Error e) {
            throw e;
        }
        catch (Throwable e) {
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
            long n = (long) read.invokeExact(state, fd, buffer, want);
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
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case ENXIO -> "ENXIO";
            case EACCES -> "EACCES";
            case EEXIST -> "EEXIST";
            case EXDEV -> "EXDEV";
            case ENOTDIR -> "ENOTDIR";
            case EINVAL -> "EINVAL";
            case ENOSYS -> "ENOSYS";
            case ELOOP -> "ELOOP";
            case EOPNOTSUPP -> "EOPNOTSUPP";
            default -> "errno " + errno;
        };
    }

    private static MethodHandle handle(Linker linker, SymbolLookup libc, String name, FunctionDescriptor descriptor, Linker.Option... options)
    {
        return linker.downcallHandle(libc.find(name).orElseThrow(() -> new UnsupportedOperationException("libc has no " + name)), descriptor, options);
    }

    /** The open flags that differ between architectures. */
    private enum Architecture
    {
        X86_64(0200000, 0400000),
        AARCH64(040000, 0100000);

        final int oDirectory;
        final int oNoFollow;

        Architecture(int oDirectory, int oNoFollow)
        {
            this.oDirectory = oDirectory;
            this.oNoFollow = oNoFollow;
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
