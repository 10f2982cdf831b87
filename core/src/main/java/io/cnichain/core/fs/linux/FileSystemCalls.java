package io.cnichain.core.fs.linux;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The few system calls the promise rests on, behind plain Java methods: reads that cannot block or follow a link,
 * directory listings of raw name bytes, a directory reached under a base without following a link, and renames that
 * cannot replace a file that appeared or lose another writer's update.
 * <p>
 * On Java 25 (what the agent runs on) they are the kernel's own calls ({@code openat2}, {@code statx},
 * {@code getdents64}, {@code renameat2}) through the Foreign Function &amp; Memory API; elsewhere, or where the kernel
 * or a seccomp profile refuses a call, a Java fallback does what Java 17 can, and {@link #describe()} says which. The
 * choice is made once: {@link #get()}.
 */
public interface FileSystemCalls
{
    /** System property: {@code java} forces the Java fallback (tests run both). */
    String PROPERTY = "cnichain.fs.calls";

    /** @return the calls in use in this JVM */
    static FileSystemCalls get()
    {
        return Selection.CHOSEN;
    }

    /**
     * Makes the choice on a thread of its own, now: linking the kernel's calls is slow work for the JVM (a downcall stub
     * and its method handles, which no class-data archive keeps), and the command line and the configuration can be
     * read meanwhile. The first {@link #get()} waits for it.
     */
    static void prepareInBackground()
    {
        Thread thread = new Thread(FileSystemCalls::get, "fs-calls");
        thread.setDaemon(true);
        thread.start();
    }

    /** @return one line for the log and {@code detect}: which calls are in use, and why the fallback when it is */
    String describe();

    /** @return whether these are the kernel's calls (not the fallback) */
    boolean isNative();

    /**
     * Reads a regular file whole: opened without following a link and without blocking (a FIFO swapped in after any
     * earlier look cannot block the read), then checked on the opened descriptor.
     *
     * @param file  the file
     * @param limit the most bytes to read; one more is read, so that a caller sees the file is larger
     * @return at most {@code limit + 1} bytes
     * @throws NotRegularFile     when the file (or what the path names, a link included) is not a regular file
     * @throws java.nio.file.NoSuchFileException when there is none
     * @throws IOException        otherwise
     */
    byte[] readRegularFile(Path file, long limit)
            throws IOException;

    /**
     * What is at a path, the final link not followed ({@code lstat}), asked without an exception where nothing is: a
     * pass asks this of names that are often gone (a primary's temp file, a network's missing drop-in directory), and
     * a thrown exception fills in its stack trace, which costs a pass more than the call.
     *
     * @param path a path
     * @return its {@code st_mode} (type and permission bits); empty when nothing is there ({@code ENOENT}, or a
     *         component that is not a directory)
     * @throws IOException when it cannot be known (a directory that cannot be searched, say)
     */
    OptionalInt modeOf(Path path)
            throws IOException;

    /**
     * Which file is at a path, and in which state, its last link not followed: asked again and again of the same files
     * (a parse is kept only while they stay the same), so asked in one call.
     *
     * @return empty when nothing is there
     * @throws IOException when the path cannot be looked at
     */
    Optional<Identity> identityOf(Path path)
            throws IOException;

    /**
     * A file's device ({@code st_dev}, as the C library encodes it) and inode, size, and modification and change times:
     * any of them different is another file, or the same one changed.
     */
    record Identity(long device, long inode, long size, long modifiedNanos, long changedNanos)
    {
        public long latestChangeNanos()
        {
            return Math.max(modifiedNanos, changedNanos);
        }

        // Written out: a record's own equals and hashCode are linked through method handles at their first call, which
        // spins classes the AOT cache does not keep, in the interpreter, before the agent's first patch; and the agent's
        // C1-only JIT calls them slowly. This one is compared for every file a pass looks at.
        @Override
        public boolean equals(Object other)
        {
            return other instanceof Identity identity && device == identity.device && inode == identity.inode && size == identity.size
                    && modifiedNanos == identity.modifiedNanos && changedNanos == identity.changedNanos;
        }

        @Override
        public int hashCode()
        {
            return Long.hashCode(inode) * 31 + Long.hashCode(modifiedNanos);
        }
    }

    /**
     * Lists a directory ({@code O_DIRECTORY}: anything else, a FIFO included, is refused without being opened, so the
     * listing never blocks; a link to a directory is followed).
     *
     * @param directory a directory
     * @return the names of its entries as the kernel has them (bytes, not decoded), without {@code .} and {@code ..}
     * @throws java.nio.file.NotDirectoryException when it is not a directory
     * @throws java.nio.file.NoSuchFileException when there is none
     */
    List<EntryName> listNames(Path directory)
            throws IOException;

    /**
     * A directory entry's name.
     *
     * @param bytes the name's bytes; exact unless {@code exact} is false
     * @param exact false where the fallback could only see the name decoded, and decoding changed it: the bytes are
     *              then the decoded name's, not the file's
     */
    record EntryName(byte[] bytes, boolean exact) {}

    /**
     * Opens a directory below a trusted base without following any link below the base (the kernel's
     * {@code RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS}), for renames in it.
     *
     * @param base     the base, trusted as it is (links in it followed)
     * @param relative the directory, relative to the base (empty: the base)
     * @return the directory, or empty where these calls cannot hold one (the fallback)
     * @throws LinkBelowBase when a component below the base is a link or not a directory
     */
    Optional<Directory> openDirectory(Path base, Path relative)
            throws IOException;

    /** A directory held open by the kernel's descriptor. */
    interface Directory
            extends Closeable
    {
        /**
         * {@code renameat2(RENAME_NOREPLACE)}: renames, unless {@code to} exists.
         *
         * @throws java.nio.file.FileAlreadyExistsException when {@code to} exists
         * @throws UnsupportedOperationException when the file system cannot (then the caller renames as before)
         */
        void renameNoReplace(String from, String to)
                throws IOException;

        /** {@code renameat2} without flags: renames, atomically replacing {@code to} when it exists. */
        void replace(String from, String to)
                throws IOException;

        /**
         * {@code renameat2(RENAME_EXCHANGE)}: swaps two entries atomically; both must exist.
         *
         * @throws UnsupportedOperationException when the file system cannot
         */
        void exchange(String a, String b)
                throws IOException;

        /**
         * Copies every extended attribute of one entry to another (both regular files in this directory, neither
         * followed if a link): the user's ({@code user.*}), the POSIX ACL ({@code system.posix_acl_access}), and the
         * {@code security.*} and {@code trusted.*} ones where the kernel lets this process set them.
         *
         * @return what was copied, and what could not be, with the reason
         */
        CopiedAttributes copyExtendedAttributes(String from, String to)
                throws IOException;

        /**
         * {@code statx} of an entry, not followed if a link: its owner and group by number, where Java's file API gives
         * them only by name (each a look-up in {@code /etc/passwd} or {@code /etc/group}).
         *
         * @return empty when there is no such entry
         */
        Optional<Status> status(String name)
                throws IOException;

        /**
         * Creates a regular file ({@code O_CREAT | O_EXCL | O_NOFOLLOW}: never through a link, never over an entry that
         * exists) with this mode less the umask, writes the content whole and syncs it ({@code fsync}) before closing it.
         *
         * @throws java.nio.file.FileAlreadyExistsException when the name is taken
         */
        void createSynced(String name, int mode, byte[] content)
                throws IOException;

        /**
         * Sets a regular file's mode, the set-id and sticky bits included, by a descriptor opened without following a
         * link and without blocking: an entry of this directory that others write may have been swapped for a link or a
         * FIFO since it was created.
         *
         * @throws NotRegularFile when the entry is not a regular file (a link included)
         */
        void setMode(String name, int mode)
                throws IOException;

        /**
         * {@code unlinkat}: removes an entry that is not a directory.
         *
         * @return whether it was there
         */
        boolean delete(String name)
                throws IOException;

        /** {@code fsync} of the directory itself: a rename or delete in it survives a crash. */
        void sync()
                throws IOException;

        /**
         * {@link FileSystemCalls#readRegularFile}, for an entry of this directory.
         *
         * @return at most {@code limit + 1} bytes
         */
        byte[] readRegularFile(String name, long limit)
                throws IOException;

        @Override
        void close();
    }

    /**
     * What {@code statx} says of an entry.
     *
     * @param mode  {@code st_mode}: the file type, permission and set-id bits
     * @param links the number of hard links
     * @param uid   the owner
     * @param gid   the group
     */
    record Status(int mode, int links, int uid, int gid) {}

    /**
     * Extended attributes carried from one file to another.
     *
     * @param kept    the names copied
     * @param notKept each name that could not be copied, with the reason: {@code trusted.x (EPERM: operation not permitted)}
     */
    record CopiedAttributes(List<String> kept, List<String> notKept)
    {
        public CopiedAttributes
        {
            kept = List.copyOf(kept);
            notKept = List.copyOf(notKept);
        }
    }

    /** The path names something other than a regular file: a link, a directory, a FIFO, a socket or a device. */
    final class NotRegularFile
            extends IOException
    {
        private final String kind;

        public NotRegularFile(Path file, String kind)
        {
            super(file + " is " + kind + ", not a regular file");
            this.kind = kind;
        }

        /** @return what it is, as "a FIFO", "a symbolic link", ... */
        public String kind()
        {
            return kind;
        }
    }

    /** A component below the base is a link (not followed) or not a directory. */
    final class LinkBelowBase
            extends IOException
    {
        public LinkBelowBase(Path base, Path relative)
        {
            super(base.resolve(relative) + " has a link or a non-directory below " + base);
        }
    }

    /** @return whether a {@code st_mode} is a symbolic link's */
    static boolean isSymbolicLink(int mode)
    {
        return (mode & 0170000) == 0120000;
    }

    /** @return whether a {@code st_mode} is a directory's */
    static boolean isDirectory(int mode)
    {
        return (mode & 0170000) == 0040000;
    }

    /** @return whether a {@code st_mode} is a regular file's */
    static boolean isRegularFile(int mode)
    {
        return (mode & 0170000) == 0100000;
    }

    /** Names the type bits of a {@code st_mode}. */
    static String kindOf(int mode)
    {
        return switch (mode & 0170000) {
            case 0100000 -> "a regular file";
            case 0040000 -> "a directory";
            case 0120000 -> "a symbolic link";
            case 0010000 -> "a FIFO";
            case 0140000 -> "a socket";
            case 0020000 -> "a character device";
            case 0060000 -> "a block device";
            default -> "a special file";
        };
    }
}
