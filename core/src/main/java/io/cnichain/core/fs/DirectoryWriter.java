package io.cnichain.core.fs;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/** Directories made and removed under the rules of every write: reached link-free from a trusted base, then synced. */
public final class DirectoryWriter
{
    /**
     * Creates a directory, its parent reached from {@code base} without following a link, and syncs the parent. The
     * directory itself is made by path; a parent swapped for a link in between fails the first write into the new
     * directory, which is reached link-free again.
     *
     * @return whether it was created (false: a directory was there already)
     */
    public boolean createDirectoryBelow(Path base, Path directory, Path reportedPath, Set<PosixFilePermission> permissions)
    {
        Path absolute = directory.toAbsolutePath();
        try (WriteDirectory parent = WriteDirectory.open(base.toAbsolutePath(), absolute.getParent())) {
            Optional<PosixFileAttributes> existing = parent.attributes(absolute.getFileName().toString());
            if (existing.isPresent()) {
                if (!existing.get().isDirectory()) {
                    throw new CniChainException(ErrorCode.IO, reportedPath, "is " + (existing.get().isSymbolicLink() ? "a link" : "not a directory")
                            + "; not followed, not replaced");
                }
                return false;
            }
            Files.createDirectory(absolute, PosixFilePermissions.asFileAttribute(permissions));
            parent.sync();
            return true;
        }
        catch (WriteDirectory.LinkOnTheWay e) {
            throw new CniChainException(ErrorCode.IO, reportedPath, "not created: " + e.where + " became a link (or is no longer a directory) since"
                    + " the path was resolved", e);
        }
        catch (IOException e) {
            throw new CniChainException(ErrorCode.IO, reportedPath, "cannot be created: " + AtomicFileWriter.describe(e), e);
        }
    }

    /**
     * Removes an empty directory, reached from {@code base} without following a link, and syncs its parent.
     *
     * @return whether it was removed (false: it was not there, or not empty)
     */
    public boolean deleteEmptyDirectoryBelow(Path base, Path directory, Path reportedPath)
    {
        Path absolute = directory.toAbsolutePath();
        try (WriteDirectory parent = WriteDirectory.open(base.toAbsolutePath(), absolute.getParent())) {
            Optional<PosixFileAttributes> existing = parent.attributes(absolute.getFileName().toString());
            if (existing.isEmpty() || !existing.get().isDirectory()) {
                return false;
            }
            Files.delete(absolute);
            parent.sync();
            return true;
        }
        catch (DirectoryNotEmptyException e) {
            return false;
        }
        catch (WriteDirectory.LinkOnTheWay e) {
            throw new CniChainException(ErrorCode.IO, reportedPath, "not removed: " + e.where + " became a link (or is no longer a directory) since"
                    + " the path was resolved", e);
        }
        catch (IOException e) {
            throw new CniChainException(ErrorCode.IO, reportedPath, "cannot be removed: " + AtomicFileWriter.describe(e), e);
        }
    }
}
