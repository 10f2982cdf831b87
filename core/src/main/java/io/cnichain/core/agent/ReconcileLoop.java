package io.cnichain.core.agent;

import io.cnichain.core.CniChainException;
import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.discovery.ConfigNames;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.engine.FileOutcome;
import io.cnichain.core.engine.Hashes;
import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.core.host.HostPaths;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * The agent's one reconcile thread. Every change goes through it, serially: watches are armed before the first
 * scan; the thread blocks on the watch service (no wake-up when nothing happens), takes every event that is
 * already queued, and reconciles once for the batch, so a burst is coalesced without delaying the first
 * reaction. A file that does not parse is retried with a short back-off; our own writes are recognised by
 * their hash; a writer that undoes our patch at once, again and again, is backed off from.
 */
public final class ReconcileLoop
{
    private static final Logger log = LoggerFactory.getLogger(ReconcileLoop.class);

    /** Retries of a file that does not parse yet (a primary writing it in several steps). */
    static final long[] RETRY_MILLIS = {20, 50, 100, 200, 400, 800, 1600, 3200};

    private final Engine engine;
    private final AgentConfig config;
    private final HostPaths host;
    private final WatchService watchService;
    private final DirectoryWatches watches;
    private final WriteLedger ledger = new WriteLedger();
    private final FightTracker fights;
    private final AgentStatus status;
    private final AgentMetrics metrics;
    private final BoundedFileReader reader;
    private final PriorityQueue<Timer> timers = new PriorityQueue<>(Comparator.comparingLong(Timer::dueNanos));
    private final Map<Path, Integer> waitingAttempts = new HashMap<>();
    private final Set<Path> reportedStuck = new HashSet<>();

    private final Path confDir;
    private final Path serviceAccountDir;
    private final Path binDir;

    private boolean active;
    private boolean binariesDirty = true;
    private boolean kubeconfigDirty = true;
    private boolean saidNoPrimary;
    private String lastAdapter = "";
    private Set<String> lastNotes = Set.of();
    private Map<Path, Set<String>> targetDirNames = Map.of();
    private volatile boolean stopping;

