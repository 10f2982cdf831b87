package io.cnichain.core.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

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
     * The host path with every link on the way resolved as the host would: an absolute target is a host path (under
     * the host root, never the agent's own), a relative one is taken from the link's directory.
     *
     * @param hostPath an absolute host path
     * @return the same directory or file named without links; empty when part of it does not exist (yet), a link
     *         cannot be read, or there are more than 40 links on the way (a loop)
     */
    public Optional<Path> withoutLinks(Path hostPath)
    {
        Deque<String> rest = new ArrayDeque<>();
        for (Path name : SLASH.resolve(hostPath).normalize()) {
            rest.addLast(name.toString());
        }
        Path resolved = SLASH;
        int links = 0;
        while (!rest.isEmpty()) {
            String name = rest.removeFirst();
            if (name.equals(".") || name.isEmpty()) {
                continue;
            }
            if (name.equals("..")) {
                resolved = resolved.getParent() == null ? SLASH : resolved.getParent();
                continue;
            }
            Path next = resolved.resolve(name);
            Path seen = toContainer(next);
            if (Files.isSymbolicLink(seen)) {
                if (++links > 40) {
                    return Optional.empty();
                }
                Path target;
                try {
                    target = Files.readSymbolicLink(seen);
                }
                catch (IOException e) {
                    return Optional.empty();
                }
                List<String> names = new ArrayList<>();
                for (Path part : target) {
                    names.add(part.toString());
                }
                for (int i = names.size() - 1; i >= 0; i--) {
                    rest.addFirst(names.get(i));
                }
                if (target.isAbsolute()) {
                    resolved = SLASH;
                }
            }
            else if (Files.exists(seen, LinkOption.NOFOLLOW_LINKS)) {
                resolved = next;
            }
            else {
                return Optional.empty();
            }
        }
        return Optional.of(resolved);
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
