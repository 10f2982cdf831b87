package io.cnichain.agent.loop;

import io.cnichain.agent.time.Clock;
import io.cnichain.core.discovery.NodeScanner;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.fs.BoundedFileReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.WatchService;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * The agent's one reconcile thread. Every change goes through it, serially: watches are armed before the first
 * scan; the thread blocks on the watch service (no wake-up when nothing happens, or until a timer is due), takes
 * every event that is already queued, and reconciles once for the batch, so a burst is coalesced without delaying
 * the first reaction.
 *
 * <p>The parts, one job each: {@link EventIntake} (watch keys to a batch of typed events), {@link WatchPlan} (what
 * each event asks of the pass) and {@link WatchPlanner} (which directories to watch), {@link Timers} (passes owed),
 * {@link ReconcilePass} (one pass over the installer), with {@link EchoFilter} and {@link WriteLedger} (our own
 * writes coming back), {@link TargetPatcher}, {@link FightTracker} and {@link RetrySchedule} (per-file state), and
 * {@link WriteRetries} (writes the filesystem refused, tried again while they fail).
 */
final class ReconcileLoop
{
    private static final Logger log = LoggerFactory.getLogger(ReconcileLoop.class);

    private final Engine engine;
    private final Clock clock;
    private final EventIntake intake;
    private final WatchPlanner planner;
    private final Timers timers = new Timers();
    private final NodeScanner scanner;
    private final ReconcilePass pass;
    private final TargetPatcher patcher;
    private final WriteRetries writeRetries;
    private final AgentStatus status;
    private final AgentMetrics metrics;
    private final PeriodicCheck check;
    private final long checkEveryNanos;
    private final Optional<ConfigFileNotice> configNotice;
    private final GroundCheck ground;
    private long nextGroundNanos = Long.MAX_VALUE;
    private long nextCheckNanos = Long.MAX_VALUE;
    /** Watches that failed (the inotify limit) are tried again, and everything rescanned, at this time; doubling to 30 s. */
    private long nextWatchRetryNanos = Long.MAX_VALUE;
    private long watchRetryDelayNanos = WATCH_RETRY_FIRST_NANOS;
    private static final long WATCH_RETRY_FIRST_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long WATCH_RETRY_MOST_NANOS = TimeUnit.SECONDS.toNanos(30);
    private PeriodicCheck.Belief belief = new PeriodicCheck.Belief(Optional.empty(), false);
    /** Directories were armed after the last look: the next pass looks at everything. */
    private boolean rescanOwed;
    private boolean checkAtOnce;
    private WatchPlan plan;
    private volatile boolean stopping;