    ReconcileLoop(Engine engine, WatchService watchService, AgentStatus status, AgentMetrics metrics, FightTracker.Policy fightPolicy)
    {
        this.engine = requireNonNull(engine, "engine is null");
        this.config = engine.config();
        this.host = engine.host();
        this.watchService = requireNonNull(watchService, "watchService is null");
        this.watches = new DirectoryWatches(watchService);
        this.status = requireNonNull(status, "status is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
        this.fights = new FightTracker(fightPolicy);
        this.reader = new BoundedFileReader(config.paths().maxConfigBytes());
        this.confDir = host.toContainer(config.paths().confDir());
        this.serviceAccountDir = config.apiServer().serviceAccountDir();
        this.binDir = host.toContainer(config.paths().binDir());
    }

    /**
     * Runs until {@link #stop()}.
     */
    void run()
    {
        status.loopRunning(true);
        try {
            // Armed before the first scan: anything written from now on produces an event we will see.
            watches.want(wantedDirectories());
            log.info("Watching {} (and {} for token rotation, {} for our binary)", config.paths().confDir(), serviceAccountDir, config.paths().binDir());
            Batch startup = new Batch();
            startup.reconcile = true;
            startup.reason = "startup";
            reconcile(startup);
            while (!stopping) {
                WatchKey key = nextKey();
                Batch batch = new Batch();
                if (key != null) {
                    collect(key, batch);
                }
                for (WatchKey more = watchService.poll(); more != null; more = watchService.poll()) {
                    collect(more, batch);
                }
                runDueTimers(batch);
                process(batch);
            }
        }
        catch (ClosedWatchServiceException e) {
            // stop() closed the service: leave the loop.
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        finally {
            status.loopRunning(false);
        }
    }

    /** Ends the loop; called from the signal handler's thread. The pass under way finishes first. */
    void stop()
    {
        stopping = true;
        try {
            watchService.close();
        }
        catch (java.io.IOException e) {
            log.warn("Closing the watch service failed: {}", e.getMessage());
        }
    }

    private WatchKey nextKey()
            throws InterruptedException
    {
        Timer next = timers.peek();
        if (next == null) {
            return watchService.take();
        }
        long wait = next.dueNanos() - System.nanoTime();
        return wait <= 0 ? watchService.poll() : watchService.poll(wait, TimeUnit.NANOSECONDS);
    }

    private void collect(WatchKey key, Batch batch)
    {
        Optional<Path> directory = watches.directoryOf(key);
        for (WatchEvent<?> event : key.pollEvents()) {
            if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                metrics.event("overflow");
                batch.overflow = true;
                continue;
            }
            if (directory.isEmpty()) {
                continue;
            }
            String kind = kindName(event.kind());
            metrics.event(kind.toLowerCase(java.util.Locale.ROOT));
            batch.events.add(new Observed(directory.get(), event.context().toString(), kind));
        }
        if (!key.reset()) {
            batch.invalidated.add(key);
        }
    }

    private void runDueTimers(Batch batch)
    {
        long now = System.nanoTime();
        while (!timers.isEmpty() && timers.peek().dueNanos() <= now) {
            Timer timer = timers.poll();
            batch.reconcile = true;
            batch.reason = batch.reason == null ? timer.reason() : batch.reason;
            if (timer.stableCheck() != null) {
                batch.stableChecks.add(timer.stableCheck());
            }
        }
    }

    private void process(Batch batch)
    {
        for (WatchKey key : batch.invalidated) {
            watches.invalidated(key);
            batch.rescan = true;
        }
        Set<Path> appeared = new LinkedHashSet<>();
        for (Observed event : batch.events) {
            if (watches.isAncestor(event.directory()) && event.kind().equals("CREATE")) {
                appeared.addAll(watches.retryPending());
            }
        }
        if (!appeared.isEmpty()) {
            log.info("{} appeared; watching again and rescanning", appeared);
            batch.rescan = true;
        }
        for (Observed event : batch.events) {
            classify(event, batch);
        }
        if (batch.overflow) {
            log.warn("More events arrived at once than the watch queue holds (overflow); rescanning everything");
            batch.rescan = true;
        }
        if (batch.rescan) {
            binariesDirty = true;
            kubeconfigDirty = true;
            batch.reconcile = true;
            batch.reason = batch.reason == null ? "rescan" : batch.reason;
        }
        if (batch.reconcile) {
            reconcile(batch);
        }
    }

    private void classify(Observed event, Batch batch)
    {
        Path directory = event.directory();
        String name = event.name();
        boolean handled = false;
        if (directory.equals(serviceAccountDir)) {
            handled = true;
            if (name.equals("..data")) {
                log.info("Detected change in service account files; recreating kubeconfig file");
            }
            kubeconfigDirty = true;
            batch.reconcile = true;
        }
        if (directory.equals(binDir)) {
            handled = true;
            if (engine.installer().binaryNames().contains(name)) {
                // Our own write echoes here too: the check compares bytes with the source and writes only on a
                // difference, so the echo costs a comparison and nothing more.
                log.debug("Detected event: {} {}; checking our binaries", event.kind(), config.paths().binDir().resolve(name));
                binariesDirty = true;
                batch.reconcile = true;
            }
        }
        boolean configDirectory = directory.equals(confDir) || targetDirNames.containsKey(directory);
        if (!configDirectory) {
            if (!handled && !watches.isAncestor(directory)) {
                log.debug("Ignoring event {} {} in {}", event.kind(), name, directory);
            }
            return;
        }
        Path hostPath = host.toHost(directory.resolve(name));
        if (directory.equals(confDir) && name.equals(config.kubeconfig().fileName())) {
            kubeconfigDirty = true;
            batch.reconcile = true;
            return;
        }
        if (ConfigNames.isNeverConfig(name)) {
            log.debug("Ignoring event: {} {}; not a configuration", event.kind(), hostPath);
            return;
        }
        if (!directory.equals(confDir) && !targetDirNames.get(directory).contains(name)) {
            log.debug("Ignoring event: {} {}; not a file we patch", event.kind(), hostPath);
            return;
        }
        batch.files.putIfAbsent(hostPath, event.kind());
        batch.reconcile = true;
        if (batch.firstEventNanos == 0) {
            batch.firstEventNanos = batch.createdNanos;
        }
    }

    private void reconcile(Batch batch)
    {
        status.busy(true);
        try {
            reconcileNow(batch);
        }
        catch (RuntimeException e) {
            // One bad pass must not end the loop: say what happened and wait for the next change.
            log.error("Reconcile failed: {}", e.toString(), e);
            metrics.reconcile("failed");
            status.publish(List.of("the last reconcile failed: " + e.getMessage()));
        }
        finally {
            status.busy(false);
        }
    }

    private void reconcileNow(Batch batch)
    {
        NodeSnapshot snapshot = engine.snapshot();
        if (!batch.files.isEmpty() && !announceFileEvents(batch, snapshot) && !batch.rescan && !binariesDirty && !kubeconfigDirty
                && batch.reason == null && batch.stableChecks.isEmpty()) {
            metrics.reconcile("echo");
            return;
        }
        Selection selection = engine.select(snapshot);
        if (!selection.chosen().name().equals(lastAdapter)) {
            log.info("Using adapter {} ({})", selection.chosen().name(), selection.why());
            lastAdapter = selection.chosen().name();
        }
        Set<String> notes = new LinkedHashSet<>(selection.notes());
        notes.addAll(snapshot.brokenBeforeEffective());
        for (String note : notes) {
            if (!lastNotes.contains(note)) {
                log.warn("{}", note);
            }
        }
        lastNotes = notes;

        List<String> notReady = new ArrayList<>();
        if (selection.failure().isPresent()) {
            log.error("{}", selection.failure().get());
            notReady.add(selection.failure().get());
            finish(batch, selection, notReady, "failed");
            return;
        }
        if (selection.targets().isEmpty()) {
            if (!saidNoPrimary) {
                log.info("No active CNI configuration files found in {}; waiting for the primary network plugin to write one (nothing is created until then)",
                        config.paths().confDir());
                saidNoPrimary = true;
            }
            active = false;
            notReady.add("no primary CNI configuration in " + config.paths().confDir() + " yet");
            finish(batch, selection, notReady, "nothing");
            return;
        }
        saidNoPrimary = false;
        if (!active) {
            active = true;
            binariesDirty = true;
            kubeconfigDirty = true;
        }
        if (binariesDirty) {
            try {
                engine.installer().installBinaries();
                binariesDirty = false;
            }
            catch (CniChainException e) {
                log.error("{}", e.getMessage());
                notReady.add(e.getMessage());
            }
        }
        if (kubeconfigDirty) {
            try {
                engine.installer().ensureKubeconfig();
                kubeconfigDirty = false;
            }
            catch (CniChainException e) {
                log.error("{}", e.getMessage());
                notReady.add(e.getMessage());
            }
        }
        Optional<String> missing = engine.installer().missingPrerequisite();
        if (missing.isPresent()) {
            log.error("Not patching any configuration: {}", missing.get());
            notReady.add(missing.get());
            finish(batch, selection, notReady, "failed");
            return;
        }
        for (Path file : batch.stableChecks) {
            ledger.last(file).filter(last -> hashOf(file).map(last.sha256()::equals).orElse(false)).ifPresent(last -> {
                if (fights.onStable(file, last.nanos(), System.nanoTime())) {
                    log.info("{} has kept our entry for {} s; the fight is over, back to normal speed", file, fights.policy().stable().toSeconds());
                }
            });
        }
        String result = "ok";
        for (ConfigTarget target : selection.targets()) {
            String problem = patch(target, selection, batch);
            if (problem != null) {
                notReady.add(problem);
                result = "waiting";
            }
        }
        finish(batch, selection, notReady, notReady.isEmpty() ? "ok" : result);
    }

    /**
     * Says what each changed file is: our own write echoing back, or a real change.
     *
     * @return whether any event is a real change
     */
    private boolean announceFileEvents(Batch batch, NodeSnapshot snapshot)
    {
        boolean real = false;
        for (Map.Entry<Path, String> file : batch.files.entrySet()) {
            ConfigEntry entry = snapshot.inspect(file.getKey());
            Optional<Path> target = entry.resolvedFile();
            if (target.isPresent()) {
                Path resolved = target.get();
                Optional<String> hash = hashOf(resolved);
                if (hash.isPresent() && ledger.isOurs(resolved, hash.get())) {
                    log.info("Ignoring event: {} {}; written by us", file.getValue(), file.getKey());
                    continue;
                }
                waitingAttempts.remove(resolved);
                reportedStuck.remove(resolved);
                if (!resolved.equals(file.getKey())) {
                    log.info("File {} resolves to {}", file.getKey(), resolved);
                }
                log.info("New/changed file [{}] detected; re-installing", file.getKey());
            }
            else if (!entry.isSymlink() && entry.problem().map(p -> p.endsWith("does not exist")).orElse(false)) {
                log.info("Detected event: {} {}; the file is gone", file.getValue(), file.getKey());
            }
            else {
                log.info("Detected event: {} {}: {}", file.getValue(), file.getKey(), entry.problem().orElse(""));
            }
            real = true;
        }
        return real;
    }

    /**
     * Patches one file unless a fight holds it back.
     *
     * @return why the file is not patched yet, or null when it is
     */
    private String patch(ConfigTarget target, Selection selection, Batch batch)
    {
        Path file = target.resolvedFile();
        long now = System.nanoTime();
        Optional<Long> blocked = fights.blockedUntil(file, now);
        if (blocked.isPresent()) {
            schedule(blocked.get(), "back-off over", null);
            return fightReason(file, selection);
        }
        Optional<WriteLedger.Entry> before = ledger.last(file);
        FileOutcome outcome = engine.installer().patch(target, selection);
        long written = System.nanoTime();
        switch (outcome.result()) {
            case PATCHED, CONVERTED -> {
                outcome.written().forEach(w -> ledger.record(w, written));
                metrics.patchWritten();
                if (batch.firstEventNanos != 0) {
                    metrics.reaction(written - batch.firstEventNanos);
                }
                waitingAttempts.remove(file);
                if (before.isPresent()) {
                    Optional<FightTracker.Step> step = fights.onRevert(file, before.get().nanos(), now);
                    if (step.isPresent()) {
                        metrics.fight();
                        log.warn("Backing off: {} was undone {} times within {} s, each time less than {} ms after our write; another writer is fighting "
                                        + "over it. Next write in {} s. {}", file, step.get().reverts(), fights.policy().window().toSeconds(),
                                fights.policy().quickRevert().toMillis(), step.get().backoff().toSeconds(), hint(selection));
                    }
                }
                if (fights.fighting(file)) {
                    schedule(written + fights.policy().stable().toNanos(), "fight stability check", file);
                    return fightReason(file, selection);
                }
                return null;
            }
            case UNCHANGED, REMOVED -> {
                waitingAttempts.remove(file);
                return fights.fighting(file) ? fightReason(file, selection) : null;
            }
            case WAITING -> {
                int attempt = waitingAttempts.merge(file, 1, Integer::sum);
                if (attempt <= RETRY_MILLIS.length) {
                    schedule(now + TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS[attempt - 1]), "retry " + file, null);
                }
                else if (reportedStuck.add(file)) {
                    log.warn("{} still cannot be patched after {} retries ({}); left alone until it changes", file, RETRY_MILLIS.length, outcome.detail());
                }
                return "waiting for " + file + ": " + outcome.detail();
            }
            default -> {
                return outcome.detail();
            }
        }
    }

