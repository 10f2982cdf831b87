package io.cnichain.agent.loop;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The directories the agent watches (paths as the agent sees them) on one {@link WatchService}: inotify, which neither
 * recurses nor follows links. A wanted directory that is missing, or deleted, has its nearest existing ancestor watched
 * for creations meanwhile, so that its return is an event, not something to poll for.
 */
final class DirectoryWatches
{
    private static final Logger log = LoggerFactory.getLogger(DirectoryWatches.class);

    /** Directories made and removed faster than they can be watched: give up on this round after so many tries. */
    private static final int MAX_DESCENTS = 100;

    /** The one watch service, opened when first asked for; {@link IOException} when none can be had. */
    private final EventIntake.Opener service;
    /** Every directory wanted or watched, in the order first seen. */
    private final Map<Path, WatchedDirectory> entries = new LinkedHashMap<>();
    /** A watch replaced on its path stays here until its end is handled. */
    private final Map<WatchKey, Path> byKey = new HashMap<>();
    /** Why an ancestor could not be watched, as last said. */
    private String saidOfAncestors = "";

    DirectoryWatches(EventIntake.Opener service)
    {
        this.service = service;
    }

    Set<Path> want(Set<Path> directories)
    {
        Set<Path> newlyArmed = new LinkedHashSet<>();
        for (Path directory : directories) {
            WatchedDirectory entry = entry(directory);
            if (!entry.wanted()) {
                update(directory, entry.wanted(true));
                if (arm(directory)) {
                    newlyArmed.add(directory);
                }
            }
        }
        for (Path directory : where(WatchedDirectory::wanted)) {
            if (!directories.contains(directory)) {
                update(directory, entry(directory).wanted(false));
                log.debug("No longer watching {}", directory);
            }
        }
        newlyArmed.addAll(reconcileKeys());
        return newlyArmed;
    }

    Optional<Path> directoryOf(WatchKey key)
    {
        return Optional.ofNullable(byKey.get(key));
    }

    boolean isAncestor(Path directory)
    {
        return entry(directory).ancestor();
    }

    /** A key ended, its directory deleted or moved: returns the wanted directories armed by this call. */
    Set<Path> invalidated(WatchKey key)
    {
        Path directory = byKey.remove(key);
        if (directory == null || entry(directory).key().filter(armed -> armed == key).isEmpty()) {
            // Not ours, or the directory was watched anew (a new key) before this one's end reached us.
            return Set.of();
        }
        update(directory, entry(directory).unarmed().ancestor(false));
        Set<Path> newlyArmed = new LinkedHashSet<>();
        if (entry(directory).wanted()) {
            log.warn("Watched directory {} is gone; watching for it to come back", directory);
            if (arm(directory)) {
                newlyArmed.add(directory);
            }
        }
        newlyArmed.addAll(retryPending());
        return newlyArmed;
    }

    /** An entry of a watched ancestor changed: a wanted directory renamed away, or another in its place, is watched anew. */
    Optional<Path> replaced(Path ancestor, String name)
    {
        Path directory = ancestor.resolve(name);
        WatchedDirectory entry = entry(directory);
        if (!entry.wanted() || entry.key().isEmpty()) {
            // Not wanted, or not armed: waiting for it to appear is retryPending's.
            return Optional.empty();
        }
        Optional<Object> now = WatchedDirectory.fileKey(directory);
        if (entry.key().get().isValid() && now.isPresent() && now.equals(entry.armedOn())) {
            return Optional.empty();
        }
        cancel(entry);
        update(directory, entry.unarmed());
        arm(directory);
        reconcileKeys();
        return Optional.of(directory);
    }

    /** Something was created in an ancestor of a missing directory: arm what now exists. */
    Set<Path> retryPending()
    {
        return armAll(where(WatchedDirectory::pending));
    }

    Map<Path, String> unwatchable()
    {
        Map<Path, String> result = new LinkedHashMap<>();
        for (Path directory : where(entry -> entry.wanted() && entry.unwatchable().isPresent())) {
            result.put(directory, entry(directory).unwatchable().orElseThrow());
        }
        return result;
    }

