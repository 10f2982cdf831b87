package io.cnichain.distribution.agent;

import io.cnichain.testkit.NeedsRootExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What a fault test changed on the machine (mounts, immutable flags, processes, threads), undone in reverse order
 * when the test ends, also after a failure: a mount left under a temp node would keep its directory from being
 * deleted, and an immutable file would keep it forever. Each undo runs even if an earlier one failed.
 */
final class Cleanup
        implements AutoCloseable
{
    private final Deque<Undo> undos = new ArrayDeque<>();

    /** Registers an undo, run when this closes (the last registered first). */
    <T extends AutoCloseable> T add(T resource)
    {
        undos.push(resource::close);
        return resource;
    }

    void undo(Undo undo)
    {
        undos.push(undo);
    }

    /** {@code mount -t tmpfs -o size=SIZE}: a small filesystem that fills up; unmounted at the end. */
    Path tmpfs(Path directory, String size)
    {
        NeedsRootExtension.run("mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=0755", "cni-chain-fault", directory.toString());
        undo(() -> unmount(directory));
        return directory;
    }

    /** Resizes a tmpfs without touching any file in it: no inotify event at all. */
    static void resize(Path directory, String size)
    {
        NeedsRootExtension.run("mount", "-o", "remount,size=" + size, directory.toString());
    }

    /** Mounts a directory over itself read-only ({@code mount --bind}, then {@code remount,ro,bind}); unmounted at the end. */
    Path readOnly(Path directory)
    {
        NeedsRootExtension.run("mount", "--bind", directory.toString(), directory.toString());
        undo(() -> unmount(directory));
        NeedsRootExtension.run("mount", "-o", "remount,ro,bind", directory.toString());
        return directory;
    }

    /** Makes a bind mount writable again: like a resize, no event on any file. */
    static void writable(Path directory)
    {
        NeedsRootExtension.run("mount", "-o", "remount,rw,bind", directory.toString());
    }

    /** {@code chattr +i}; {@code chattr -i} at the end. */
    Path immutable(Path path)
    {
        NeedsRootExtension.run("chattr", "+i", path.toString());
        undo(() -> {
            if (Files.exists(path)) {
                NeedsRootExtension.run("chattr", "-i", path.toString());
            }
        });
        return path;
    }

    static void mutable(Path path)
    {
        NeedsRootExtension.run("chattr", "-i", path.toString());
    }

    private static void unmount(Path directory)
    {
        if (NeedsRootExtension.mountPoints().contains(directory.toAbsolutePath().normalize().toString())) {
            try {
                NeedsRootExtension.run("umount", directory.toString());
            }
            catch (AssertionError busy) {
                // Something still has a file open there (a process being killed): detach it now, it goes when that ends.
                NeedsRootExtension.run("umount", "-l", directory.toString());
            }
        }
    }

    @Override
    public void close()
    {
        Throwable first = null;
        while (!undos.isEmpty()) {
            try {
                undos.pop().run();
            }
            catch (Throwable t) {
                if (first == null) {
                    first = t;
                }
                else {
                    first.addSuppressed(t);
                }
            }
        }
        if (first instanceof RuntimeException e) {
            throw e;
        }
        if (first instanceof Error e) {
            throw e;
        }
        if (first != null) {
            throw new IllegalStateException(first);
        }
    }

    /** One thing to undo. */
    @FunctionalInterface
    interface Undo
    {
        void run()
                throws Exception;
    }
}
