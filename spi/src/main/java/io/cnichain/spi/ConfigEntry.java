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
 * @param kind            what the entry itself is (a link is {@link EntryKind#SYMLINK} whatever it points to)
 * @param linkChain       the host paths of every symlink followed, starting with the entry when it is a link;
 *                        empty for a regular file
 * @param target          the host path of the regular file the entry resolves to, when resolution succeeded
 *                        and the target is one the core accepts (inside the allowed roots, a regular file)
 * @param problem         why there is no target (dangling link, loop, outside the allowed roots, a FIFO...),
 *                        as one line naming the file and the reason
 * @param runtimeLoadable whether a container runtime would consider this name a configuration
 *                        ({@code .conf}, {@code .conflist} or {@code .json}, not a name that is never a
 *                        configuration)
 */
public record ConfigEntry(
        String name,
        Path path,
        EntryKind kind,
        List<Path> linkChain,
        Optional<Path> target,
        Optional<String> problem,
        boolean runtimeLoadable)
{
    public ConfigEntry
    {
        requireNonNull(name, "name is null");
        requireNonNull(path, "path is null");
        requireNonNull(kind, "kind is null");
        linkChain = List.copyOf(requireNonNull(linkChain, "linkChain is null"));
        requireNonNull(target, "target is null");
        requireNonNull(problem, "problem is null");
        if (target.isPresent() == problem.isPresent()) {
            throw new IllegalArgumentException("exactly one of target and problem must be present for " + path);
        }
    }

    /**
     * @return whether the entry itself is a symbolic link
     */
    public boolean isLink()
    {
        return kind == EntryKind.SYMLINK;
    }

    /**
     * @return whether the entry resolves to a regular file the core may read and write
     */
    public boolean resolves()
    {
        return target.isPresent();
    }

    /**
     * @return the file name of the resolved target, when there is one (for a regular file, its own name)
     */
    public Optional<String> targetName()
    {
        return target.map(t -> t.getFileName().toString());
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
