package io.cnichain.core.fs;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.fs.linux.FileSystemCalls;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import static java.util.Objects.requireNonNull;

/**
 * Every write the agent makes goes through here: a temp file in the target's own directory (so the rename
 * stays on one filesystem) with a name no runtime or watcher takes for a configuration, fsync, an atomic
 * rename over the target, and an fsync of the directory so the rename survives a crash. The target's mode
 * and owner are kept. A reader therefore sees the old file or the new one, never a part of either. Every step
 * happens relative to the one directory, held open ({@link WriteDirectory}).
 */
public final class AtomicFileWriter
{
    /** Temp files start with a dot and end in {@code .tmp}: never a configuration, never a runtime's match. */
    public static final String TEMP_PREFIX = ".cni-chain-";
    public static final String TEMP_SUFFIX = ".tmp";

    private static final BeforeRename NOTHING_BEFORE_RENAME = (temp, target) -> { };

    private final BeforeRename beforeRename;

    public AtomicFileWriter()
    {
        this(NOTHING_BEFORE_RENAME);
    }

    /**
     * @param beforeRename called after the temp file is complete and synced, just before the rename; tests
     *                     use it to stop there, as a crash would
     */
    public AtomicFileWriter(BeforeRename beforeRename)
    {
        this.beforeRename = requireNonNull(beforeRename, "beforeRename is null");
    }

    /**
     * @param name a file name
     * @return whether the name is one of our temp files
     */
    public static boolean isTempName(String name)
    {
        return name.startsWith(TEMP_PREFIX) && name.endsWith(TEMP_SUFFIX);
    }

    /**
     * Replaces (or creates) a regular file atomically, in its directory as the path leads there.
     *
     * @param target       the file as the agent sees it; must not be a link (callers write a link's final target)
     * @param reportedPath the path to name in errors and logs (the host path)
     * @param content      the new content
     * @param mode         the permissions: a new file's, or every file's when {@link FileMode#exact()}
     * @param expected     when present, the content the target must still have just before the rename; when it
     *                     changed meanwhile the write is abandoned with {@link ErrorCode#CONCURRENT_CHANGE}
     */
    public void write(Path target, Path reportedPath, byte[] content, FileMode mode, Optional<byte[]> expected)
    {
        Path absolute = target.toAbsolutePath();
        writeBelow(absolute.getParent(), absolute, reportedPath, content, mode, expected);
    }

    /**
     * {@link #write}, for a file whose path was resolved below {@code base} when no directory on the way was a link:
     * should one have become a link since, the write is refused rather than taken wherever that link leads (outside the
     * allowed roots, perhaps). Every step happens in the one directory reached that way, held open.
     *
     * @param base the directory the resolved path starts from, trusted as it is (the host root)
     */
    public void writeBelow(Path base, Path target, Path reportedPath, byte[] content, FileMode mode, Optional<byte[]> expected)
    {
        write(base, target, reportedPath, (directory, name, permissions) -> directory.createSynced(name, permissions, content), mode, expected, false);
    }

    /**
     * {@link #write}, with the content copied from another file as it is read, never held whole: a plugin's binary may
     * be larger than the agent's heap.
     *
     * @param source the file to copy
     */
    public void copy(Path target, Path reportedPath, Path source, FileMode mode)
    {
        Path absolute = target.toAbsolutePath();
        write(absolute.getParent(), absolute, reportedPath, (directory, name, permissions) -> directory.createSyncedFrom(name, permissions, source), mode,
                Optional.empty(), false);
    }

    /**
     * {@link #writeBelow}, for a file that must not exist: it is never replaced, not even when it appears while the
     * new one is written (renameat2 RENAME_NOREPLACE where the kernel has it; a check just before the rename where not).
     *
     * @throws CniChainException {@link ErrorCode#CONCURRENT_CHANGE} when the file exists
     */
    public void createBelow(Path base, Path target, Path reportedPath, byte[] content, FileMode mode)
    {
        write(base, target, reportedPath, (directory, name, permissions) -> directory.createSynced(name, permissions, content), mode, Optional.empty(),
                true);
    }

    /** What fills the temp file: it creates it (never through a link, never over an entry), writes it whole and syncs it. */
    @FunctionalInterface
    private interface Content
    {
        void create(WriteDirectory directory, String name, Set<PosixFilePermission> permissions)
                throws IOException;
    }

