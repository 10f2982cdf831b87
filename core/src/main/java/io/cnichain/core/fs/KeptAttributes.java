package io.cnichain.core.fs;

import io.cnichain.core.fs.linux.FileSystemCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.UserPrincipal;
import java.util.Optional;

/** What a file {@link AtomicFileWriter} replaces keeps beyond its bytes: owner, group, set-id bits, ACL, extended attributes. */
final class KeptAttributes
{
    private static final Logger LOG = LoggerFactory.getLogger(AtomicFileWriter.class);

    private KeptAttributes() {}

    /**
     * What the permission set does not hold, kept from the file replaced: the set-user-id, set-group-id and sticky bits
     * (read by number in the held directory when the kernel's calls hold it, else by path; set in it, never through a
     * link), then the extended attributes (the POSIX ACL, {@code security.*},
     * {@code trusted.*}, {@code user.*}), in the held directory. What cannot be kept, a hard link among it, is said.
     */
    static void carryOver(WriteDirectory directory, String name, String tempName, Path target, Path temp, Path reportedPath,
            Optional<FileSystemCalls.Status> replaced)
            throws IOException
    {
        int mode = replaced.isPresent() ? replaced.get().mode() : (Integer) Files.getAttribute(target, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        if ((mode & 07000) != 0) {
            // Never through a link: the temp's name is in a directory others write, and one swapped in for a link
            // would have the set-id bits land on the file it leads to.
            directory.setMode(tempName, mode & 07777);
        }
        FileSystemCalls.CopiedAttributes copied = directory.copyExtendedAttributes(name, tempName);
        if (!copied.notKept().isEmpty()) {
            LOG.warn("{}: the new version lacks extended attributes the old one had: {}; kept: {}", reportedPath,
                    String.join(", ", copied.notKept()), copied.kept().isEmpty() ? "none" : String.join(", ", copied.kept()));
        }
        int links = replaced.isPresent() ? replaced.get().links() : (Integer) Files.getAttribute(target, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
        if (links > 1) {
            LOG.warn("{}: has {} hard links; the new version replaces this name only, the other {} still hold the old bytes (a write"
                    + " a reader can never see half of is a rename, and a rename makes a new file)", reportedPath, links, links - 1);
        }
    }

    /**
     * Whether the new file already has the owner and group of the one it replaces, by number: as a rule it has (the
     * agent's own, root's), and then neither is looked up by name.
     */
    static boolean sameOwner(FileSystemCalls.Status replaced, Optional<FileSystemCalls.Status> created)
    {
        return created.isPresent() && replaced.uid() == created.get().uid() && replaced.gid() == created.get().gid();
    }

    static void setOwner(PosixFileAttributeView view, Optional<UserPrincipal> owner, Optional<GroupPrincipal> group)
            throws IOException
    {
        PosixFileAttributes created = view.readAttributes();
        if (owner.isPresent() && !created.owner().equals(owner.get())) {
            view.setOwner(owner.get());
        }
        if (group.isPresent() && !created.group().equals(group.get())) {
            view.setGroup(group.get());
        }
    }
}
