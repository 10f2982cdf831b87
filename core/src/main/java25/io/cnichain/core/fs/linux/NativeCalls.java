package io.cnichain.core.fs.linux;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import static io.cnichain.core.fs.linux.Errno.EINTR;
import static io.cnichain.core.fs.linux.Errno.ELOOP;
import static io.cnichain.core.fs.linux.Errno.ENOENT;
import static io.cnichain.core.fs.linux.Errno.ENOSYS;
import static io.cnichain.core.fs.linux.Errno.ENOTDIR;
import static io.cnichain.core.fs.linux.Errno.EPERM;
import static io.cnichain.core.fs.linux.Errno.EXDEV;
import static io.cnichain.core.fs.linux.Errno.failure;
import static io.cnichain.core.fs.linux.Errno.refused;
import static io.cnichain.core.fs.linux.Kernel.AT_FDCWD;
import static io.cnichain.core.fs.linux.Kernel.DIRENT64;
import static io.cnichain.core.fs.linux.Kernel.D_RECLEN;
import static io.cnichain.core.fs.linux.Kernel.O_CLOEXEC;
import static io.cnichain.core.fs.linux.Kernel.O_RDONLY;
import static io.cnichain.core.fs.linux.Kernel.RENAME_NOREPLACE;
import static io.cnichain.core.fs.linux.Kernel.cString;
import static io.cnichain.core.fs.linux.Kernel.call;
import static io.cnichain.core.fs.linux.Kernel.errno;

/**
 * The kernel's calls through the Foreign Function &amp; Memory API ({@link Kernel}). Compiled for Java 25 only;
 * {@link Selection} loads it reflectively.
 * <p>
 * {@link #load()} tries each call once: a kernel or a seccomp profile that refuses one ({@code ENOSYS},
 * {@code EPERM}) makes the whole layer fall back, with the reason, rather than half of it.
 */
public final class NativeCalls
        implements FileSystemCalls
{
    /** Where a directory entry's name starts: after {@code struct linux_dirent64}'s fixed part. */
    private static final long D_NAME = DIRENT64.byteSize();

    private final Kernel kernel;

    private NativeCalls(Kernel kernel)
    {
        this.kernel = kernel;
    }

    /**
     * @return the native calls, once each has answered a harmless probe
     * @throws UnsupportedOperationException naming the call that was refused, or the architecture
     */
    public static FileSystemCalls load()
    {
        NativeCalls calls = new NativeCalls(new Kernel(Architecture.current()));
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
        return call((arena, state) -> kernel.readRegularFile(arena, state, AT_FDCWD, arena.allocateFrom(file.toString()), file, limit));
    }

    @Override
    public OptionalInt modeOf(Path path)
            throws IOException
    {
        return call((arena, state) -> {
            int mode = kernel.lstatMode(arena, state, arena.allocateFrom(path.toString()));
            if (mode >= 0) {
                return OptionalInt.of(mode);
            }
            int error = errno(state);
            if (error == ENOENT || error == ENOTDIR) {
                return OptionalInt.empty();
            }
            throw failure("statx", path, error);
        });
    }

    @Override
    public Optional<Identity> identityOf(Path path)
            throws IOException
    {
        return call((arena, state) -> {
            Identity identity = kernel.identity(arena, state, arena.allocateFrom(path.toString()));
            if (identity != null) {
                return Optional.of(identity);
            }
            int error = errno(state);
            if (error == ENOENT || error == ENOTDIR) {
                return Optional.empty();
            }
            throw failure("statx", path, error);
        });
    }

    @Override
    public List<EntryName> listNames(Path directory)
            throws IOException
    {
        return call((arena, state) -> {
            int fd = kernel.openat(state, AT_FDCWD, arena.allocateFrom(directory.toString()), O_RDONLY | kernel.arch.oDirectory | O_CLOEXEC);
            if (fd < 0) {
                throw failure("open", directory, errno(state));
            }
            try {
                List<EntryName> names = new ArrayList<>();
                MemorySegment buffer = arena.allocate(32 * 1024, 8);
                while (true) {
                    long n = kernel.getdents64(state, fd, buffer, buffer.byteSize());
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
                        int length = Short.toUnsignedInt((short) D_RECLEN.get(buffer, offset));
                        byte[] name = cString(buffer.asSlice(offset + D_NAME, length - D_NAME));
                        if (!(name.length == 1 && name[0] == '.') && !(name.length == 2 && name[0] == '.' && name[1] == '.')) {
                            names.add(new EntryName(name, true));
                        }
                        offset += length;
                    }
                }
            }
            finally {
                int ignored = kernel.close(state, fd);
            }
        });
    }

    @Override
    public Optional<Directory> openDirectory(Path base, Path relative)
            throws IOException
    {
        return call((arena, state) -> {
            int baseFd = kernel.openat(state, AT_FDCWD, arena.allocateFrom(base.toString()), O_RDONLY | kernel.arch.oDirectory | O_CLOEXEC);
            if (baseFd < 0) {
                throw failure("open", base, errno(state));
            }
            try {
                String path = relative.toString().isEmpty() ? "." : relative.toString();
                int fd = kernel.openDirectoryBeneath(arena, state, baseFd, path);
                if (fd < 0) {
                    int error = errno(state);
                    if (error == ELOOP || error == EXDEV || error == ENOTDIR) {
                        throw new LinkBelowBase(base, relative);
                    }
                    throw failure("openat2", base.resolve(relative), error);
                }
                return Optional.of(new NativeDirectory(kernel, fd, base.resolve(relative)));
            }
            finally {
                int ignored = kernel.close(state, baseFd);
            }
        });
    }

    private void probe()
    {
        try {
            call((arena, state) -> {
                int root = kernel.openat(state, AT_FDCWD, arena.allocateFrom("/"), O_RDONLY | kernel.arch.oDirectory | O_CLOEXEC);
                if (root < 0) {
                    throw refused("open", errno(state));
                }
                try {
                    int fd = kernel.openDirectoryBeneath(arena, state, root, ".");
                    if (fd < 0) {
                        throw refused("openat2", errno(state));
                    }
                    int ignored = kernel.close(state, fd);
                    if (kernel.mode(arena, state, root) < 0) {
                        throw refused("statx", errno(state));
                    }
                    MemorySegment buffer = arena.allocate(4096, 8);
                    if (kernel.getdents64(state, root, buffer, buffer.byteSize()) < 0) {
                        throw refused("getdents64", errno(state));
                    }
                    // Both names missing: ENOSYS or EPERM where the call is refused; anything else says it exists (ENOENT,
                    // or EROFS first where the root is read-only, as a pod's is).
                    String missing = ".cni-chain-probe-" + ProcessHandle.current().pid();
                    if (kernel.renameat2(state, root, arena.allocateFrom(missing), root, arena.allocateFrom(missing + ".2"), RENAME_NOREPLACE) == 0) {
                        throw new IllegalStateException("renameat2 renamed " + missing + ", which must not exist");
                    }
                    if (errno(state) == ENOSYS || errno(state) == EPERM) {
                        throw refused("renameat2", errno(state));
                    }
                }
                finally {
                    int ignored = kernel.close(state, root);
                }
                return null;
            });
        }
        catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

}
