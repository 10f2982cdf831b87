package io.cnichain.core.discovery;

import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.core.fs.SymlinkResolver;
import io.cnichain.core.host.HostPaths;

import java.nio.file.Path;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Where things are on a node: the host root as the agent sees it and the host paths of the configuration
 * and binary directories. Takes {@link NodeSnapshot snapshots}.
 *
 * @param host           where the host filesystem is mounted
 * @param confDir        host path of the CNI configuration directory
 * @param binDir         host path of the CNI binary directory
 * @param allowedRoots   host directories a symlink may resolve into
 * @param maxConfigBytes the largest configuration file read
 */
public record NodeLayout(HostPaths host, Path confDir, Path binDir, List<Path> allowedRoots, long maxConfigBytes)
{
    public NodeLayout
    {
        requireNonNull(host, "host is null");
        requireNonNull(confDir, "confDir is null");
        requireNonNull(binDir, "binDir is null");
        allowedRoots = List.copyOf(allowedRoots);
    }

    /**
     * @return a fresh snapshot of the node
     */
    public NodeSnapshot snapshot()
    {
        return NodeSnapshot.take(this, new SymlinkResolver(host, allowedRoots), new BoundedFileReader(maxConfigBytes));
    }

    /** The conf dir as the agent sees it. */
    public Path containerConfDir()
    {
        return host.toContainer(confDir);
    }

    /** The bin dir as the agent sees it. */
    public Path containerBinDir()
    {
        return host.toContainer(binDir);
    }
}
