package io.cnichain.core.fs;

import io.cnichain.core.host.HostPaths;
import io.cnichain.spi.ConfigEntry.EntryKind;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
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
        Optional<BasicFileAttributes> own = lstat(path);
        if (own.isEmpty()) {
            return Resolution.refused(path, Optional.empty(), List.of(), "does not exist");
        }
        EntryKind kind = kindOf(own.get());
        List<Path> chain = new ArrayList<>();
        Walk walk;
        try {
            walk = walkOrFail(path, chain);
        }
        catch (ResolveException e) {
            return Resolution.refused(path, Optional.of(kind), chain, e.getMessage());
        }
        Path target = walk.path();
        BasicFileAttributes attributes = walk.attributes();
        String via = chain.isEmpty() ? "is" : "resolves to " + target + ",";
        if (attributes.isDirectory()) {
            return Resolution.refused(path, Optional.of(kind), chain, via + " a directory, not a regular file");
        }
        if (!attributes.isRegularFile()) {
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
        Optional<BasicFileAttributes> root = lstat(SLASH);
        if (root.isEmpty()) {
            throw new ResolveException("the host root " + host.root() + " does not exist");
        }
        BasicFileAttributes attributes = root.get();
        Set<String> seen = new HashSet<>();
        int links = 0;
        while (!todo.isEmpty()) {
            String name = todo.pop();
            if (name.isEmpty() || name.equals(".")) {
                continue;
            }
            if (name.equals("..")) {
                current = current.getParent() == null ? SLASH : current.getParent();
                Optional<BasicFileAttributes> parent = lstat(current);
                if (parent.isEmpty()) {
                    throw new ResolveException("a directory on the way vanished");
                }
                attributes = parent.get();
                continue;
            }
            if (!attributes.isDirectory()) {
                throw new ResolveException(current + " is not a directory");
            }
            Path next = current.resolve(name);
            Optional<BasicFileAttributes> nextAttributes = lstat(next);
            if (nextAttributes.isEmpty()) {
                if (chain.isEmpty()) {
                    throw new ResolveException(next + " does not exist");
                }
                throw new ResolveException("dangling link: " + describeChain(chain) + " -> " + next + ", which does not exist");
            }
            if (nextAttributes.get().isSymbolicLink()) {
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
                    attributes = lstat(SLASH).orElseThrow();
                }
                pushFront(todo, linkTarget);
                continue;
            }
            current = next;
            attributes = nextAttributes.get();
        }
        return new Walk(current, attributes);
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

    private Optional<BasicFileAttributes> lstat(Path hostPath)
    {
        try {
            return Optional.of(Files.readAttributes(host.toContainer(hostPath), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
        }
        catch (NoSuchFileException e) {
            return Optional.empty();
        }
        catch (IOException e) {
            // Unreadable parent directory and the like: treat as absent, the caller says where it stopped.
            return Optional.empty();
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

    static EntryKind kindOf(BasicFileAttributes attributes)
    {
        if (attributes.isSymbolicLink()) {
            return EntryKind.SYMLINK;
        }
        if (attributes.isRegularFile()) {
            return EntryKind.FILE;
        }
        if (attributes.isDirectory()) {
            return EntryKind.DIRECTORY;
        }
        return EntryKind.OTHER;
    }

    private record Walk(Path path, BasicFileAttributes attributes) {}

    private static final class ResolveException
            extends Exception
    {
        ResolveException(String message)
        {
            super(message, null, false, false);
        }
    }
}
