package io.cnichain.spi;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One entry of a directory on the node, with its symlinks already resolved by the core.
 *
 * @param name            the file name
 * @param path            the host path of the entry itself
 * @param kind            what the entry itself is (a symlink is {@link EntryKind#SYMLINK} whatever it points to)
 * @param linkChain       the host path of every symlink followed on the way, in order; empty when no link was
 *                        followed
 * @param resolvedFile    the host path of the regular file at the end of the chain, when the core accepts it
 *                        (inside the allowed roots, a regular file, no loop); for a regular file, its own path
 * @param problem         why there is no resolved file (dangling link, loop, outside the allowed roots, a FIFO, a
 *                        directory...), as one line naming the file and the reason
 * @param runtimeLoadable whether the container runtime reads this entry as a configuration, as libcni decides it:
 *                        the name's extension is exactly {@code .conf}, {@code .conflist} or {@code .json} (hidden
 *                        files included) and the entry is not a directory
 */
public record ConfigEntry(
        String name,
        Path path,
        EntryKind kind,
        List<Path> linkChain,
        Optional<Path> resolvedFile,
        Optional<String> problem,
        boolean runtimeLoadable)
{
    public ConfigEntry
    {
        requireNonNull(name, "name is null");
        requireNonNull(path, "path is null");
        requireNonNull(kind, "kind is null");
        linkChain = List.copyOf(requireNonNull(linkChain, "linkChain is null"));
        requireNonNull(resolvedFile, "resolvedFile is null");
        requireNonNull(problem, "problem is null");
        if (resolvedFile.isPresent() == problem.isPresent()) {
            throw new IllegalArgumentException("exactly one of resolvedFile and problem must be present for " + path);
        }
    }

    /**
     * @return whether the entry itself is a symbolic link
     */
    public boolean isSymlink()
    {
        return kind == EntryKind.SYMLINK;
    }

    /**
     * @return whether the entry resolves to a regular file the core may read and write
     */
    public boolean resolves()
    {
        return resolvedFile.isPresent();
    }

    /**
     * @return the file name of the resolved file, when there is one (for a regular file, its own name)
     */
    public Optional<String> resolvedFileName()
    {
        return resolvedFile.isPresent() ? Optional.of(resolvedFile.get().getFileName().toString()) : Optional.empty();
    }

    /** What a directory entry is, without following links. */
    public enum EntryKind
    {
        /** A regular file. */
        FILE,
        /** A symbolic link, whatever it points to. */
        SYMLINK,
        /** A directory. */
        DIRECTORY,
        /** A FIFO, socket or device. */
        OTHER,
    }
}