    private String fightReason(Path file, Selection selection)
    {
        Duration backoff = fights.fights().get(file);
        return "another writer keeps undoing our entry in " + file + "; backing off " + (backoff == null ? "" : backoff.toSeconds() + " s")
                + ". " + hint(selection);
    }

    private static String hint(Selection selection)
    {
        try {
            return selection.chosen().adapter().fightHint().map(h -> "Hint: " + h)
                    .orElse("Hint: find the other agent rewriting this file and let it keep chained plugins.");
        }
        catch (RuntimeException e) {
            return "";
        }
    }

    private void finish(Batch batch, Selection selection, List<String> notReady, String result)
    {
        metrics.reconcile(result);
        if (notReady.isEmpty()) {
            metrics.success(System.currentTimeMillis());
        }
        updateWatches(selection);
        status.publish(notReady);
    }

    private void updateWatches(Selection selection)
    {
        Map<Path, Set<String>> names = new LinkedHashMap<>();
        NodeSnapshot snapshot = engine.snapshot();
        for (ConfigTarget target : selection.targets()) {
            Path targetFile = host.toContainer(target.resolvedFile());
            names.computeIfAbsent(targetFile.getParent(), d -> new HashSet<>()).add(targetFile.getFileName().toString());
            // Every link on the way: re-pointing one changes what the runtime loads without a word in the conf dir.
            for (Path link : snapshot.inspect(target.path()).linkChain()) {
                Path linkFile = host.toContainer(link);
                names.computeIfAbsent(linkFile.getParent(), d -> new HashSet<>()).add(linkFile.getFileName().toString());
            }
        }
        try {
            for (Path extra : selection.chosen().adapter().watchDirectories(snapshot, selection.settings())) {
                names.computeIfAbsent(host.toContainer(extra), d -> new HashSet<>());
            }
        }
        catch (RuntimeException e) {
            log.warn("adapter {} failed to name its directories: {}", selection.chosen().name(), e.getMessage());
        }
        names.remove(confDir);
        targetDirNames = names;
        Set<Path> armed = watches.want(wantedDirectories());
        if (!armed.isEmpty()) {
            log.info("Watching {} as well", armed);
        }
    }

