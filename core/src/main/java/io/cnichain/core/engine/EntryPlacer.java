package io.cnichain.core.engine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.Printable;
import io.cnichain.core.adapters.AdapterSelector;
import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.config.Placement;
import io.cnichain.core.discovery.CniConfigParser.LoadedConfig;
import io.cnichain.core.discovery.DropIns;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.json.CniJson;
import io.cnichain.core.placement.PlacementDecision;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.util.Objects.requireNonNull;

/**
 * Puts our entry where the {@link PlacementDecision} says: into the primary's list ({@link ConfigFileUpdater}), or into
 * a drop-in of the list's network ({@link DropInFiles}), never both. Each switch changes the plugin directory first and
 * the conf dir's file last: the runtime watches the conf dir only, so its one reload sees the new form alone (our
 * entry leaving the list after the drop-in is in place, or our drop-in gone before the list carries the entry).
 */
final class EntryPlacer
{
    private static final Logger log = LoggerFactory.getLogger(EntryPlacer.class);

    private final PlacementDecision decision;
    private final ConfigFileUpdater updater;
    private final DropInFiles dropIns;
    private final Path confDir;
    private final String type;
    private final Optional<String> ourName;
    private final Set<String> saidPatching = ConcurrentHashMap.newKeySet();
    /** Whether drop-ins of ours outside the networks in use were looked for since start or since a drop-in moved. */
    private final AtomicBoolean strayChecked = new AtomicBoolean();

    EntryPlacer(PlacementDecision decision, ConfigFileUpdater updater, DropInFiles dropIns, Path confDir, String type, Optional<String> ourName)
    {
        this.decision = requireNonNull(decision, "decision is null");
        this.updater = requireNonNull(updater, "updater is null");
        this.dropIns = requireNonNull(dropIns, "dropIns is null");
        this.confDir = requireNonNull(confDir, "confDir is null");
        this.type = requireNonNull(type, "type is null");
        this.ourName = requireNonNull(ourName, "ourName is null");
    }

    PlacementDecision decision()
    {
        return decision;
    }

    /**
     * Where our entry goes for one target, and why, as {@code detect} says it: a drop-in's path, or why the list is
     * patched (or, with {@code placement: drop-in}, why nothing is placed).
     */
    Where where(ConfigTarget target, LoadedConfig config)
    {
        if (decision.placement() == Placement.PATCH) {
            return new Where(Optional.empty(), Optional.empty());
        }
        if (target.reason().startsWith(AdapterSelector.OLDER_LIBCNI_REASON)) {
            return new Where(Optional.empty(), Optional.of("only libcni 1.1 loads it, and libcni 1.1 ignores drop-ins"));
        }
        String loadName = ConfigFileUpdater.loadName(target.path(), target.resolvedFile());
        Optional<String> none = DropIns.whyNone(loadName, config);
        if (none.isPresent()) {
            return new Where(Optional.empty(), none);
        }
        Optional<String> notItsOwn = DropIns.whyNotItsOwn(confDir, config.summary().networkName());
        if (notItsOwn.isPresent()) {
            return new Where(Optional.empty(), Optional.of(notItsOwn.get() + ", so the network has no plugin directory of its own"));
        }
        return new Where(DropIns.writableDirectory(confDir, config.summary().networkName()), Optional.empty());
    }

    /**
     * @param directory the plugin directory our drop-in goes to, when it goes to one
     * @param notThere  why it does not, when the placement is drop-in
     */
    record Where(Optional<Path> directory, Optional<String> notThere) {}

    /** @return our drop-in's host path for a target, when the placement puts one there */
    Optional<Path> dropInFile(ConfigTarget target, LoadedConfig config)
    {
        return where(target, config).directory().map(dropIns::file);
    }

    /** @return our drop-in's host path in a plugin directory */
    Path dropInFile(Path directory)
    {
        return dropIns.file(directory);
    }