    ReconcileLoop(Engine engine, WatchService watchService, AgentStatus status, AgentMetrics metrics, AgentPolicy policy, Clock clock)
    {
        this.clock = requireNonNull(clock, "clock is null");
        this.engine = requireNonNull(engine, "engine is null");
        this.status = requireNonNull(status, "status is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
        requireNonNull(policy, "policy is null");
        this.intake = new EventIntake(watchService, metrics, clock);
        this.planner = new WatchPlanner(engine);
        this.plan = planner.initial();
        WriteLedger ledger = new WriteLedger(engine.host(), new BoundedFileReader(engine.config().paths().maxConfigBytes()), clock);
        RetrySchedule retries = new RetrySchedule(policy.retryDelays());
        this.writeRetries = new WriteRetries(RetrySchedule.repeatingLast(policy.writeRetryDelays()), timers);
        this.patcher = new TargetPatcher(engine.installer(), ledger, new FightTracker(policy.fights()), retries, writeRetries, timers, metrics, clock);
        this.scanner = new NodeScanner(engine.config().layout());
        this.pass = new ReconcilePass(engine, scanner, new EchoFilter(engine.host(), engine.config().paths().confDir(), ledger, retries), patcher);
        this.check = new PeriodicCheck(engine.host(), engine.config().paths(), engine.config().plugin().type(), scanner, intake, metrics);
        this.checkEveryNanos = engine.config().run().periodicCheck().toNanos();
        this.configNotice = ConfigFileNotice.of(engine.config());
        this.ground = new GroundCheck(engine.config().paths());
        configNotice.ifPresent(notice -> {
            status.addDetail(notice::describe);
            metrics.addGauge(ConfigFileNotice.METRIC_NAME, ConfigFileNotice.METRIC_HELP, notice::changedGauge);
        });
    }

    /**
     * Runs until {@link #stop()}.
     */
    void run()
    {
        status.loopRunning(true);
        try {
            // Armed before the first scan: anything written from now on produces an event we will see.
            intake.watch(watched());
            if (intake.unwatchable().isEmpty()) {
                log.info("Watching {} (and {} for token rotation, {} for our binary)", engine.config().paths().confDir(), plan.serviceAccountDir(),
                        engine.config().paths().binDir());
            }
            scheduleWatchRetry(clock.nanoTime());
            reconcile(PassRequest.startup(clock.nanoTime()));
            if (checkEveryNanos > 0) {
                nextCheckNanos = clock.nanoTime() + checkEveryNanos;
            }
            nextGroundNanos = clock.nanoTime() + GroundCheck.EVERY_NANOS;
            while (!stopping) {
                EventIntake.Batch batch = intake.next(nextDeadline());
                status.wakeUpStarted();
                PassRequest request = new PassRequest(batch.wokeNanos());
                if (batch.rescan() || rescanOwed) {
                    request.rescan();
                    scanner.changedEverything();
                    rescanOwed = false;
                }
                boolean configDirChanged = false;
                for (DirectoryEvent event : batch.events()) {
                    noteChange(event);
                    plan.classify(event, request);
                    configDirChanged |= configNotice.isPresent() && event.directory().equals(configNotice.get().directory());
                }
                if (configDirChanged) {
                    configNotice.get().check();
                }
                long now = clock.nanoTime();
                for (Timers.Timer timer : timers.takeDue(now)) {
                    request.timerDue(timer);
                }
                if (now - nextGroundNanos >= 0) {
                    Optional<String> moved = ground.look();
                    if (moved.isPresent()) {
                        log.warn("{}; looking at everything again", moved.get());
                        request.rescan();
                        scanner.changedEverything();
                        // The check re-arms each watch where its directory is now (a mount hides the old one), at once.
                        nextCheckNanos = now;
                        checkAtOnce = true;
                    }
                    nextGroundNanos = now + GroundCheck.EVERY_NANOS;
                }
                if (now - nextCheckNanos >= 0) {
                    periodicCheck(request, now);
                }
                if (now - nextWatchRetryNanos >= 0) {
                    retryWatches(request, now);
                }
                if (request.wanted()) {
                    reconcile(request);
                }
                status.wakeUpDone();
            }
        }
        catch (ClosedWatchServiceException e) {
            // stop() closed the service: leave the loop.
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        finally {
            ground.close();
            status.loopRunning(false);
        }
    }

    /** @return the plan's directories, and the one holding the agent's own configuration file */
    private Set<Path> watched()
    {
        Set<Path> directories = new java.util.LinkedHashSet<>(plan.directories());
        configNotice.ifPresent(notice -> directories.add(notice.directory()));
        return directories;
    }

    /**
     * @return when the loop must wake up without an event: the next timer, the periodic check, a watch to try again, or
     *         the look at what changes without an event ({@link GroundCheck})
     */
    private OptionalLong nextDeadline()
    {
        OptionalLong earliest = timers.nextDueNanos();
        for (long own : new long[] {nextWatchRetryNanos, nextCheckNanos, nextGroundNanos}) {
            if (own != Long.MAX_VALUE && (earliest.isEmpty() || own - earliest.getAsLong() < 0)) {
                earliest = OptionalLong.of(own);
            }
        }
        return earliest;
    }

    /** While a wanted directory cannot be watched, nothing tells of its changes: look again on a timer, and try the watch. */
    private void scheduleWatchRetry(long now)
    {
        if (intake.unwatchable().isEmpty()) {
            nextWatchRetryNanos = Long.MAX_VALUE;
            watchRetryDelayNanos = WATCH_RETRY_FIRST_NANOS;
        }
        else if (nextWatchRetryNanos == Long.MAX_VALUE) {
            nextWatchRetryNanos = now + watchRetryDelayNanos;
        }
    }

    private void retryWatches(PassRequest request, long now)
    {
        Set<Path> armed = intake.retryUnwatchable();
        // Whether or not the watch is back, what changed meanwhile was not told: look at everything.
        request.rescan();
        scanner.changedEverything();
        nextWatchRetryNanos = Long.MAX_VALUE;
        if (intake.unwatchable().isEmpty()) {
            log.info("Every watch is in place again ({}); rescanning", armed);
            watchRetryDelayNanos = WATCH_RETRY_FIRST_NANOS;
        }
        else {
            watchRetryDelayNanos = Math.min(watchRetryDelayNanos * 2, WATCH_RETRY_MOST_NANOS);
            scheduleWatchRetry(now);
        }
    }

    /** @return the pass's reasons, and one for each wanted directory that could not be watched */
    private List<String> withUnwatched(List<String> notReady)
    {
        if (intake.unwatchable().isEmpty()) {
            return notReady;
        }
        List<String> reasons = new java.util.ArrayList<>(notReady);
        intake.unwatchable().forEach((directory, why) -> reasons.add("not watching " + engine.host().toHost(directory) + ": " + why
                + "; a change there would go unseen (looking again every " + TimeUnit.NANOSECONDS.toSeconds(watchRetryDelayNanos)
                + " s until the watch is back)"));
        return reasons;
    }

    /**
     * The second chance: see {@link PeriodicCheck}. The file is judged only when the loop is at rest (this wake-up asks
     * for no pass and no timer is owed); a difference too recent to judge is checked again shortly.
     */
    private void periodicCheck(PassRequest request, long now)
    {
        boolean atRest = !request.wanted() && timers.nextDueNanos().isEmpty();
        PeriodicCheck.Outcome outcome = check.run(belief, atRest, checkAtOnce);
        checkAtOnce = false;
        if (outcome.repair()) {
            request.rescan();
            scanner.changedEverything();
        }
        nextCheckNanos = outcome.unsure() ? now + PeriodicCheck.SETTLE.toNanos()
                : checkEveryNanos > 0 ? now + checkEveryNanos : Long.MAX_VALUE;
    }

    /** Every event, whatever it asks of the pass, tells the scanner what to look at again. */
    private void noteChange(DirectoryEvent event)
    {
        if (event.directory().equals(plan.confDir())) {
            scanner.changed(event.name());
        }
        else {
            scanner.changedFile(engine.host().toHost(event.directory().resolve(event.name())));
        }
    }

    /** Ends the loop; called from the signal handler's thread. The pass under way finishes first. */
    void stop()
    {
        stopping = true;
        intake.close();
    }

    private void reconcile(PassRequest request)
    {
        status.busy(true);
        try {
            ReconcilePass.Report report = pass.run(request);
            patcher.scheduleFightWakes(clock.nanoTime());
            // Binaries or kubeconfig that could not be written are tried again by a timer: what blocks them (a full or
            // read-only filesystem) may clear without any event.
            if (pass.prerequisitesPending()) {
                writeRetries.failed(engine.config().paths().binDir(), "our binaries and kubeconfig", clock.nanoTime());
            }
            else {
                writeRetries.succeeded(engine.config().paths().binDir());
            }
            metrics.reconcile(report.result());
            if (report.result() == ReconcileResult.ECHO) {
                belief = PeriodicCheck.Belief.of(report, belief.ready());
                return;
            }
            if (report.notReady().isEmpty() && intake.unwatchable().isEmpty()) {
                metrics.success(System.currentTimeMillis());
            }
            if (report.selection().isPresent()) {
                plan = planner.plan(report.selection().get(), report.snapshot());
                Set<Path> armed = intake.watch(watched());
                scheduleWatchRetry(clock.nanoTime());
                if (!armed.isEmpty()) {
                    log.info("Watching {} as well", armed);
                    // Watch, then look: what changed there between this pass's look and the watch sent no event, and
                    // only a look at everything sees it (the next pass's look follows events otherwise).
                    rescanOwed = true;
                    timers.schedule(clock.nanoTime(), Timers.Kind.NEW_WATCHES, Optional.empty());
                }
            }
            List<String> notReady = withUnwatched(report.notReady());
            status.publish(notReady);
            belief = PeriodicCheck.Belief.of(report, notReady.isEmpty());
        }
        catch (ClosedWatchServiceException e) {
            // stop() closed the service while this pass was arming watches: the loop ends, nothing failed.
            throw e;
        }
        catch (RuntimeException e) {
            // One bad pass must not end the loop: say what happened and wait for the next change.
            log.error("Reconcile failed: {}", e.toString(), e);
            metrics.reconcile(ReconcileResult.FAILED);
            status.publish(List.of("the last reconcile failed: " + e.getMessage()));
        }
        finally {
            status.busy(false);
        }
    }
}
