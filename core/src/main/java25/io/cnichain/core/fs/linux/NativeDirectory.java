package io.cnichain.core.fs.linux;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.cnichain.core.fs.linux.Errno.failure;
import static io.cnichain.core.fs.linux.Errno.name;
import static io.cnichain.core.fs.linux.Kernel.cString;
import static io.cnichain.core.fs.linux.Kernel.call;
import static io.cnichain.core.fs.linux.Kernel.errno;

/** A directory held by its descriptor: renames and attribute copies between its entries, never through a link. */
final class NativeDirectory
        implements FileSystemCalls.Directory
{
    private final Kernel kernel;
    private final int fd;
    private final Path path;

    NativeDirectory(Kernel kernel, int fd, Path path)
    {
        this.kernel = kernel;
        this.fd = fd;
        this.path = path;
    }

    @Override
    public void renameNoReplace(String from, String to)
            throws IOException
    {
        rename(from, to, Kernel.RENAME_NOREPLACE);
    }

    @Override
    public void replace(String from, String to)
            throws IOException
    {
        rename(from, to, 0);
    }

    @Override
    public void exchange(String a, String b)
            throws IOException
    {
        rename(a, b, Kernel.RENAME_EXCHANGE);
    }

    private void rename(String from, String to, int flags)
            throws IOException
    {
        call((arena, state) -> {
            if (kernel.renameat2(state, fd, arena.allocateFrom(from), fd, arena.allocateFrom(to), flags) == 0) {
                return null;
            }
            int error = errno(state);
            if (error == Errno.EINVAL || error == Errno.EOPNOTSUPP || error == Errno.ENOSYS) {
                // A file system (overlay of old kernels, some FUSE) without the flag.
                throw new UnsupportedOperationException(path + ": the file system cannot renameat2 with flags " + flags);
            }
            if (error == Errno.EEXIST) {
                throw new FileAlreadyExistsException(path.resolve(to).toString());
            }
            throw failure("renameat2", path.resolve(from), error);
        });
    }

    @Override
    public Optional<FileSystemCalls.Status> status(String name)
            throws IOException
    {
        return call((arena, state) -> {
            FileSystemCalls.Status status = kernel.status(arena, state, fd, arena.allocateFrom(name));
            if (status != null) {
                return Optional.of(status);
            }
            int error = errno(state);
            if (error == Errno.ENOENT) {
                return Optional.empty();
            }
            throw failure("statx", path.resolve(name), error);
        });
    }

    @Override
    public void createSynced(String name, int mode, byte[] content)
            throws IOException
    {
        call((arena, state) -> {
            kernel.createSynced(arena, state, fd, arena.allocateFrom(name), path.resolve(name), mode, content);
            return null;
        });
    }

    @Override
    public void setMode(String name, int mode)
            throws IOException
    {
        call((arena, state) -> {
            kernel.setMode(arena, state, fd, arena.allocateFrom(name), path.resolve(name), mode);
            return null;
        });
    }

    @Override
    public boolean delete(String name)
            throws IOException
    {
        return call((arena, state) -> {
            if (kernel.unlinkat(state, fd, arena.allocateFrom(name)) == 0) {
                return true;
            }
            int error = errno(state);
            if (error == Errno.ENOENT) {
                return false;
            }
            throw failure("unlinkat", path.resolve(name), error);
        });
    }

    @Override
    public void sync()
            throws IOException
    {
        call((arena, state) -> {
            if (kernel.fsync(state, fd) != 0) {
                throw failure("fsync", path, errno(state));
            }
            return null;
        });
    }

    @Override
    public byte[] readRegularFile(String name, long limit)
            throws IOException
    {
        return call((arena, state) -> kernel.readRegularFile(arena, state, fd, arena.allocateFrom(name), path.resolve(name), limit));
    }

    @Override
    public FileSystemCalls.CopiedAttributes copyExtendedAttributes(String from, String to)
            throws IOException
    {
        return call((arena, state) -> {
            int source = openFile(arena, state, from);
            try {
                // Most files have none: asked for the size of the list first, nothing else is opened or allocated then.
                long listed = kernel.flistxattr(state, source, MemorySegment.NULL);
                if (listed == 0 || listed < 0 && errno(state) == Errno.EOPNOTSUPP) {
                    return new FileSystemCalls.CopiedAttributes(List.of(), List.of());
                }
                int target = openFile(arena, state, to);
                try {
                    return copyAttributes(arena, state, source, target);
                }
                finally {
                    int ignored = kernel.close(state, target);
                }
            }
            finally {
                int ignored = kernel.close(state, source);
            }
        });
    }

    /** Opened for its attributes: read-only, never through a link, never waiting on a FIFO. */
    private int openFile(Arena arena, MemorySegment state, String name)
            throws Throwable
    {
        int file = kernel.openat(state, fd, arena.allocateFrom(name), Kernel.O_RDONLY | kernel.arch.oNoFollow | Kernel.O_NONBLOCK | Kernel.O_CLOEXEC);
        if (file < 0) {
            throw failure("open", path.resolve(name), errno(state));
        }
        return file;
    }

    private FileSystemCalls.CopiedAttributes copyAttributes(Arena arena, MemorySegment state, int source, int target)
            throws Throwable
    {
        MemorySegment names = arena.allocate(Kernel.XATTR_LIST_MAX);
        long length = kernel.flistxattr(state, source, names);
        if (length < 0) {
            int error = errno(state);
            // Not a reason to refuse the write: what could not be kept is said, as for one attribute.
            return new FileSystemCalls.CopiedAttributes(List.of(), error == Errno.EOPNOTSUPP ? List.of()
                    : List.of("its attributes (cannot be listed: " + name(error) + ")"));
        }
        List<String> kept = new ArrayList<>();
        List<String> notKept = new ArrayList<>();
        MemorySegment value = arena.allocate(Kernel.XATTR_SIZE_MAX);
        for (long start = 0; start < length; ) {
            MemorySegment name = names.asSlice(start);
            byte[] bytes = cString(name.asSlice(0, length - start));
            start += bytes.length + 1;
            String shown = new String(bytes, StandardCharsets.UTF_8);
            long size = kernel.fgetxattr(state, source, name, value);
            if (size < 0) {
                int error = errno(state);
                if (error != Errno.ENODATA) {  // removed since it was listed: nothing to keep
                    notKept.add(shown + " (cannot be read: " + name(error) + ")");
                }
                continue;
            }
            if (kernel.fsetxattr(state, target, name, value, size) == 0) {
                kept.add(shown);
            }
            else {
                notKept.add(shown + " (" + name(errno(state)) + ")");
            }
        }
        return new FileSystemCalls.CopiedAttributes(kept, notKept);
    }

    @Override
    public void close()
    {
        try {
            call((arena, state) -> kernel.close(state, fd));
        }
        catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
