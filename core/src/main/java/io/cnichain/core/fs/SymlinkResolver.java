package io.cnichain.core.fs;

import io.cnichain.core.fs.linux.FileSystemCalls;
import io.cnichain.core.host.HostPaths;
import io.cnichain.spi.ConfigEntry.EntryKind;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Resolves host paths the way the kernel would on the host, but inside the host root: component by
 * component, so that links in the middle of a path, relative targets with {@code ..} and absolute targets
 * (host paths) all land where they land on the node. Refuses loops, dangling links, targets outside the
 * allowed roots and anything that is not a regular file, each with a one-line reason.
 */
public final class SymlinkResolver
{
    /** The kernel gives up after 40 links (ELOOP); so do we. */
    static final int MAX_LINKS = 40;

    private static final Path SLASH = Path.of("/");

    private final HostPaths host;
    private final List<Path> allowedRoots;
    private final List<Path> realAllowedRoots;

    /**
     * @param host         where the host filesystem is mounted
     * @param allowedRoots host directories that resolved targets must lie under
     */
    public SymlinkResolver(HostPaths host, List<Path> allowedRoots)
    {
        this.host = requireNonNull(host, "host is null");
        List<Path> roots = new ArrayList<>();
        List<Path> realRoots = new ArrayList<>();
        for (Path allowed : allowedRoots) {
            Path root = SLASH.resolve(allowed).normalize();
            roots.add(root);
            // A root may itself be reached through a link (a conf dir that is a link on some distributions):
            // compare real locations with real locations.
            Optional<Walk> real = walk(root);
            realRoots.add(real.isPresent() ? real.get().path() : root);
        }
        this.allowedRoots = List.copyOf(roots);
        this.realAllowedRoots = List.copyOf(realRoots);
    }

    public List<Path> allowedRoots()
    {
        return allowedRoots;
    }

    /**
     * @param hostPath an absolute host path
     * @return where it leads
     */
    public Resolution resolve(Path hostPath)
    {
        Path path = SLASH.resolve(hostPath).normalize();
        OptionalInt own = lstat(path);
        if (own.isEmpty()) {
            return Resolution.refused(path, Optional.empty(), List.of(), "does not exist");
        }
        return resolveNormal(path, own.getAsInt());
    }

    /**
     * {@link #resolve(Path)} of a path whose own {@code lstat} the caller has just made: a pass first asks whether a
     * changed name is there at all (a primary's renamed temp file is not), and need not ask it twice.
     *
     * @param hostPath an absolute host path
     * @param mode     its {@code st_mode}, the last link not followed ({@link FileSystemCalls#modeOf})
     * @return where it leads
     */
    public Resolution resolve(Path hostPath, int mode)
    {
        return resolveNormal(SLASH.resolve(hostPath).normalize(), mode);
    }

    /**
     * @param hostPath an absolute host path
     * @return the host path where the way to it ends, its links followed: what it leads to, or the first name on the way
     *         that does not exist (where a dangling link's file would appear, or a directory on its way that is missing);
     *         empty when the way cannot be walked (a loop, a name on it that is not a directory)
     */
    public Optional<Path> wayEnd(Path hostPath)
    {
        try {
            return Optional.of(walkOrFail(SLASH.resolve(hostPath).normalize(), new ArrayList<>()).path());
        }
        catch (ResolveException e) {
            return e.missing;
        }
    }

    private Resolution resolveNormal(Path path, int mode)
    {
        EntryKind kind = kindOf(mode);
        List<Path> chain = new ArrayList<>();
        Walk walk;
        try {
            walk = walkOrFail(path, chain);
        }
        catch (ResolveException e) {
            return Resolution.refused(path, Optional.of(kind), chain, e.getMessage());
        }
        Path target = walk.path();
        int targetMode = walk.mode();
        String via = chain.isEmpty() ? "is" : "resolves to " + target + ",";
        if (FileSystemCalls.isDirectory(targetMode)) {
            return Resolution.refused(path, Optional.of(kind), chain, via + " a directory, not a regular file");
        }
        if (!FileSystemCalls.isRegularFile(targetMode)) {
            return Resolution.refused(path, Optional.of(kind), chain, via + " " + describeSpecial(target) + ", not a regular file");
        }
        if (!underAllowedRoot(target)) {
            return Resolution.outsideRoots(path, kind, chain, target, "resolves to " + target + ", outside the allowed roots "
                    + allowedRoots.stream().map(Path::toString).collect(Collectors.joining(", ", "[", "]"))
                    + "; add its directory to allowedRoots to patch it");
        }
        return Resolution.resolved(path, kind, chain, target);
    }