    Set<Path> retryUnwatchable()
    {
        return armAll(unwatchable().keySet());
    }

    private Set<Path> armAll(Set<Path> directories)
    {
        Set<Path> armed = new LinkedHashSet<>();
        for (Path directory : directories) {
            if (arm(directory)) {
                armed.add(directory);
            }
        }
        armed.addAll(reconcileKeys());
        saidOfAncestors = unwatchable().isEmpty() ? "" : saidOfAncestors;
        return armed;
    }

    private boolean arm(Path directory)
    {
        WatchedDirectory entry = entry(directory);
        if (entry.watching()) {
            update(directory, entry.pending(false));
            return true;
        }
        if (Files.isDirectory(directory)) {
            try {
                register(directory);
                if (entry.unwatchable().isPresent()) {
                    log.info("Watching {} again", directory);
                }
                return true;
            }
            catch (IOException e) {
                // It exists: waiting for it to appear would wait for nothing. Said once; retried by the loop.
                String why = String.valueOf(e.getMessage());
                if (entry.unwatchable().isEmpty()) {
                    log.warn("Cannot watch {}: {}; changes there would go unseen, so the agent is not ready, rescans on a timer and tries the "
                            + "watch again{}", directory, why, why.contains("inotify watches") ? " (the inotify watch limit: fs.inotify.max_user_watches)" : "");
                }
                update(directory, entry(directory).unwatchable(why));
                return false;
            }
        }
        if (!entry.pending() && entry.unwatchable().isEmpty()) {
            log.info("{} does not exist yet; watching for it", directory);
        }
        update(directory, entry.pending(true));
        return false;
    }

    /**
     * Watch, then look, at every level: a level made before its parent's watch sends no event, so it is looked for once
     * the watch is in place; one missing then will send its event ({@link #retryPending()}).
     */
    private Set<Path> reconcileKeys()
    {
        Set<Path> armedLate = new LinkedHashSet<>();
        Set<Path> neededAncestors = new HashSet<>();
        for (Path directory : where(WatchedDirectory::pending)) {
            Optional<Path> watching = descend(directory);
            if (watching.isPresent()) {
                neededAncestors.add(watching.get());
            }
            else if (entry(directory).key().isPresent()) {
                armedLate.add(directory);
            }
        }
        // A watch follows its directory's inode, not its path: the parent of every armed directory is watched too, so
        // that a directory renamed away, or another renamed in its place, is an event, not a silence.
        for (Path directory : where(entry -> entry.wanted() && entry.key().isPresent())) {
            Path parent = directory.getParent();
            if (parent != null && !entry(parent).wanted()) {
                if (!entry(parent).watching()) {
                    try {
                        register(parent);
                    }
                    catch (IOException e) {
                        log.debug("Cannot watch {} for {} to be replaced: {}", parent, directory, e.toString());
                        continue;
                    }
                }
                neededAncestors.add(parent);
            }
        }
        for (Path directory : where(entry -> true)) {
            WatchedDirectory entry = entry(directory).ancestor(neededAncestors.contains(directory));
            if (!entry.wanted() && !entry.ancestor() && entry.key().isPresent()) {
                log.debug("Dropping the watch on {}", directory);
                cancel(entry);
                entry = entry.unarmed();
            }
            update(directory, entry);
        }
        return armedLate;
    }

    /** @return the ancestor watched for the next level to appear; empty when the directory is armed, or nothing could be */
    private Optional<Path> descend(Path directory)
    {
        descent:
        for (int attempt = 0; attempt < MAX_DESCENTS; attempt++) {
            Path level = directory.getParent();
            while (level != null && !Files.isDirectory(level)) {
                level = level.getParent();
            }
            if (level == null) {
                return Optional.empty();
            }
            while (true) {
                if (level.equals(directory)) {
                    if (arm(directory) || Files.isDirectory(directory)) {
                        // Armed, or it exists and cannot be watched (said by arm): either way, nothing deeper to wait for.
                        return Optional.empty();
                    }
                    continue descent;
                }
                if (!entry(level).watching()) {
                    try {
                        register(level);
                    }
                    catch (NoSuchFileException | NotDirectoryException e) {
                        // Gone between the look and the watch: start again from what exists.
                        continue descent;
                    }
                    catch (IOException e) {
                        // Its appearance would go untold: tried again as one that cannot be watched; each reason said once.
                        String why = String.valueOf(e.getMessage());
                        if (!why.equals(saidOfAncestors)) {
                            log.warn("Cannot watch {} for {} to appear: {}", level, directory, why);
                            saidOfAncestors = why;
                        }
                        update(directory, entry(directory).unwatchable(why));
                        return Optional.empty();
                    }
                }
                Path next = level.resolve(directory.getName(level.getNameCount()).toString());
                if (!Files.isDirectory(next)) {
                    return Optional.of(level);
                }
                level = next;
            }
        }
        log.warn("{} keeps changing while it is armed; the periodic check will look again", directory);
        return Optional.empty();
    }

