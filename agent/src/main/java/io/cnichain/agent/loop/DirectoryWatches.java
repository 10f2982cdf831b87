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
import java.nio.file.attribute.BasicFileAttributes;
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

import static java.util.Objects.requireNonNull;

/**
 * The directories the agent watches (paths as the agent sees them), on one {@link WatchService} (inotify on
 * Linux, which neither recurses nor follows links). A wanted directory that does not exist, or that is deleted,
 * is armed again when it comes back: its nearest existing ancestor is watched for creations meanwhile, so
 * the agent learns of it from an event, without polling.
 */
final class DirectoryWatches
{
    private static final Logger log = LoggerFactory.getLogger(DirectoryWatches.class);

    private final WatchService service;
    private final Map<WatchKey, Path> keys = new HashMap<>();
    private final Map<Path, WatchKey> armed = new HashMap<>();
    /** The directory each watch was armed on (its file key: device and inode), to tell when the path now names another. */
    private final Map<Path, Object> armedOn = new HashMap<>();
    private final Set<Path> wanted = new LinkedHashSet<>();
    private final Set<Path> pending = new LinkedHashSet<>();
    private final Set<Path> ancestors = new HashSet<>();
    /** Wanted directories that exist but could not be watched (the inotify watch limit, most often), and why. */
    private final Map<Path, String> unwatchable = new LinkedHashMap<>();

    /** Directories made and removed faster than they can be watched: give up on this round after so many tries. */
    private static final int MAX_DESCENTS = 100;