    private void write(Path base, Path target, Path reportedPath, Content content, FileMode mode, Optional<byte[]> expected, boolean mustBeNew)
    {
        Path absolute = target.toAbsolutePath();
        String name = absolute.getFileName().toString();
        String tempName = TEMP_PREFIX + name + "." + randomSuffix() + TEMP_SUFFIX;
        Path temp = absolute.resolveSibling(tempName);
        try (WriteDirectory directory = WriteDirectory.open(base.toAbsolutePath(), absolute.getParent())) {
            Optional<WriteDirectory.Replaced> existing = directory.replaced(name);
            if (existing.isPresent() && !existing.get().regularFile()) {
                throw new CniChainException(ErrorCode.IO, reportedPath, "is not a regular file; refusing to replace it");
            }
            if (existing.isPresent() && mustBeNew) {
                throw new CniChainException(ErrorCode.CONCURRENT_CHANGE, reportedPath, "exists, and is not ours to replace; not written");
            }
            Set<PosixFilePermission> permissions = existing.isPresent() && !mode.exact() ? existing.get().permissions() : mode.permissions();
            try {
                // Created with its final mode (less the umask) so a secret is never readable by others, not even
                // for a moment; the mode is set exactly once the file is complete, unless it already is.
                content.create(directory, tempName, permissions);
                Optional<FileSystemCalls.Status> created = directory.status(tempName);
                if (created.isEmpty() || (created.get().mode() & 07777) != FileMode.bits(permissions)) {
                    directory.view(tempName).setPermissions(permissions);
                }
                Optional<FileSystemCalls.Status> replaced = existing.flatMap(WriteDirectory.Replaced::status);
                // A file wholly ours (exactly) keeps the agent's owner, whoever owned the one it replaces: that owner
                // could otherwise write a binary root runs, or read the token.
                boolean inherits = existing.isPresent() && !mode.exact();
                boolean ownerKept = mode.owner().isEmpty() && mode.group().isEmpty()
                        && (!inherits || replaced.isPresent() && KeptAttributes.sameOwner(replaced.get(), created));
                if (!ownerKept) {
                    // By name, as Java's file API has them: the replaced file's, unless the mode names its own.
                    Optional<PosixFileAttributes> named = inherits && (mode.owner().isEmpty() || mode.group().isEmpty())
                            ? directory.attributes(name) : Optional.empty();
                    Optional<UserPrincipal> owner = mode.owner().isPresent() || !inherits ? mode.owner() : named.map(PosixFileAttributes::owner);
                    Optional<GroupPrincipal> group = mode.group().isPresent() || !inherits ? mode.group() : named.map(PosixFileAttributes::group);
                    if (owner.isPresent() || group.isPresent()) {
                        KeptAttributes.setOwner(directory.view(tempName), owner, group);
                    }
                }
                if (existing.isPresent() && !mode.exact()) {
                    // After the owner: a change of owner clears the set-id bits.
                    KeptAttributes.carryOver(directory, name, tempName, absolute, temp, reportedPath, replaced);
                }
                beforeRename.run(temp, absolute);
                if (expected.isPresent()) {
                    checkUnchanged(directory, name, reportedPath, expected.get());
                    replaceUnlessChanged(directory, tempName, name, reportedPath, expected.get());
                }
                else if (mustBeNew) {
                    createUnlessPresent(directory, tempName, name, reportedPath);
                }
                else {
                    directory.rename(tempName, name);
                }
                directory.sync();
            }
            catch (CniChainException e) {
                deleteQuietly(directory, tempName);
                throw e;
            }
            catch (FileAlreadyExistsException e) {
                throw new CniChainException(ErrorCode.IO, reportedPath, "temp file " + tempName + " already exists", e);
            }
            catch (IOException e) {
                deleteQuietly(directory, tempName);
                throw new CniChainException(ErrorCode.IO, reportedPath, "cannot be written: " + describe(e), e);
            }
        }
        catch (WriteDirectory.LinkOnTheWay e) {
            throw new CniChainException(ErrorCode.IO, reportedPath, "not written: " + e.where + " became a link (or is no longer a directory) since the"
                    + " path was resolved", e);
        }
        catch (IOException e) {
            throw new CniChainException(ErrorCode.IO, reportedPath, "cannot be written: " + describe(e), e);
        }
    }

    /**
     * Deletes a file and syncs its directory.
     *
     * @return whether the file existed
     */
    public boolean delete(Path target, Path reportedPath)
    {
        Path absolute = target.toAbsolutePath();
        return deleteBelow(absolute.getParent(), absolute, reportedPath);
    }

