package io.cnichain.core.host;

import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * The agent runs in a container that sees the host's filesystem under a mount prefix ({@code /host} by
 * default). Configuration paths and absolute symlink targets are host paths; every file access goes through
 * {@link #toContainer(Path)}. With a root of {@code /} the two are the same.
 *
 * @param root where the host's root directory is mounted, as the agent sees it
 */
public record HostPaths(Path root)
{
    private static final Path SLASH = Path.of("/");

    public HostPaths
    {
        requireNonNull(root, "root is null");
        root = root.toAbsolutePath().normalize();
    }

    /**
     * @param hostPath an absolute host path
     * @return where the agent finds it
     */
    public Path toContainer(Path hostPath)
    {
        Path normalized = SLASH.resolve(hostPath).normalize();
        if (root.equals(SLASH)) {
            return normalized;
        }
        return root.resolve(SLASH.relativize(normalized).toString()).normalize();
    }

    /**
     * @param containerPath a path the agent sees, under the host root
     * @return the host path, or the path itself when it is not under the host root
     */
    public Path toHost(Path containerPath)
    {
        Path normalized = containerPath.toAbsolutePath().normalize();
        if (root.equals(SLASH) || !normalized.startsWith(root)) {
            return normalized;
        }
        return SLASH.resolve(root.relativize(normalized).toString());
    }
}
