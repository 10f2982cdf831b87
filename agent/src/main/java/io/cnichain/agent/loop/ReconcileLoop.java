package io.cnichain.agent.loop;

import io.cnichain.agent.time.Backoff;
import io.cnichain.agent.time.Clock;
import io.cnichain.core.config.Placement;
import io.cnichain.core.discovery.NodeScanner;
import io.cnichain.core.engine.Engine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The agent's one reconcile thread: install everything, then wait for a change or a deadline, take every event already
 * queued and reconcile once for the batch, so that a burst is coalesced without delaying the first reaction.
 */
final class ReconcileLoop
{
    private static final Logger log = LoggerFactory.getLogger(ReconcileLoop.class);
    /**
     * Watches that could not be armed (the inotify limit) are tried again, and everything looked at, on this back-off;
     * a pass that threw is run again on it too, since no event may come to wake one.
     */
    private static final Backoff.Policy WATCH_RETRY = new Backoff.Policy(Duration.ofSeconds(1), Duration.ofSeconds(30), 0, 0, Duration.ZERO);

    private final Engine engine;
    private final Clock clock;
    private final AgentStatus status;
    private final AgentMetrics metrics;
    private final EventIntake intake;
    private final NodeScanner scanner;
    private final WrittenFiles files;
    private final ReconcilePass pass;
    private final GroundCheck ground;
    private final PeriodicCheck check;
    private final Optional<ConfigFileNotice> configNotice;
    /** When the loop must wake without an event, one time per job. */
    private final Map<Job, Long> deadlines = new EnumMap<>(Job.class);
    private final Backoff watchRetry = new Backoff(WATCH_RETRY, new SplittableRandom());
    private Duration watchRetryWait = WATCH_RETRY.first();
    private final Backoff failedPasses = new Backoff(WATCH_RETRY, new SplittableRandom());
    private PeriodicCheck.Belief belief = new PeriodicCheck.Belief(Optional.empty(), false, false);
    private boolean checkAtOnce;
    private WatchPlan plan;
    private volatile boolean stopping;

    ReconcileLoop(Engine engine, EventIntake.Opener watchService, AgentStatus status, AgentMetrics metrics, AgentPolicy policy, Clock clock)
    {
        this.engine = engine;
        this.clock = clock;
        this.status = status;
        this.metrics = metrics;
        this.intake = new EventIntake(watchService, metrics, clock);
        this.plan = WatchPlan.initial(engine);
        this.scanner = new NodeScanner(engine.config().layout());
        this.files = new WrittenFiles(engine, policy, metrics, clock);
        this.ground = new GroundCheck(engine.config().paths());
        this.pass = new ReconcilePass(engine, scanner, new EchoFilter(engine.host(), engine.config().paths().confDir(), files), files, ground);
        this.check = new PeriodicCheck(engine.config().plugin().type(), engine.installer().placement().placement() != Placement.DROP_IN, scanner,
                intake.watches(), metrics);
        this.configNotice = ConfigFileNotice.of(engine.config());
        configNotice.ifPresent(notice -> {
            status.addDetail(notice::describe);
            metrics.addGauge(ConfigFileNotice.METRIC_NAME, ConfigFileNotice.METRIC_HELP, notice::changedGauge);
        });
    }

