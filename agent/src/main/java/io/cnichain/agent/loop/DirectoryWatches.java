package io.cnichain.agent.loop;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The directories the agent watches (paths as the agent sees them), on one {@link WatchService} (inotify on
 * Linux, which neither recurses nor follows links). A wanted directory that does not exist, or that is deleted,
 * is armed again when it comes back: its nearest existing ancestor is watched for creations meanwhile, so
 * the agent learns of it from an event, without polling.
 */
final class DirectoryWatches
{
    private static final Logger log = LoggerFactory.getLogger(DirectoryWatches.class);

    /** Directories made and removed faster than they can be watched: give up on this round after so many tries. */
    private static final int MAX_DESCENTS = 100;

    private final WatchTable table;

    DirectoryWatches(WatchService service)
    {
        this.table = new WatchTable(service);
    }

    /**
     * Watches exactly these directories from now on (and the ancestors of those missing).
     *
     * @return the directories that became armed by this call
     */
    Set<Path> want(Set<Path> directories)
    {
        Set<Path> newlyArmed = new LinkedHashSet<>();
        for (Path directory : directories) {
            WatchedDirectory entry = table.entry(directory);
            if (!entry.wanted()) {
                table.update(directory, entry.wanted(true));
                if (arm(directory)) {
                    newlyArmed.add(directory);
                }
            }
        }
        for (Path directory : table.where(WatchedDirectory::wanted)) {
            if (!directories.contains(directory)) {
                table.update(directory, table.entry(directory).wanted(false));
                log.debug("No longer watching {}", directory);
            }
        }
        newlyArmed.addAll(reconcileKeys());
        return newlyArmed;
    }

    /**
     * @return the directory a key watches
     */
    Optional<Path> directoryOf(WatchKey key)
    {
        return table.directoryOf(key);
    }

    boolean isWanted(Path directory)
    {
        WatchedDirectory entry = table.entry(directory);
        return entry.wanted() && entry.key().isPresent();
    }

    boolean isAncestor(Path directory)
    {
        return table.entry(directory).ancestor();
    }

    /**
     * A key is no longer valid: its directory was deleted or moved. Arm it again when it comes back.
     *
     * @return the wanted directories armed by this call (a directory already back, or one that appeared meanwhile)
     */
    Set<Path> invalidated(WatchKey key)
    {
        Optional<Path> ended = table.ended(key);
        if (ended.isEmpty()) {
            // Not ours, or the directory was watched anew (a new key) before this one's end reached us.
            return Set.of();
        }
        Path directory = ended.get();
        table.update(directory, table.entry(directory).unarmed().ancestor(false));
        Set<Path> newlyArmed = new LinkedHashSet<>();
        if (table.entry(directory).wanted()) {
            log.warn("Watched directory {} is gone; watching for it to come back", directory);
            if (arm(directory)) {
                newlyArmed.add(directory);
            }
        }
        for (Path waiting : table.where(WatchedDirectory::pending)) {
            if (arm(waiting)) {
                newlyArmed.add(waiting);
            }
        }
        newlyArmed.addAll(reconcileKeys());
        return newlyArmed;
    }

    /**
     * An entry of an ancestor changed: when it names a wanted directory and the path now leads to another directory
     * than the one watched (renamed away, another renamed in its place), the watch is armed again on what the path
     * names now.
     *
     * @param ancestor the watched ancestor
     * @param name     the entry that changed
     * @return the wanted directory that was replaced, if that is what happened
     */
    Optional<Path> replaced(Path ancestor, String name)
    {
        Path directory = ancestor.resolve(name);
        WatchedDirectory entry = table.entry(directory);
        if (!entry.wanted() || entry.key().isEmpty()) {
            // Not wanted, or not armed: waiting for it to appear is retryPending's.
            return Optional.empty();
        }
        Optional<Object> now = WatchTable.fileKey(directory);
        if (entry.key().get().isValid() && now.isPresent() && now.equals(entry.armedOn())) {
            return Optional.empty();
        }
        table.cancel(entry);
        table.update(directory, entry.unarmed());
        arm(directory);
        reconcileKeys();
        return Optional.of(directory);
    }

    /**
     * Something was created in an ancestor of a missing directory: arm what now exists.
     *
     * @return the directories armed
     */
    Set<Path> retryPending()
    {
        Set<Path> newlyArmed = new LinkedHashSet<>();
        for (Path directory : table.where(WatchedDirectory::pending)) {
            if (arm(directory)) {
                newlyArmed.add(directory);
            }
        }
        newlyArmed.addAll(reconcileKeys());
        return newlyArmed;
    }

    /** @return wanted directories that exist but could not be watched, and why */
    Map<Path, String> unwatchable()
    {
        Map<Path, String> result = new LinkedHashMap<>();
        for (Path directory : table.where(entry -> entry.wanted() && entry.unwatchable().isPresent())) {
            result.put(directory, table.entry(directory).unwatchable().orElseThrow());
        }
        return result;
    }

    /** @return the directories armed by trying the watches that failed again */
    Set<Path> retryUnwatchable()
    {
        Set<Path> armedNow = new LinkedHashSet<>();
        for (Path directory : unwatchable().keySet()) {
            if (arm(directory)) {
                armedNow.add(directory);
            }
        }
        armedNow.addAll(reconcileKeys());
        return armedNow;
    }

    private Set<Path> pendingDirectories()
    {
        return table.where(WatchedDirectory::pending);
    }