    DirectoryWatches(WatchService service)
    {
        this.service = requireNonNull(service, "service is null");
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
            if (wanted.add(directory) && arm(directory)) {
                newlyArmed.add(directory);
            }
        }
        for (Path directory : Set.copyOf(wanted)) {
            if (!directories.contains(directory)) {
                wanted.remove(directory);
                pending.remove(directory);
                unwatchable.remove(directory);
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
        return Optional.ofNullable(keys.get(key));
    }

    boolean isWanted(Path directory)
    {
        return wanted.contains(directory) && armed.containsKey(directory);
    }

    boolean isAncestor(Path directory)
    {
        return ancestors.contains(directory);
    }

    /**
     * A key is no longer valid: its directory was deleted or moved. Arm it again when it comes back.
     *
     * @return the wanted directories armed by this call (a directory already back, or one that appeared meanwhile)
     */
    Set<Path> invalidated(WatchKey key)
    {
        Path directory = keys.remove(key);
        if (directory == null || armed.get(directory) != key) {
            // Not ours, or the directory was watched anew (a new key) before this one's end reached us.
            return Set.of();
        }
        armed.remove(directory);
        armedOn.remove(directory);
        ancestors.remove(directory);
        Set<Path> newlyArmed = new LinkedHashSet<>();
        if (wanted.contains(directory)) {
            log.warn("Watched directory {} is gone; watching for it to come back", directory);
            if (arm(directory)) {
                newlyArmed.add(directory);
            }
        }
        for (Path waiting : Set.copyOf(pending)) {
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
        if (!wanted.contains(directory)) {
            return Optional.empty();
        }
        WatchKey key = armed.get(directory);
        if (key == null) {
            // Not armed: waiting for it to appear is retryPending's.
            return Optional.empty();
        }
        Optional<Object> now = fileKey(directory);
        if (key.isValid() && now.isPresent() && now.get().equals(armedOn.get(directory))) {
            return Optional.empty();
        }
        armed.remove(directory);
        armedOn.remove(directory);
        keys.remove(key);
        key.cancel();
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
        for (Path directory : Set.copyOf(pending)) {
            if (arm(directory) && armed.containsKey(directory)) {
                newlyArmed.add(directory);
            }
        }
        newlyArmed.addAll(reconcileKeys());
        return newlyArmed;
    }

    /** @return wanted directories that exist but could not be watched, and why */
    Map<Path, String> unwatchable()
    {
        Map<Path, String> result = new LinkedHashMap<>(unwatchable);
        result.keySet().retainAll(wanted);
        return result;
    }

    /**
     * Tries the watches that failed again.
     *
     * @return the directories armed now
     */
    Set<Path> retryUnwatchable()
    {
        Set<Path> armedNow = new LinkedHashSet<>();
        for (Path directory : Set.copyOf(unwatchable.keySet())) {
            if (!wanted.contains(directory)) {
                unwatchable.remove(directory);
            }
            else if (arm(directory)) {
                armedNow.add(directory);
            }
        }
        armedNow.addAll(reconcileKeys());
        return armedNow;
    }

    Set<Path> armedDirectories()
    {
        Set<Path> result = new LinkedHashSet<>(wanted);
        result.retainAll(armed.keySet());
        return result;
    }

    Set<Path> pendingDirectories()
    {
        return Set.copyOf(pending);
    }

    /** @return whether the directory is armed now */
    private boolean arm(Path directory)
    {
        if (isWatched(directory)) {
            pending.remove(directory);
            return true;
        }
        if (Files.isDirectory(directory)) {
            try {
                register(directory);
                pending.remove(directory);
                if (unwatchable.remove(directory) != null) {
                    log.info("Watching {} again", directory);
                }
                return true;
            }
            catch (IOException e) {
                // It exists: waiting for it to appear would wait for nothing. Said once; retried by the loop.
                if (unwatchable.put(directory, String.valueOf(e.getMessage())) == null) {
                    log.warn("Cannot watch {}: {}; changes there would go unseen, so the agent is not ready, rescans on a timer and tries the "
                            + "watch again{}", directory, e.getMessage(), String.valueOf(e.getMessage()).contains("limit")
                            ? " (the inotify watch limit: fs.inotify.max_user_watches)" : "");
                }
                pending.remove(directory);
                return false;
            }
        }
        unwatchable.remove(directory);
        if (pending.add(directory)) {
            log.info("{} does not exist yet; watching for it", directory);
        }
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
        for (Path directory : Set.copyOf(pending)) {
            Optional<Path> watching = descend(directory);
            if (watching.isPresent()) {
                neededAncestors.add(watching.get());
            }
            else if (armed.containsKey(directory)) {
                armedLate.add(directory);
            }
        }
        // A watch follows its directory's inode, not its path: the parent of every armed directory is watched too, so
        // that a directory renamed away, or another renamed in its place, is an event, not a silence.
        for (Path directory : wanted) {
            Path parent = directory.getParent();
            if (armed.containsKey(directory) && parent != null && !wanted.contains(parent)) {
                if (!isWatched(parent)) {
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
        ancestors.clear();
        ancestors.addAll(neededAncestors);
        for (Path directory : Set.copyOf(armed.keySet())) {
            if (!wanted.contains(directory) && !ancestors.contains(directory)) {
                WatchKey key = armed.remove(directory);
                armedOn.remove(directory);
                keys.remove(key);
                log.debug("Dropping the watch on {}", directory);
                key.cancel();
            }
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
            Path level = nearestExistingAncestor(directory);
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
                if (!isWatched(level)) {
                    try {
                        register(level);
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

    private static Path nearestExistingAncestor(Path directory)
    {
        Path ancestor = directory.getParent();
        while (ancestor != null && !Files.isDirectory(ancestor)) {
            ancestor = ancestor.getParent();
        }
        return ancestor;
    }

    private boolean isWatched(Path directory)
    {
        WatchKey key = armed.get(directory);
        return key != null && key.isValid();
    }

    /**
     * The periodic check: every wanted directory is watched where it is now, and no pending one exists unwatched.
     * Repairs what differs (a watch that followed its directory elsewhere, or ended unseen; a directory made unseen),
     * once the difference is settled: a change whose event may still be on its way is left to that event.
     *
     * @param settled whether a directory (as the agent sees it) changed long enough ago for its event to have come
     * @return what was repaired, and whether a difference was left for being too recent
     */
    Verification verify(Predicate<Path> settled)
    {
        List<Repair> repairs = new ArrayList<>();
        boolean unsettled = false;
        for (Path directory : Set.copyOf(armed.keySet())) {
            WatchKey key = armed.get(directory);
            Optional<Object> now = fileKey(directory);
            String why;
            if (!key.isValid()) {
                why = "lost its watch";
            }
            else if (now.isEmpty()) {
                why = "is gone, but its watch went on with the directory it was";
            }
            else if (!armedOn.containsKey(directory)) {
                // Its identity could not be read when it was armed: this look is the reference from now on.
                armedOn.put(directory, now.get());
                continue;
            }
            else if (!now.get().equals(armedOn.get(directory))) {
                why = "was replaced by another directory, but its watch stayed with the old one";
            }
            else {
                continue;
            }
            if (!settled.test(directory)) {
                unsettled = true;
                continue;
            }
            armed.remove(directory);
            armedOn.remove(directory);
            keys.remove(key);
            key.cancel();
            if (wanted.contains(directory)) {
                repairs.add(new Repair(directory, why));
                arm(directory);
            }
            else {
                // An ancestor: the descent below watches it (or a deeper one) anew.
                repairs.add(new Repair(directory, why + " (it was watched for " + pending + " to appear)"));
            }
        }
        for (Path directory : pending) {
            if (Files.isDirectory(directory)) {
                if (settled.test(directory)) {
                    repairs.add(new Repair(directory, "exists but was not watched"));
                }
                else {
                    unsettled = true;
                }
            }
        }
        if (!repairs.isEmpty()) {
            reconcileKeys();
        }
        return new Verification(repairs, unsettled);
    }

    /**
     * What {@link #verify} found.
     *
     * @param repairs   what it repaired
     * @param unsettled whether it left a difference for being too recent
     */
    record Verification(List<Repair> repairs, boolean unsettled)
    {
        Verification
        {
            repairs = List.copyOf(repairs);
        }
    }

    /**
     * One thing the periodic check repaired.
     *
     * @param directory the directory, as the agent sees it
     * @param why       what was wrong, said after its name
     */
    record Repair(Path directory, String why) {}

    private static Optional<Object> fileKey(Path directory)
    {
        try {
            return Optional.ofNullable(Files.readAttributes(directory, BasicFileAttributes.class).fileKey());
        }
        catch (IOException e) {
            return Optional.empty();
        }
    }

    private void register(Path directory)
            throws IOException
    {
        log.debug("Arming a watch on {}", directory);
        // Read before the watch: should the path change in between, the check finds the two differ and arms again.
        Optional<Object> before = fileKey(directory);
        WatchKey key = directory.register(service,
                StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE);
        keys.put(key, directory);
        armed.put(directory, key);
        if (before.isPresent()) {
            armedOn.put(directory, before.get());
        }
        else {
            armedOn.remove(directory);
        }
    }
}
