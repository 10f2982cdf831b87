package io.cnichain.core.fs;

import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The permissions and owner of a written file. An existing file's owner and group are kept unless an owner is
 * given.
 *
 * @param permissions the permissions of a new file, or of every file when exact
 * @param exact       whether an existing file's permissions are replaced rather than kept
 * @param owner       the owner to give the file, when not the existing file's or ours
 * @param group       the group to give the file, likewise
 */
public record FileMode(Set<PosixFilePermission> permissions, boolean exact, Optional<UserPrincipal> owner, Optional<GroupPrincipal> group)
{
    public FileMode
    {
        permissions = Set.copyOf(permissions);
        requireNonNull(owner, "owner is null");
        requireNonNull(group, "group is null");
    }

    /** @return the permission bits of {@code st_mode} that these permissions make ({@code 0644}) */
    public static int bits(Set<PosixFilePermission> permissions)
    {
        int bits = 0;
        for (PosixFilePermission permission : permissions) {
            // OWNER_READ (0400) first, OTHERS_EXECUTE (0001) last.
            bits |= 0400 >> permission.ordinal();
        }
        return bits;
    }

    /** @return the permissions that the permission bits of {@code st_mode} make */
    public static Set<PosixFilePermission> permissions(int mode)
    {
        Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
        for (PosixFilePermission permission : PosixFilePermission.values()) {
            if ((mode & (0400 >> permission.ordinal())) != 0) {
                permissions.add(permission);
            }
        }
        return permissions;
    }

    /** Keep an existing file's mode; a new file gets these permissions. */
    public static FileMode keepExistingOr(Set<PosixFilePermission> permissions)
    {
        return new FileMode(permissions, false, Optional.empty(), Optional.empty());
    }

    /** Always these permissions, and the agent's own owner and group: a file wholly ours. */
    public static FileMode exactly(Set<PosixFilePermission> permissions)
    {
        return new FileMode(permissions, true, Optional.empty(), Optional.empty());
    }

    /** The mode, owner and group of another file: a file written in place of another takes them all. */
    public static FileMode sameAs(PosixFileAttributes original)
    {
        return new FileMode(original.permissions(), true, Optional.of(original.owner()), Optional.of(original.group()));
    }
}