    /** @return whether the directory is armed now */
    private boolean arm(Path directory)
    {
        WatchedDirectory entry = table.entry(directory);
        if (entry.watching()) {
            table.update(directory, entry.pending(false));
            return true;
        }
        if (Files.isDirectory(directory)) {
            try {
                table.register(directory);
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
                            + "watch again{}", directory, why, why.contains("limit") ? " (the inotify watch limit: fs.inotify.max_user_watches)" : "");
                }
                table.update(directory, table.entry(directory).unwatchable(why));
                return false;
            }
        }
        if (!entry.pending()) {
            log.info("{} does not exist yet; watching for it", directory);
        }
        table.update(directory, entry.pending(true));
        return false;
    }

    /**
     * Watch, then look, at every level. For each pending directory, the nearest existing ancestor is watched, then
     * the next level down is looked at: when it exists now (made before the watch, so no event will tell), it is
     * watched in turn and the level below it looked at, down to the directory itself. What stops the descent is a
     * level seen missing <em>after</em> its parent's watch was in place: its creation will send an event there, which
     * brings the descent back ({@link #retryPending()}). Ancestors no pending directory needs any more are dropped.
     *
     * @return the pending directories armed that way
     */
    private Set<Path> reconcileKeys()
    {
        Set<Path> armedLate = new LinkedHashSet<>();
        Set<Path> neededAncestors = new HashSet<>();
        for (Path directory : table.where(WatchedDirectory::pending)) {
            Optional<Path> watching = descend(directory);
            if (watching.isPresent()) {
                neededAncestors.add(watching.get());
            }
            else if (table.entry(directory).key().isPresent()) {
                armedLate.add(directory);
            }
        }
        // A watch follows its directory's inode, not its path: the parent of every armed directory is watched too, so
        // that a directory renamed away, or another renamed in its place, is an event, not a silence.
        for (Path directory : table.where(entry -> entry.wanted() && entry.key().isPresent())) {
            Path parent = directory.getParent();
            if (parent != null && !table.entry(parent).wanted()) {
                if (!table.entry(parent).watching()) {
                    try {
                        table.register(parent);
                    }
                    catch (IOException e) {
                        log.debug("Cannot watch {} for {} to be replaced: {}", parent, directory, e.toString());
                        continue;
                    }
                }
                neededAncestors.add(parent);
            }
        }
        for (Path directory : table.where(entry -> true)) {
            WatchedDirectory entry = table.entry(directory).ancestor(neededAncestors.contains(directory));
            if (!entry.wanted() && !entry.ancestor() && entry.key().isPresent()) {
                log.debug("Dropping the watch on {}", directory);
                table.cancel(entry);
                entry = entry.unarmed();
            }
            table.update(directory, entry);
        }
        return armedLate;
    }

    /**
     * Brings one pending directory's watch as deep as the filesystem allows now.
     *
     * @return the ancestor watched for the next level to appear; empty when the directory itself is armed now, or
     *         when nothing could be watched (reported)
     */
    private Optional<Path> descend(Path directory)
    {
        for (int attempt = 0; attempt < MAX_DESCENTS; attempt++) {
            Path level = WatchTable.nearestExistingAncestor(directory);
            if (level == null) {
                return Optional.empty();
            }
            boolean vanished = false;
            while (!vanished) {
                if (level.equals(directory)) {
                    if (arm(directory) || Files.isDirectory(directory)) {
                        // Armed, or it exists and cannot be watched (said by arm): either way, nothing deeper to wait for.
                        return Optional.empty();
                    }
                    vanished = true;
                    continue;
                }
                if (!table.entry(level).watching()) {
                    try {
                        table.register(level);
                    }
                    catch (NoSuchFileException | NotDirectoryException e) {
                        // Gone between the look and the watch: start again from what exists.
                        vanished = true;
                        continue;
                    }
                    catch (IOException e) {
                        log.warn("Cannot watch {} for {} to appear: {}", level, directory, e.getMessage());
                        return Optional.empty();
                    }
                }
                // The watch is in place: a next level made from now on sends an event; one made before is seen here.
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
     * The periodic check: every wanted directory is watched where it is now, and no pending one exists unwatched.
     * Repairs what differs (a watch that followed its directory elsewhere, or ended unseen; a directory made unseen),
     * once the difference is settled: a change whose event may still be on its way is left to that event.
     *
     * @param settled whether a difference of a directory (as the agent sees it) is settled: seen before, so its event would have come
     * @return what was repaired, and the directories whose difference was left for the next look
     */
    Verification verify(Predicate<Path> settled)
    {
        List<Repair> repairs = new ArrayList<>();
        Set<Path> unsettled = new LinkedHashSet<>();
        for (Path directory : table.where(entry -> entry.key().isPresent())) {
            WatchedDirectory entry = table.entry(directory);
            Optional<Object> now = WatchTable.fileKey(directory);
            String why;
            if (!entry.key().get().isValid()) {
                why = "lost its watch";
            }
            else if (now.isEmpty()) {
                why = "is gone, but its watch went on with the directory it was";
            }
            else if (entry.armedOn().isEmpty()) {
                // Its identity could not be read when it was armed: this look is the reference from now on.
                table.update(directory, entry.armedOn(now.get()));
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
            table.cancel(entry);
            table.update(directory, entry.unarmed());
            if (entry.wanted()) {
                repairs.add(new Repair(directory, why));
                arm(directory);
            }
            else {
                // An ancestor: the descent below watches it (or a deeper one) anew.
                repairs.add(new Repair(directory, why + " (it was watched for " + pendingDirectories() + " to appear)"));
            }
        }
        for (Path directory : pendingDirectories()) {
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

    /** What the periodic check of the watches repaired, and the directories whose difference it left for the next look. */
    record Verification(List<Repair> repairs, Set<Path> unsettled) {}

    /** A directory (as the agent sees it) repaired, and what was wrong, said after its name. */
    record Repair(Path directory, String why) {}
}
