package io.cnichain.core.discovery;

import io.cnichain.core.discovery.NodeSnapshot.Loaded;
import io.cnichain.core.fs.linux.FileSystemCalls;
import io.cnichain.core.fs.linux.FileSystemCalls.Identity;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What the agent's files parsed to, kept from one pass to the next so that a pass parses only what changed. An
 * entry is served again only when the file is provably the one read:
 *
 * <ul>
 *   <li>by its identity: device and inode, size, modification and change times, looked up again (one stat) on every
 *       use, and never for a file changed within {@link #RACY_NANOS} of the read (timestamps come from a coarse clock,
 *       and some file systems keep whole seconds: two writes of the same size within one tick look alike);</li>
 *   <li>or, for a file directly in the configuration directory under a name the runtime does not load (the thousands
 *       of other files some nodes keep there, which an adapter may look through), by the directory's events: inotify
 *       reports every write, truncation, chmod, rename and removal there, the loop hands each name to
 *       {@link #forget}, and an overflow or a rescan withdraws the trust ({@link #distrustAll}). Such a file is then
 *       checked by its identity again.</li>
 * </ul>
 *
 * Files the runtime loads by their name are always checked by identity, whatever the events said: the effective
 * configuration is never decided from a stale parse. Thread-safe: adapters read through snapshots on the guard's
 * threads.
 */
final class ParseCache
{
    /** A file changed this recently may change again within the same timestamp: it is read every time. */
    static final long RACY_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final Path confDir;
    /** By target (host path), then by the name it is loaded under (the name decides the format). */
    private final Map<Path, Map<String, Cached>> entries = new ConcurrentHashMap<>();
    /** The trusted ones, by their name in the configuration directory: a look-up an adapter can afford per entry. */
    private final Map<String, Loaded> trustedByName = new ConcurrentHashMap<>();

    /**
     * @param confDir the configuration directory (host path), whose events the agent follows
     */
    ParseCache(Path confDir)
    {
        this.confDir = confDir;
    }

    /**
     * @param loadName  the name the target is loaded under
     * @param target    the file (host path)
     * @param container the same file as the agent sees it
     * @param read      reads and parses it now
     * @return what it parses to
     */
    Loaded load(String loadName, Path target, Path container, Supplier<Loaded> read)
    {
        if (confDir.equals(target.getParent())) {
            Loaded trusted = trustedByName.get(loadName);
            if (trusted != null && loadName.equals(target.getFileName().toString())) {
                return trusted;
            }
        }
        Map<String, Cached> byName = entries.get(target);
        Cached cached = byName == null ? null : byName.get(loadName);
        if (cached != null && cached.trusted()) {
            return cached.loaded();
        }
        Optional<Identity> before = identity(container);
        if (cached != null && before.isPresent() && cached.identity().equals(before.get()) && !cached.racy()) {
            remember(loadName, target, new Cached(cached.identity(), cached.loaded(), false, trustable(loadName, target)));
            return cached.loaded();
        }
        long readAt = System.currentTimeMillis();
        Loaded loaded = read.get();
        Optional<Identity> after = identity(container);
        if (before.isPresent() && before.equals(after)) {
            boolean racy = TimeUnit.MILLISECONDS.toNanos(readAt) - after.get().latestChangeNanos() < RACY_NANOS;
            remember(loadName, target, new Cached(after.get(), loaded, racy, trustable(loadName, target)));
        }
        else {
            // Changed while we read it, or gone: what was read is used once, not kept.
            forget(target);
        }
        return loaded;
    }

    /**
     * What a plain file of the configuration directory, loaded under its own name, parsed to, while events vouch for
     * it (see the class comment).
     *
     * @param name the file's name in the configuration directory
     * @return what it parsed to, or {@code null} when it is not known or not trusted
     */
    Loaded trusted(String name)
    {
        return trustedByName.get(name);
    }

    /** An event named this file (host path): whatever it parsed to is read again. */
    void forget(Path target)
    {
        entries.remove(target);
        if (confDir.equals(target.getParent())) {
            trustedByName.remove(target.getFileName().toString());
        }
    }

    /** Events may have been lost: every entry is checked by its identity on its next use. */
    void distrustAll()
    {
        trustedByName.clear();
        for (Map.Entry<Path, Map<String, Cached>> entry : entries.entrySet()) {
            Map<String, Cached> copy = new ConcurrentHashMap<>();
            for (Map.Entry<String, Cached> named : entry.getValue().entrySet()) {
                Cached cached = named.getValue();
                copy.put(named.getKey(), new Cached(cached.identity(), cached.loaded(), cached.racy(), false));
            }
            entry.setValue(copy);
        }
    }

    /** Drops the entries of files no longer in view, after a full listing. */
    void retainOnly(Set<Path> targets)
    {
        entries.keySet().retainAll(targets);
    }

    int size()
    {
        return entries.size();
    }

    private void remember(String loadName, Path target, Cached cached)
    {
        Map<String, Cached> byName = entries.get(target);
        if (byName == null) {
            Map<String, Cached> created = new ConcurrentHashMap<>();
            byName = entries.putIfAbsent(target, created);
            byName = byName == null ? created : byName;
        }
        byName.put(loadName, cached);
        if (cached.trusted() && loadName.equals(target.getFileName().toString())) {
            trustedByName.put(loadName, cached.loaded());
        }
    }

    private boolean trustable(String loadName, Path target)
    {
        return confDir.equals(target.getParent()) && !ConfigNames.isRuntimeLoadable(loadName)
                && !ConfigNames.isRuntimeLoadable(target.getFileName().toString());
    }

    private static Optional<Identity> identity(Path container)
    {
        try {
            return FileSystemCalls.get().identityOf(container);
        }
        catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private record Cached(Identity identity, Loaded loaded, boolean racy, boolean trusted) {}
}