    /** @param putBack why our entry is written again, when the caller knows it had been there */
    FileOutcome place(ConfigTarget target, ObjectNode entry, Selection selection, NodeSnapshot snapshot, Optional<String> putBack)
    {
        if (decision.placement() == Placement.PATCH) {
            sweepStray(snapshot, Set.of());
            return patch(target, entry, selection, snapshot, putBack);
        }
        ConfigEntry configEntry = snapshot.inspect(target.path());
        NodeSnapshot.Loaded loaded = snapshot.load(configEntry);
        if (loaded.config().isEmpty()) {
            return new FileOutcome(target.path(), FileOutcome.Result.WAITING, loaded.result().error().orElse(target.path() + " does not parse")
                    + "; no drop-in placed", List.of());
        }
        LoadedConfig config = loaded.config().get();
        Optional<String> incomplete;
        try {
            incomplete = selection.incompleteReason(target, config.summary());
        }
        catch (RuntimeException e) {
            return new FileOutcome(target.path(), FileOutcome.Result.FAILED, "adapter " + selection.chosen().name() + ": " + e.getMessage()
                    + "; no drop-in placed", List.of());
        }
        if (incomplete.isPresent()) {
            return new FileOutcome(target.path(), FileOutcome.Result.WAITING, target.resolvedFile() + ": not complete yet: " + incomplete.get(), List.of());
        }
        Where where = where(target, config);
        if (where.directory().isEmpty()) {
            String why = where.notThere().orElseThrow();
            if (target.reason().startsWith(AdapterSelector.OLDER_LIBCNI_REASON)) {
                return new FileOutcome(target.path(), FileOutcome.Result.UNCHANGED, target.path() + ": " + why + "; a drop-in placement leaves it",
                        List.of());
            }
            if (decision.auto()) {
                if (saidPatching.add(target.path() + why)) {
                    log.info("Patching {} in place of a drop-in: {} (placement auto)", target.path(), why);
                }
                return patch(target, entry, selection, snapshot, putBack);
            }
            return new FileOutcome(target.path(), FileOutcome.Result.FAILED, "placement drop-in: " + why + "; a drop-in would never run, so none "
                    + "is written and the list is left as it is (set placement: patch or auto to patch it)", List.of());
        }
        if (decision.wontRun().isPresent()) {
            return new FileOutcome(target.path(), FileOutcome.Result.FAILED, "placement drop-in: " + decision.wontRun().get(), List.of());
        }
        return dropIn(target, where.directory().get(), config, snapshot.dropIns(configEntry), entry, snapshot, putBack);
    }

    private FileOutcome dropIn(ConfigTarget target, Path directory, LoadedConfig config, DropIns.Reading reading, ObjectNode entry, NodeSnapshot snapshot,
            Optional<String> putBack)
    {
        if (reading.unknown().isPresent()) {
            return new FileOutcome(target.path(), FileOutcome.Result.FAILED, "cannot tell what libcni appends to " + target.path() + ": "
                    + reading.unknown().get() + "; no drop-in placed", List.of());
        }
        Path file = dropIns.file(directory);
        Optional<String> broken = reading.failure().filter(failure -> !failure.startsWith(file + ":"));
        if (broken.isPresent()) {
            return new FileOutcome(target.path(), FileOutcome.Result.FAILED, broken.get() + "; our drop-in would not run either", List.of());
        }
        List<FileOutcome.Written> written;
        try {
            written = new ArrayList<>(dropIns.place(directory, CniJson.write(entry)));
        }
        catch (CniChainException e) {
            return new FileOutcome(target.path(), FileOutcome.Result.FAILED, e.getMessage(), List.of(), e.code() == ErrorCode.IO);
        }
        if (!written.isEmpty() && putBack.isPresent()) {
            log.info("Put our entry back in {}: {}", file, putBack.get());
        }
        else if (!written.isEmpty()) {
            log.info("Created CNI drop-in {} for network {} of {}; {} is left as it is", file, Printable.quoted(config.summary().networkName()), target.path(),
                    target.resolvedFile());
            strayChecked.set(false);
        }
        sweepStray(snapshot, Set.of(directory));
        // Never both forms: our entry leaves the list once the drop-in is in place. The list's change is the runtime's reload.
        if (config.count(type) > 0) {
            FileOutcome removed = updater.uninstall(target.path(), target.resolvedFile(), type, ourName);
            written.addAll(removed.written());
            if (removed.failed() || removed.result() == FileOutcome.Result.WAITING) {
                return new FileOutcome(target.path(), removed.result(), "our drop-in " + file + " is in place, but our entry is still in "
                        + target.resolvedFile() + " (" + removed.detail() + "), so the runtime would run " + type + " twice", written, removed.retryable());
            }
        }
        else if (!written.isEmpty()) {
            notifyRuntime(file);
        }
        Optional<String> notLast = notLast(reading, file);
        if (notLast.isPresent()) {
            return new FileOutcome(target.path(), FileOutcome.Result.FAILED, notLast.get(), written);
        }
        return written.isEmpty()
                ? new FileOutcome(target.path(), FileOutcome.Result.UNCHANGED, file + " already holds the " + type + " drop-in", List.of())
                : new FileOutcome(target.path(), FileOutcome.Result.PATCHED, "Created CNI drop-in " + file, written);
    }