    private boolean underAllowedRoot(Path target)
    {
        for (Path root : realAllowedRoots) {
            if (target.startsWith(root) && !target.equals(root)) {
                return true;
            }
        }
        return false;
    }

    private Optional<Walk> walk(Path path)
    {
        try {
            return Optional.of(walkOrFail(path, new ArrayList<>()));
        }
        catch (ResolveException e) {
            return Optional.empty();
        }
    }

    private Walk walkOrFail(Path path, List<Path> chain)
            throws ResolveException
    {
        Deque<String> todo = new ArrayDeque<>();
        pushFront(todo, path);
        Path current = SLASH;
        OptionalInt root = lstat(SLASH);
        if (root.isEmpty()) {
            throw new ResolveException("the host root " + host.root() + " does not exist");
        }
        int mode = root.getAsInt();
        Set<String> seen = new HashSet<>();
        int links = 0;
        while (!todo.isEmpty()) {
            String name = todo.pop();
            if (name.isEmpty() || name.equals(".")) {
                continue;
            }
            if (name.equals("..")) {
                current = current.getParent() == null ? SLASH : current.getParent();
                OptionalInt parent = lstat(current);
                if (parent.isEmpty()) {
                    throw new ResolveException("a directory on the way vanished");
                }
                mode = parent.getAsInt();
                continue;
            }
            if (!FileSystemCalls.isDirectory(mode)) {
                throw new ResolveException(current + " is not a directory");
            }
            Path next = current.resolve(name);
            OptionalInt nextMode = lstat(next);
            if (nextMode.isEmpty()) {
                if (chain.isEmpty()) {
                    throw new ResolveException(next + " does not exist");
                }
                throw new ResolveException("dangling link: " + describeChain(chain) + " -> " + next + ", which does not exist", Optional.of(next));
            }
            if (FileSystemCalls.isSymbolicLink(nextMode.getAsInt())) {
                if (!seen.add(next + "\0" + String.join("/", todo))) {
                    chain.add(next);
                    throw new ResolveException("symlink loop: " + describeChain(chain));
                }
                if (++links > MAX_LINKS) {
                    throw new ResolveException("more than " + MAX_LINKS + " symlinks: " + describeChain(chain));
                }
                chain.add(next);
                Path linkTarget = readLink(next);
                if (linkTarget.isAbsolute()) {
                    // An absolute target is a host path: start again from the host root.
                    current = SLASH;
                    mode = lstat(SLASH).orElseThrow();
                }
                pushFront(todo, linkTarget);
                continue;
            }
            current = next;
            mode = nextMode.getAsInt();
        }
        return new Walk(current, mode);
    }

    private static void pushFront(Deque<String> todo, Path path)
    {
        List<String> names = new ArrayList<>();
        for (Path name : path) {
            names.add(name.toString());
        }
        for (int i = names.size() - 1; i >= 0; i--) {
            todo.push(names.get(i));
        }
    }

    private Path readLink(Path hostPath)
            throws ResolveException
    {
        try {
            return Files.readSymbolicLink(host.toContainer(hostPath));
        }
        catch (IOException e) {
            throw new ResolveException("cannot read link " + hostPath + ": " + e.getMessage());
        }
    }

    /**
     * The {@code st_mode} of a host path, its last link not followed. Asked with {@code statx} where the agent has the
     * kernel's calls: a pass asks it of every name on the way to each changed entry, and Java's {@code lstat} makes an
     * attributes object, a path's bytes and a native buffer each time.
     */
    private OptionalInt lstat(Path hostPath)
    {
        try {
            return FileSystemCalls.get().modeOf(host.toContainer(hostPath));
        }
        catch (IOException e) {
            // Unreadable parent directory and the like: treat as absent, the caller says where it stopped.
            return OptionalInt.empty();
        }
    }

    private String describeSpecial(Path hostPath)
    {
        return FileKinds.describe(host.toContainer(hostPath));
    }

    private static String describeChain(List<Path> chain)
    {
        return chain.stream().map(Path::toString).collect(Collectors.joining(" -> "));
    }

    static EntryKind kindOf(int mode)
    {
        if (FileSystemCalls.isSymbolicLink(mode)) {
            return EntryKind.SYMLINK;
        }
        if (FileSystemCalls.isRegularFile(mode)) {
            return EntryKind.FILE;
        }
        if (FileSystemCalls.isDirectory(mode)) {
            return EntryKind.DIRECTORY;
        }
        return EntryKind.OTHER;
    }

    private record Walk(Path path, int mode) {}

    private static final class ResolveException
            extends Exception
    {
        private final Optional<Path> missing;

        ResolveException(String message)
        {
            this(message, Optional.empty());
        }

        ResolveException(String message, Optional<Path> missing)
        {
            super(message, null, false, false);
            this.missing = missing;
        }
    }
}
