package io.cnichain.core.config;

import java.nio.file.Path;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Where things are on the node. Host paths are paths as the node sees them; container paths are as the agent sees
 * them (the host's {@code /} is at {@code hostRoot}).
 *
 * @param hostRoot       container path where the host's root is mounted
 * @param confDir        host path of the CNI configuration directory
 * @param binDir         host path of the CNI binary directory
 * @param sourceBinDir   container path of the binaries to install
 * @param allowedRoots   host directories symlinks may resolve into
 * @param maxConfigBytes the largest configuration file read
 */
public record NodePaths(Path hostRoot, Path confDir, Path binDir, Path sourceBinDir, List<Path> allowedRoots, long maxConfigBytes)
{
    public NodePaths
    {
        requireNonNull(hostRoot, "hostRoot is null");
        requireNonNull(confDir, "confDir is null");
        requireNonNull(binDir, "binDir is null");
        requireNonNull(sourceBinDir, "sourceBinDir is null");
        allowedRoots = List.copyOf(allowedRoots);
    }
}
