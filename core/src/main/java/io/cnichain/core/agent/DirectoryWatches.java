package io.cnichain.core.agent;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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
    private final Set<Path> wanted = new LinkedHashSet<>();
    private final Set<Path> pending = new LinkedHashSet<>();
    private final Set<Path> ancestors = new HashSet<>();

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
        if (directory == null) {
            return Set.of();
        }
        armed.remove(directory);
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
        if (armed.containsKey(directory) && armed.get(directory).isValid()) {
            pending.remove(directory);
            return true;
        }
        if (Files.isDirectory(directory)) {
            try {
                register(directory);
                pending.remove(directory);
                return true;
            }
            catch (IOException e) {
                log.warn("Cannot watch {}: {}", directory, e.getMessage());
            }
        }
        if (pending.add(directory)) {
            log.info("{} does not exist yet; watching for it", directory);
        }
        return false;
    }

    /**
     * Ancestors of pending directories are watched; others are not kept beyond what is wanted. Watch first, then
     * look: a pending directory created before its ancestor's watch was armed sends no event, so it is armed here.
     *
     * @return the pending directories armed that way
     */
    private Set<Path> reconcileKeys()
    {
        Set<Path> armedLate = new LinkedHashSet<>();
        Set<Path> neededAncestors = new HashSet<>();
        boolean changed = true;
        while (changed) {
            neededAncestors.clear();
            for (Path directory : pending) {
                Path ancestor = directory.getParent();
                while (ancestor != null && !Files.isDirectory(ancestor)) {
                    ancestor = ancestor.getParent();
                }
                if (ancestor != null) {
                    neededAncestors.add(ancestor);
                }
            }
            for (Path ancestor : neededAncestors) {
                if (!armed.containsKey(ancestor)) {
                    try {
                        register(ancestor);
                    }
                    catch (IOException e) {
                        log.warn("Cannot watch {} for {} to appear: {}", ancestor, pending, e.getMessage());
                    }
                }
            }
            changed = false;
            for (Path directory : Set.copyOf(pending)) {
                if (Files.isDirectory(directory) && arm(directory)) {
                    armedLate.add(directory);
                    changed = true;
                }
            }
        }
        ancestors.clear();
        ancestors.addAll(neededAncestors);
        for (Path directory : Set.copyOf(armed.keySet())) {
            if (!wanted.contains(directory) && !ancestors.contains(directory)) {
                WatchKey key = armed.remove(directory);
                keys.remove(key);
                key.cancel();
            }
        }
        return armedLate;
    }

    private void register(Path directory)
            throws IOException
    {
        WatchKey key = directory.register(service,
                StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE);
        keys.put(key, directory);
        armed.put(directory, key);
    }
}
