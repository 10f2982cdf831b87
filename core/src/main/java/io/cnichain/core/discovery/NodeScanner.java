package io.cnichain.core.discovery;

import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.core.fs.SymlinkResolver;
import io.cnichain.core.fs.linux.FileSystemCalls;
import io.cnichain.core.fs.linux.PathNames;
import io.cnichain.spi.ConfigEntry;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's snapshots, one per pass, at a cost that follows what changed rather than the size of the configuration
 * directory. The first snapshot, and any after {@link #changedEverything()} (an overflow, a watched directory gone or
 * back), lists and resolves every entry as a one-shot command does. Otherwise only the entries that events named
 * since the last snapshot ({@link #changed}) are looked at again, and every link, whose target may change without an
 * event here; the other entries are plain files, directories and special files, whose every change the directory's
 * watch reports.
 * Parses are kept across snapshots in a {@link ParseCache}. Used by the agent's one loop thread only.
 */
public final class NodeScanner
{
    private final NodeLayout layout;
    private final SymlinkResolver resolver;
    private final BoundedFileReader reader;
    private final ParseCache cache;
    private final TreeMap<String, ConfigEntry> entries = new TreeMap<>(NodeSnapshot.BYTE_ORDER);
    private final Map<Path, Path> readableOnly = new ConcurrentHashMap<>();
    /** Entries looked at again on every snapshot: links. */
    private final Set<String> volatileNames = new HashSet<>();
    private final Set<String> changed = new HashSet<>();
    private boolean everything = true;
    private Optional<String> listingProblem = Optional.empty();
    private List<FileSystemCalls.EntryName> unnameable = List.of();
    private Map<String, ConfigEntry> published = Map.of();
    /** Its values, in order: copied once per change, not once per snapshot (a conf dir may hold thousands). */
    private List<ConfigEntry> publishedList = List.of();

    public NodeScanner(NodeLayout layout)
    {
        this.layout = layout;
        this.resolver = new SymlinkResolver(layout.host(), layout.allowedRoots());
        this.reader = new BoundedFileReader(layout.maxConfigBytes());
        this.cache = new ParseCache(layout.confDir());
    }

    /**
     * An event named this entry of the configuration directory: it is looked at, and read, again.
     *
     * @param name the entry's name
     */
    public void changed(String name)
    {
        if (name.indexOf('\uFFFD') >= 0 || PathNames.toPath(layout.confDir(), name.getBytes(PathNames.ENCODING)).isEmpty()) {
            // A name the event could only give decoded: the listing, by bytes, decides what it is.
            everything = true;
            return;
        }
        changed.add(name);
        cache.forget(layout.confDir().resolve(name));
    }

    /**
     * A file outside the configuration directory changed (a link's target): it is read again.
     *
     * @param hostPath the file
     */
    public void changedFile(Path hostPath)
    {
        cache.forget(hostPath);
    }

    /** Events may have been lost: the next snapshot lists and resolves everything, and checks every parse kept. */
    public void changedEverything()
    {
        everything = true;
    }

    /**
     * @return the node now
     */
    public NodeSnapshot snapshot()
    {
        boolean modified;
        if (everything) {
            modified = listEverything();
        }
        else {
            modified = false;
            Set<String> names = new HashSet<>(changed);
            names.addAll(volatileNames);
            for (String name : names) {
                modified |= look(name);
            }
        }
        changed.clear();
        if (modified) {
            published = Collections.unmodifiableMap(new LinkedHashMap<>(entries));
            publishedList = List.copyOf(published.values());
        }
        return new NodeSnapshot(layout, resolver, reader, published, publishedList, new ConcurrentHashMap<>(readableOnly), listingProblem, unnameable,
                Optional.of(cache));
    }

    private boolean listEverything()
    {
        ConfDirListing listing = ConfDirListing.list(layout, resolver);
        everything = false;
        cache.distrustAll();
        entries.clear();
        entries.putAll(listing.entries());
        readableOnly.clear();
        readableOnly.putAll(listing.readableOnly());
        listingProblem = listing.problem();
        unnameable = listing.unnameable();
        volatileNames.clear();
        Set<Path> inView = new HashSet<>(readableOnly.values());
        for (ConfigEntry entry : entries.values()) {
            track(entry);
            if (entry.resolvedFile().isPresent()) {
                inView.add(entry.resolvedFile().get());
            }
        }
        cache.retainOnly(inView);
        return true;
    }

    /** @return whether the entry changed */
    private boolean look(String name)
    {
        Path hostPath = layout.confDir().resolve(name);
        readableOnly.remove(hostPath);
        ConfigEntry before = entries.get(name);
        OptionalInt mode = modeOf(layout.host().toContainer(hostPath));
        if (mode.isEmpty()) {
            volatileNames.remove(name);
            return entries.remove(name) != null;
        }
        ConfigEntry entry = ConfDirListing.toEntry(resolver.resolve(hostPath, mode.getAsInt()), hostPath, readableOnly);
        entries.put(name, entry);
        track(entry);
        return !entry.equals(before);
    }

    /**
     * What is at the path (a link counts), the last link not followed, as {@code Files.exists} without following links
     * answers, but without the exception it throws inside for a name that is gone, as a primary's renamed temp file is
     * after every rewrite: its stack trace costs a pass more than the call. The resolver takes the answer from here.
     */
    private static OptionalInt modeOf(Path path)
    {
        try {
            return FileSystemCalls.get().modeOf(path);
        }
        catch (IOException e) {
            return OptionalInt.empty();
        }
    }

    private void track(ConfigEntry entry)
    {
        // A plain file's or directory's entry depends on nothing but itself, and the watch reports its every change.
        if (entry.isSymlink()) {
            volatileNames.add(entry.name());
        }
        else {
            volatileNames.remove(entry.name());
        }
    }
}
