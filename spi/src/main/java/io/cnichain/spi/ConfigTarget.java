package io.cnichain.spi;

import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * A configuration file an adapter wants patched: an entry of the {@link NodeView} that resolves to a regular file,
 * and why it is authoritative. The core resolves {@link #path()} again itself before it writes, and writes only the
 * regular file it finds there, keeping every link on the way; two targets that resolve to the same file are patched
 * once (under the first target's path).
 *
 * @param entry  the entry, as the view gave it; it must {@link ConfigEntry#resolves() resolve}
 * @param reason why this file is authoritative, shown in logs and in {@code cni-chain detect}
 */
public record ConfigTarget(ConfigEntry entry, String reason)
{
    public ConfigTarget
    {
        requireNonNull(entry, "entry is null");
        requireNonNull(reason, "reason is null");
        if (!entry.resolves()) {
            throw new AdapterException(AdapterException.Code.NOT_PATCHABLE,
                    entry.path() + ": cannot be patched: " + entry.problem().orElse("it does not resolve to a regular file"));
        }
    }

    /**
     * @param entry  an entry of the view that resolves to a regular file
     * @param reason why it is authoritative
     * @return the target
     * @throws AdapterException with code {@link AdapterException.Code#NOT_PATCHABLE} when the entry does not resolve
     */
    public static ConfigTarget of(ConfigEntry entry, String reason)
    {
        return new ConfigTarget(entry, reason);
    }

    /**
     * @return the host path of the file as the runtime or the platform sees it (possibly a link)
     */
    public Path path()
    {
        return entry.path();
    }

    /**
     * @return the host path of the regular file that {@link #path()} resolves to, the file the core writes
     */
    public Path resolvedFile()
    {
        return entry.resolvedFile().orElseThrow();
    }
}