    /**
     * The periodic check: every wanted directory is watched where it is now, and no pending one exists unwatched. A
     * difference whose event may still be on its way is left to that event until {@code settled} says otherwise.
     */
    Verification verify(Predicate<Path> settled)
    {
        List<Repair> repairs = new ArrayList<>();
        Set<Path> unsettled = new LinkedHashSet<>();
        for (Path directory : where(entry -> entry.key().isPresent())) {
            WatchedDirectory entry = entry(directory);
            Optional<Object> now = WatchedDirectory.fileKey(directory);
            String why;
            if (!entry.key().get().isValid()) {
                why = "lost its watch";
            }
            else if (now.isEmpty()) {
                why = "is gone, but its watch went on with the directory it was";
            }
            else if (entry.armedOn().isEmpty()) {
                // Its identity could not be read when it was armed: this look is the reference from now on.
                update(directory, entry.armedOn(now.get()));
                continue;
            }
            else if (!now.equals(entry.armedOn())) {
                why = "was replaced by another directory, but its watch stayed with the old one";
            }
            else {
                continue;
            }
            if (!settled.test(directory)) {
                unsettled.add(directory);
                continue;
            }
            cancel(entry);
            update(directory, entry.unarmed());
            if (entry.wanted()) {
                repairs.add(new Repair(directory, why));
                arm(directory);
            }
            else {
                // An ancestor: the descent below watches it (or a deeper one) anew.
                repairs.add(new Repair(directory, why + " (it was watched for " + where(WatchedDirectory::pending) + " to appear)"));
            }
        }
        for (Path directory : where(WatchedDirectory::pending)) {
            if (Files.isDirectory(directory)) {
                if (settled.test(directory)) {
                    repairs.add(new Repair(directory, "exists but was not watched"));
                }
                else {
                    unsettled.add(directory);
                }
            }
        }
        if (!repairs.isEmpty()) {
            reconcileKeys();
        }
        return new Verification(repairs, unsettled);
    }

    record Verification(List<Repair> repairs, Set<Path> unsettled) {}

    record Repair(Path directory, String why) {}

    private WatchedDirectory entry(Path directory)
    {
        return entries.getOrDefault(directory, WatchedDirectory.NONE);
    }

    private void update(Path directory, WatchedDirectory entry)
    {
        if (!entry.wanted() && !entry.ancestor() && entry.key().isEmpty()) {
            entries.remove(directory);
        }
        else {
            entries.put(directory, entry);
        }
    }

    private Set<Path> where(Predicate<WatchedDirectory> test)
    {
        Set<Path> found = new LinkedHashSet<>();
        entries.forEach((directory, entry) -> {
            if (test.test(entry)) {
                found.add(directory);
            }
        });
        return found;
    }

    private void register(Path directory)
            throws IOException
    {
        log.debug("Arming a watch on {}", directory);
        // Read before the watch: should the path change in between, the check finds the two differ and arms again.
        Optional<Object> before = WatchedDirectory.fileKey(directory);
        WatchKey key = directory.register(service.open(),
                StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE);
        byKey.put(key, directory);
        update(directory, entry(directory).armed(key, before));
    }

    private void cancel(WatchedDirectory entry)
    {
        WatchKey key = entry.key().orElseThrow();
        byKey.remove(key);
        key.cancel();
    }
}
