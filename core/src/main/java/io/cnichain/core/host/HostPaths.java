package io.cnichain.core.host;

import io.cnichain.core.fs.linux.FileSystemCalls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

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
        return withoutLinks(hostPath, HostPaths::javaKind, new ArrayList<>());
    }

    /**
     * {@link #withoutLinks(Path)} asked again and again of one path (the agent's look every second): each walk is
     * remembered, and the next look asks the kernel only about the names it visited, walking again only when one of
     * them changed: a walk makes and takes apart a dozen paths, which done every second showed in an idle agent's
     * resident memory. Looks with these calls ({@code statx} on Java 25), so not at start-up: they may still be
     * linking then.
     * <p>
     * The answer is the same as a fresh walk's: a walk's result depends only on what each name it visits is (nothing,
     * a link and its target, or anything else), and each name it visits on what the names before it were.
     */
    public Walk walk(Path hostPath, FileSystemCalls calls)
    {
        requireNonNull(calls, "calls is null");
        return new Walk(hostPath, path -> {
            OptionalInt mode = calls.modeOf(path);
            if (mode.isEmpty()) {
                return Kind.ABSENT;
            }
            return FileSystemCalls.isSymbolicLink(mode.getAsInt()) ? Kind.LINK : Kind.OTHER;
        });
    }

    /** One path's walk without links, remembered; not for concurrent use. */
    public final class Walk
    {
        private final Path hostPath;
        private final Probe probe;
        /** The names the last walk looked at, in order, and what each was; empty when it ended on an error. */
        private List<Step> steps = List.of();
        private Optional<Path> result = Optional.empty();

        private Walk(Path hostPath, Probe probe)
        {
            this.hostPath = requireNonNull(hostPath, "hostPath is null");
            this.probe = probe;
        }

        /** @return what {@link #withoutLinks(Path)} returns now */
        public Optional<Path> now()
        {
            if (steps.isEmpty() || changed()) {
                List<Step> taken = new ArrayList<>();
                result = withoutLinks(hostPath, probe, taken);
                // A walk that ended on an error (a link that cannot be read, a loop) is not remembered.
                steps = taken.isEmpty() || taken.get(taken.size() - 1).kind() == null ? List.of() : taken;
            }
            return result;
        }

        private boolean changed()
        {
            for (Step step : steps) {
                try {
                    if (probe.kindOf(step.seen()) != step.kind()
                            || step.kind() == Kind.LINK && !Files.readSymbolicLink(step.seen()).equals(step.target())) {
                        return true;
                    }
                }
                catch (IOException e) {
                    return true;
                }
            }
            return false;
        }
    }

    /** A name a walk looked at: what it was (null: the look failed), and where it led when a link. */
    private record Step(Path seen, Kind kind, Path target) {}

    private enum Kind
    {
        ABSENT, LINK, OTHER
    }

    /** What is at a container path, not followed. */
    @FunctionalInterface
    private interface Probe
    {
        Kind kindOf(Path path)
                throws IOException;
    }

    private static Kind javaKind(Path path)
            throws IOException
    {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isSymbolicLink() ? Kind.LINK : Kind.OTHER;
        }
        catch (NoSuchFileException e) {
            return Kind.ABSENT;
        }
    }

    /** @param taken where each name looked at is told, in order */
    private Optional<Path> withoutLinks(Path hostPath, Probe probe, List<Step> taken)
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
            Kind kind;
            try {
                kind = probe.kindOf(seen);
            }
            catch (IOException e) {
                return failed(seen, taken);
            }
            if (kind == Kind.ABSENT) {
                taken.add(new Step(seen, kind, null));
                return Optional.empty();
            }
            if (kind == Kind.LINK) {
                Path target;
                try {
                    target = Files.readSymbolicLink(seen);
                }
                catch (IOException e) {
                    return failed(seen, taken);
                }
                if (++links > 40) {
                    return failed(seen, taken);
                }
                taken.add(new Step(seen, kind, target));
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
            else {
                taken.add(new Step(seen, kind, null));
                resolved = next;
            }
        }
        return Optional.of(resolved);
    }

    /** A walk that cannot go on: empty, and not to be remembered. */
    private static Optional<Path> failed(Path seen, List<Step> taken)
    {
        taken.add(new Step(seen, null, null));
        return Optional.empty();
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