    /**
     * {@link #delete}, reaching the file's directory from {@code base} without following a link (see {@link #writeBelow}).
     *
     * @return whether the file existed
     */
    public boolean deleteBelow(Path base, Path target, Path reportedPath)
    {
        Path absolute = target.toAbsolutePath();
        try (WriteDirectory directory = WriteDirectory.open(base.toAbsolutePath(), absolute.getParent())) {
            boolean existed = directory.delete(absolute.getFileName().toString());
            if (existed) {
                directory.sync();
            }
            return existed;
        }
        catch (WriteDirectory.LinkOnTheWay e) {
            throw new CniChainException(ErrorCode.IO, reportedPath, "not deleted: " + e.where + " became a link (or is no longer a directory) since"
                    + " the path was resolved", e);
        }
        catch (IOException e) {
            throw new CniChainException(ErrorCode.IO, reportedPath, "cannot be deleted: " + describe(e), e);
        }
    }

    /**
     * Removes temp files that a crashed run of ours left in a directory.
     *
     * @param directory a directory as the agent sees it
     * @return the files removed
     */
    public List<Path> removeStaleTemps(Path directory)
    {
        List<Path> removed = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return removed;
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
            for (Path temp : stream) {
                if (isTempName(temp.getFileName().toString()) && Files.deleteIfExists(temp)) {
                    removed.add(temp);
                }
            }
        }
        catch (IOException e) {
            // Best effort: a temp file we cannot remove is ignored by every reader anyway.
        }
        return removed;
    }

    /**
     * Swaps the new file in (RENAME_EXCHANGE), then looks at what it displaced: when that is not the content the
     * patch was made from, another writer's update came in after {@link #checkUnchanged}; it is swapped back, so it is
     * never lost. Where the kernel or the file system cannot exchange, the plain rename leaves that short window.
     */
    private static void replaceUnlessChanged(WriteDirectory directory, String tempName, String name, Path reportedPath, byte[] expected)
            throws IOException
    {
        try {
            directory.exchange(tempName, name);
        }
        catch (UnsupportedOperationException e) {
            directory.rename(tempName, name);
            return;
        }
        catch (NoSuchFileException e) {
            throw new CniChainException(ErrorCode.CONCURRENT_CHANGE, reportedPath, "was removed while we patched it; not written");
        }
        byte[] displaced = directory.read(tempName, expected.length);
        if (!Arrays.equals(displaced, expected)) {
            directory.exchange(tempName, name);
            throw new CniChainException(ErrorCode.CONCURRENT_CHANGE, reportedPath, "changed just before our rename; the other writer's"
                    + " version was put back, ours not written; the change will be handled next");
        }
        directory.delete(tempName);
    }

    /** A new file never replaces one that appeared while it was written (RENAME_NOREPLACE where the kernel has it). */
    private static void createUnlessPresent(WriteDirectory directory, String tempName, String name, Path reportedPath)
            throws IOException
    {
        try {
            directory.renameNoReplace(tempName, name);
        }
        catch (UnsupportedOperationException e) {
            if (directory.replaced(name).isPresent()) {
                throw new CniChainException(ErrorCode.CONCURRENT_CHANGE, reportedPath, "appeared while we wrote it; not replaced");
            }
            directory.rename(tempName, name);
        }
        catch (FileAlreadyExistsException e) {
            throw new CniChainException(ErrorCode.CONCURRENT_CHANGE, reportedPath, "appeared while we wrote it; not replaced");
        }
    }

    private static void checkUnchanged(WriteDirectory directory, String name, Path reportedPath, byte[] expected)
            throws IOException
    {
        byte[] current;
        try {
            current = directory.read(name, expected.length);
        }
        catch (NoSuchFileException e) {
            throw new CniChainException(ErrorCode.CONCURRENT_CHANGE, reportedPath, "was removed while we patched it; not written");
        }
        if (!Arrays.equals(current, expected)) {
            throw new CniChainException(ErrorCode.CONCURRENT_CHANGE, reportedPath, "changed while we patched it; not written, the change will be handled next");
        }
    }

    private static void deleteQuietly(WriteDirectory directory, String tempName)
    {
        try {
            directory.delete(tempName);
        }
        catch (IOException ignored) {
            // The next run removes stale temp files.
        }
    }

    /** @return the reason in a few words: the JDK's message for a denial is only the path */
    public static String describe(IOException e)
    {
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "directory " + e.getMessage() + " does not exist";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /**
     * Not a secure random, and it need not be: the temp file is created exclusively and without following links (a
     * taken name fails, it is never reused), so a name that can be guessed costs nothing.
     */
    private static String randomSuffix()
    {
        return HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()).substring(4);
    }

    /** A hook between the complete temp file and the rename. */
    @FunctionalInterface
    public interface BeforeRename
    {
        void run(Path temp, Path target)
                throws IOException;
    }
}