    private Set<Path> wantedDirectories()
    {
        Set<Path> wanted = new LinkedHashSet<>();
        wanted.add(confDir);
        wanted.add(serviceAccountDir);
        wanted.add(binDir);
        wanted.addAll(targetDirNames.keySet());
        return wanted;
    }

    private void schedule(long dueNanos, String reason, Path stableCheck)
    {
        for (Timer timer : timers) {
            if (timer.dueNanos() <= dueNanos && timer.stableCheck() == null && stableCheck == null) {
                return;
            }
        }
        timers.add(new Timer(dueNanos, reason, stableCheck));
    }

    private Optional<String> hashOf(Path hostPath)
    {
        try {
            return Optional.of(Hashes.sha256(reader.read(host.toContainer(hostPath), hostPath)));
        }
        catch (CniChainException e) {
            return Optional.empty();
        }
    }

    private static String kindName(WatchEvent.Kind<?> kind)
    {
        if (kind == StandardWatchEventKinds.ENTRY_CREATE) {
            return "CREATE";
        }
        if (kind == StandardWatchEventKinds.ENTRY_MODIFY) {
            return "MODIFY";
        }
        if (kind == StandardWatchEventKinds.ENTRY_DELETE) {
            return "DELETE";
        }
        return kind.name();
    }

    /** What one wake-up of the loop found. */
    private static final class Batch
    {
        final long createdNanos = System.nanoTime();
        final List<Observed> events = new ArrayList<>();
        final List<WatchKey> invalidated = new ArrayList<>();
        final Map<Path, String> files = new LinkedHashMap<>();
        final List<Path> stableChecks = new ArrayList<>();
        boolean overflow;
        boolean rescan;
        boolean reconcile;
        String reason;
        long firstEventNanos;
    }

    private record Observed(Path directory, String name, String kind) {}

    private record Timer(long dueNanos, String reason, Path stableCheck) {}
}
