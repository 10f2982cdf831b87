package io.cnichain.agent.loop;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

import static java.util.Objects.requireNonNull;

/**
 * The directories of {@link DirectoryWatches}, one {@link WatchedDirectory} each, and their watches on the one
 * {@link WatchService}. What to watch, and when, is {@link DirectoryWatches}'s.
 */
final class WatchTable
{
    private static final Logger log = LoggerFactory.getLogger(WatchTable.class);

    private final WatchService service;
    /** Every directory wanted or watched, one entry each, in the order first seen. */
    private final Map<Path, WatchedDirectory> entries = new LinkedHashMap<>();
    /** The index of {@link #entries} by watch, a watch replaced on its path included until its end is handled. */
    private final Map<WatchKey, Path> byKey = new HashMap<>();

    WatchTable(WatchService service)
    {
        this.service = requireNonNull(service, "service is null");
    }

    WatchedDirectory entry(Path directory)
    {
        return entries.getOrDefault(directory, WatchedDirectory.NONE);
    }

    void update(Path directory, WatchedDirectory entry)
    {
        if (entry.useless()) {
            entries.remove(directory);
        }
        else {
            entries.put(directory, entry);
        }
    }

    Set<Path> where(Predicate<WatchedDirectory> test)
    {
        Set<Path> found = new LinkedHashSet<>();
        entries.forEach((directory, entry) -> {
            if (test.test(entry)) {
                found.add(directory);
            }
        });
        return found;
    }

    /** @return the directory a watch is (or was, until its end is handled) on */
    Optional<Path> directoryOf(WatchKey key)
    {
        return Optional.ofNullable(byKey.get(key));
    }

    /**
     * A watch ended: forgotten.
     *
     * @return its directory, unless the watch was not ours or its directory is watched anew (by another watch) since
     */
    Optional<Path> ended(WatchKey key)
    {
        Path directory = byKey.remove(key);
        if (directory == null || entry(directory).key().filter(armed -> armed == key).isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(directory);
    }

    static Path nearestExistingAncestor(Path directory)
    {
        Path ancestor = directory.getParent();
        while (ancestor != null && !Files.isDirectory(ancestor)) {
            ancestor = ancestor.getParent();
        }
        return ancestor;
    }

    static Optional<Object> fileKey(Path directory)
    {
        try {
            return Optional.ofNullable(Files.readAttributes(directory, BasicFileAttributes.class).fileKey());
        }
        catch (IOException e) {
            return Optional.empty();
        }
    }

    void register(Path directory)
            throws IOException
    {
        log.debug("Arming a watch on {}", directory);
        // Read before the watch: should the path change in between, the check finds the two differ and arms again.
        Optional<Object> before = fileKey(directory);
        WatchKey key = directory.register(service,
                StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE);
        byKey.put(key, directory);
        update(directory, entry(directory).armed(key, before));
    }

    void cancel(WatchedDirectory entry)
    {
        WatchKey key = entry.key().orElseThrow();
        byKey.remove(key);
        key.cancel();
    }
}