    void run()
    {
        status.loopRunning(true);
        try {
            // Armed before the first look: anything written from now on produces an event we will see.
            intake.watches().want(watched());
            if (intake.watches().unwatchable().isEmpty()) {
                log.info("Watching {} (and {} for token rotation, {} for our binary)", engine.config().paths().confDir(), plan.serviceAccountDir(),
                        engine.config().paths().binDir());
            }
            long start = clock.nanoTime();
            deadlines.put(Job.LOOK, start + GroundCheck.EVERY.toNanos());
            scheduleCheck(start);
            status.wakeUpStarted();
            PassRequest request = new PassRequest(start);
            request.rescan();
            while (!stopping) {
                if (request.wanted()) {
                    reconcile(request);
                }
                status.wakeUpDone();
                request = nextRequest(request.wokeNanos());
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

    /** @param lastWokeNanos when the wake-up just done began: no decision of it was taken earlier */
    private PassRequest nextRequest(long lastWokeNanos)
            throws InterruptedException
    {
        // As of that wake-up, not of now: a back-off in force when it held our write back is over only once a wake-up
        // began after its end. Asked now, a back-off that ended since (the pass took that long) is no deadline, and the
        // write it held back waits for an event.
        set(Job.FILES, files.nextDue(lastWokeNanos));
        OptionalLong earliest = OptionalLong.empty();
        for (long deadline : deadlines.values()) {
            earliest = WrittenFile.earlier(earliest, deadline);
        }
        EventIntake.Batch batch = intake.next(earliest);
        status.wakeUpStarted();
        PassRequest request = new PassRequest(batch.wokeNanos());
        if (batch.rescan()) {
            rescan(request);
        }
        boolean configFileChanged = false;
        for (EventIntake.Event event : batch.events()) {
            noteChange(event);
            plan.classify(event, request);
            configFileChanged |= configNotice.isPresent() && event.directory().equals(configNotice.get().directory());
        }
        if (configFileChanged) {
            configNotice.get().check();
        }
        long now = clock.nanoTime();
        List<Job> due = new ArrayList<>();
        deadlines.entrySet().removeIf(job -> now - job.getValue() >= 0 && due.add(job.getKey()));
        for (Job job : due) {
            switch (job) {
                case FILES -> {
                    if (files.wake(now)) {
                        request.owed();
                    }
                }
                case LOOK -> look(request, now);
                case CHECK -> periodicCheck(request, now);
                case WATCHES -> retryWatches(request, now);
                case RESCAN -> rescan(request);
            }
        }
        return request;
    }

    private Set<Path> watched()
    {
        Set<Path> directories = new LinkedHashSet<>(plan.directories());
        configNotice.ifPresent(notice -> directories.add(notice.directory()));
        return directories;
    }

    private void rescan(PassRequest request)
    {
        request.rescan();
        scanner.changedEverything();
    }

    private void look(PassRequest request, long now)
    {
        Optional<String> changed = ground.look();
        if (changed.isPresent()) {
            log.warn("{}; looking at everything again", changed.get());
            rescan(request);
            checkAtOnce = true;
            deadlines.put(Job.CHECK, now);
        }
        deadlines.put(Job.LOOK, now + GroundCheck.EVERY.toNanos());
    }

    private void periodicCheck(PassRequest request, long now)
    {
        PeriodicCheck.Outcome outcome = check.run(belief, checkAtOnce);
        checkAtOnce = false;
        if (outcome.repair()) {
            rescan(request);
        }
        if (outcome.unsure()) {
            deadlines.put(Job.CHECK, now + PeriodicCheck.SETTLE.toNanos());
        }
        else {
            scheduleCheck(now);
        }
    }

    private void scheduleCheck(long now)
    {
        Duration every = engine.config().run().periodicCheck();
        set(Job.CHECK, every.isZero() ? OptionalLong.empty() : OptionalLong.of(now + every.toNanos()));
    }

    /** While a wanted directory cannot be watched, nothing tells of its changes: look again on a back-off, and try the watch. */
    private void scheduleWatchRetry(long now)
    {
        if (intake.watches().unwatchable().isEmpty()) {
            watchRetry.reset();
            deadlines.remove(Job.WATCHES);
        }
        else if (!deadlines.containsKey(Job.WATCHES)) {
            watchRetryWait = watchRetry.failed(now).orElseThrow();
            deadlines.put(Job.WATCHES, now + watchRetryWait.toNanos());
        }
    }

    private void retryWatches(PassRequest request, long now)
    {
        Set<Path> armed = intake.watches().retryUnwatchable();
        // Whether or not the watch is back, what changed meanwhile was not told: look at everything.
        rescan(request);
        if (intake.watches().unwatchable().isEmpty()) {
            log.info("Every watch is in place again ({}); rescanning", armed);
        }
        scheduleWatchRetry(now);
    }

    private void noteChange(EventIntake.Event event)
    {
        if (event.directory().equals(plan.confDir())) {
            scanner.changed(event.name());
        }
        else {
            scanner.changedFile(engine.host().toHost(event.directory().resolve(event.name())));
        }
    }

    /** Called from the signal handler's thread: the pass under way finishes first. */
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
            metrics.reconcile(report.result());
            if (report.result() == ReconcilePass.Result.ECHO) {
                belief = PeriodicCheck.Belief.of(report, belief.ready(), belief.failed());
                return;
            }
            plan = WatchPlan.of(engine, report.selection().orElseThrow(), report.snapshot());
            Set<Path> armed = intake.watches().want(watched());
            if (!armed.isEmpty()) {
                log.info("Watching {} as well", armed);
                // Watch, then look: what changed there between this pass's look and the watch sent no event.
                deadlines.put(Job.RESCAN, clock.nanoTime());
            }
            scheduleWatchRetry(clock.nanoTime());
            List<String> notReady = withUnwatched(report.notReady());
            if (notReady.isEmpty()) {
                metrics.success(System.currentTimeMillis());
            }
            status.publish(notReady);
            belief = PeriodicCheck.Belief.of(report, notReady.isEmpty(), report.result() == ReconcilePass.Result.FAILED);
            failedPasses.reset();
        }
        catch (ClosedWatchServiceException e) {
            // stop() closed the service while this pass was arming watches: the loop ends, nothing failed.
            throw e;
        }
        catch (RuntimeException e) {
            // One bad pass must not end the loop: say what happened and wait for the next change.
            log.error("Reconcile failed: {}", e.toString(), e);
            metrics.reconcile(ReconcilePass.Result.FAILED);
            status.publish(List.of("the last reconcile failed: " + e.getMessage()));
            belief = new PeriodicCheck.Belief(belief.effective(), false, true);
            long now = clock.nanoTime();
            deadlines.put(Job.RESCAN, now + failedPasses.failed(now).orElseThrow().toNanos());
        }
        finally {
            status.busy(false);
        }
    }

    private void set(Job job, OptionalLong nanos)
    {
        if (nanos.isPresent()) {
            deadlines.put(job, nanos.getAsLong());
        }
        else {
            deadlines.remove(job);
        }
    }

    private List<String> withUnwatched(List<String> notReady)
    {
        if (intake.watches().unwatchable().isEmpty()) {
            return notReady;
        }
        List<String> reasons = new ArrayList<>(notReady);
        intake.watches().unwatchable().forEach((directory, why) -> reasons.add("not watching " + engine.host().toHost(directory) + ": " + why
                + "; a change there would go unseen (looking again every " + watchRetryWait.toSeconds() + " s until the watch is back)"));
        return reasons;
    }

    /** Why the loop wakes without an event: a file wants it ({@link WrittenFiles}), or a look is due. */
    private enum Job
    {
        FILES,
        LOOK,
        CHECK,
        WATCHES,
        /** Directories were just armed: what changed in them before their watch sent no event. */
        RESCAN,
    }
}