    /** The rule: the runtime's list, drop-ins included, ends with ours, and runs it once. */
    private Optional<String> notLast(DropIns.Reading reading, Path ours)
    {
        List<String> others = new ArrayList<>();
        for (DropIns.DropIn plugin : reading.plugins()) {
            if (plugin.path().equals(ours)) {
                continue;
            }
            if (plugin.type().equals(type)) {
                return Optional.of(plugin.path() + " is a drop-in of type " + type + " too, so the runtime would run it twice; remove it");
            }
            if (NodeSnapshot.BYTE_ORDER.compare(plugin.path().getFileName().toString(), ours.getFileName().toString()) > 0) {
                others.add(plugin.path().toString());
            }
        }
        return others.isEmpty() ? Optional.empty() : Optional.of(String.join(", ", others) + " sort" + (others.size() == 1 ? "s" : "")
                + " after our drop-in " + ours + ", so " + type + " is not the last plugin the runtime runs");
    }

    /** Patch placement: our drop-in out of the list's network first (the runtime does not see that), then the list. */
    private FileOutcome patch(ConfigTarget target, ObjectNode entry, Selection selection, NodeSnapshot snapshot, Optional<String> putBack)
    {
        Optional<Path> removed = Optional.empty();
        ConfigEntry configEntry = snapshot.inspect(target.path());
        Optional<LoadedConfig> config = snapshot.load(configEntry).config();
        if (config.isPresent()) {
            Optional<Path> directory = DropIns.writableDirectory(confDir, config.get().summary().networkName());
            if (directory.isPresent() && snapshot.dropIns(configEntry).plugins().stream().anyMatch(p -> p.path().equals(dropIns.file(directory.get())))) {
                try {
                    removed = dropIns.remove(directory.get());
                }
                catch (CniChainException e) {
                    return new FileOutcome(target.path(), FileOutcome.Result.FAILED, e.getMessage() + "; the list is not patched while our drop-in stays, "
                            + "or the runtime would run " + type + " twice", List.of(), e.code() == ErrorCode.IO);
                }
                removed.ifPresent(file -> log.info("Removed CNI drop-in {}: placement is {}", file, decision.why()));
            }
        }
        FileOutcome outcome = updater.install(target, entry, selection, snapshot, putBack);
        if (removed.isPresent() && outcome.result() == FileOutcome.Result.UNCHANGED) {
            notifyRuntime(removed.get());
        }
        return outcome;
    }

    /**
     * Drop-ins of ours in plugin directories no list in use has: left by a network that was renamed, or by the other
     * placement. Looked for once at start and after a drop-in moved, not on every pass: it lists the conf dir.
     */
    private void sweepStray(NodeSnapshot snapshot, Set<Path> keep)
    {
        if (!strayChecked.compareAndSet(false, true)) {
            return;
        }
        Set<Path> inUse = new HashSet<>(keep);
        if (decision.placement() == Placement.DROP_IN) {
            for (ConfigEntry entry : snapshot.entries()) {
                if (entry.runtimeLoadable()) {
                    snapshot.dropIns(entry).directory().ifPresent(inUse::add);
                }
            }
        }
        boolean any = false;
        for (Path directory : dropIns.directoriesWithOurs()) {
            if (inUse.contains(directory)) {
                continue;
            }
            try {
                Optional<Path> removed = dropIns.remove(directory);
                if (removed.isPresent()) {
                    any = true;
                    log.info("Removed CNI drop-in {}: {}", removed.get(), decision.placement() == Placement.PATCH ? "placement is " + decision.why()
                            : "no list of network " + Printable.quoted(directory.getFileName().toString()) + " is loaded any more");
                }
            }
            catch (CniChainException e) {
                strayChecked.set(false);
                log.warn("{}", e.getMessage());
            }
        }
        if (any) {
            notifyRuntime(confDir);
        }
    }

    private void notifyRuntime(Path changed)
    {
        try {
            dropIns.notifyRuntime();
        }
        catch (CniChainException e) {
            // The drop-in is right; the runtime learns of it at its next reload (any change to the conf dir, or its restart).
            log.warn("{} changed, but the runtime could not be told (an event in {}): {}", changed, confDir, e.getMessage());
        }
    }
}
