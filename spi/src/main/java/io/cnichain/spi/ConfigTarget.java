package io.cnichain.spi;

import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * A configuration file an adapter wants patched.
 *
 * @param path   the host path of the file as the runtime or platform sees it (for example
 *               {@code /etc/cni/net.d/10-oci.conflist}, which may be a link)
 * @param target the host path of the regular file that {@code path} resolves to; the core writes this file
 *               and keeps every link on the way
 * @param reason why this file is authoritative, shown in logs and in {@code cni-chain detect}
 */
public record ConfigTarget(Path path, Path target, String reason)
{
    public ConfigTarget
    {
        requireNonNull(path, "path is null");
        requireNonNull(target, "target is null");
        requireNonNull(reason, "reason is null");
    }

    /**
     * Builds a target from an entry of the {@link NodeView} whose link chain resolved to a regular file.
     *
     * @param entry  the entry, which must have a {@link ConfigEntry#target() target}
     * @param reason why it is authoritative
     * @return the target
     * @throws AdapterException with code {@link AdapterException.Code#NOT_PATCHABLE} when the entry did not
     *                          resolve to a regular file
     */
    public static ConfigTarget of(ConfigEntry entry, String reason)
    {
        Path target = entry.target().orElseThrow(() -> new AdapterException(
                AdapterException.Code.NOT_PATCHABLE,
                entry.path() + ": cannot be patched: " + entry.problem().orElse("it does not resolve to a regular file")));
        return new ConfigTarget(entry.path(), target, reason);
    }

    /**
     * @return whether the path is a link to another file
     */
    public boolean isLinked()
    {
        return !path.equals(target);
    }
}
