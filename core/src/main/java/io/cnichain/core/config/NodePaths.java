package io.cnichain.core.config;

import io.cnichain.core.fs.linux.FileSystemCalls;
import io.cnichain.core.host.HostPaths;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

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
 * @param configuredConfDir the conf dir as configured; {@code confDir} is where it led when the agent started, when it
 *                       is reached through a link
 */
public record NodePaths(Path hostRoot, Path confDir, Path binDir, Path sourceBinDir, List<Path> allowedRoots, long maxConfigBytes,
        Path configuredConfDir)
{
    public NodePaths
    {
        requireNonNull(hostRoot, "hostRoot is null");
        requireNonNull(confDir, "confDir is null");
        requireNonNull(configuredConfDir, "configuredConfDir is null");
        requireNonNull(binDir, "binDir is null");
        requireNonNull(sourceBinDir, "sourceBinDir is null");
        allowedRoots = List.copyOf(allowedRoots);
    }

    /**
     * The runtime follows the configured conf dir's links on every read; the agent works where they led when it
     * started. Should they lead elsewhere now, the runtime loads files the agent does not look at.
     *
     * @return why, when the configured conf dir now leads to another directory than the one the agent works in
     */
    public Optional<String> confDirMoved()
    {
        return moved(new HostPaths(hostRoot).withoutLinks(configuredConfDir));
    }

    /**
     * {@link #confDirMoved()}, asked again and again: the walk is remembered (see {@link HostPaths#walk}).
     *
     * @return a question to ask as often as needed, on one thread
     */
    public Supplier<Optional<String>> confDirMovedAgain(FileSystemCalls calls)
    {
        HostPaths.Walk walk = new HostPaths(hostRoot).walk(configuredConfDir, calls);
        return () -> moved(walk.now());
    }

    private Optional<String> moved(Optional<Path> now)
    {
        if (now.isEmpty() || now.get().equals(confDir)) {
            return Optional.empty();
        }
        return Optional.of("the conf dir " + configuredConfDir + " now leads to " + now.get() + ", not to " + confDir
                + ", where the agent works since it started: the runtime loads files the agent does not see; restart the agent");
    }
}
