package io.cnichain.agent.loop;

import io.cnichain.core.config.NodePaths;
import io.cnichain.core.discovery.CniConfigParser.LoadedConfig;
import io.cnichain.core.discovery.NodeScanner;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.host.HostPaths;
import io.cnichain.spi.ConfigEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

import static java.util.Objects.requireNonNull;

/**
 * The loop's second chance, as a controller's resync: every {@code periodicCheckSeconds}, without any event, it checks
 * that every directory the agent wants is watched (and watched where it is now, not where it was), and that the
 * runtime's file is what the last pass left: the same file, still carrying our entry when the agent said ready. A
 * difference is an event the agent never got: said in a warning naming it, counted in
 * {@code cnichain_missed_events_total}, and repaired by a pass that looks at everything.
 *
 * <p>A change younger than {@link #SETTLE_MILLIS} is not yet a miss: its event may be on its way. The check is then
 * made again that much later.
 */
final class PeriodicCheck
{
    private static final Logger log = LoggerFactory.getLogger(PeriodicCheck.class);

    /** How long an event may take to reach the loop before its absence counts: far more than inotify ever needs. */
    static final long SETTLE_MILLIS = 1000;

    private final HostPaths host;
    private final Path confDir;
    private final String pluginType;
    private final NodeScanner scanner;
    private final EventIntake intake;
    private final AgentMetrics metrics;
    private final NodePaths paths;

    PeriodicCheck(HostPaths host, NodePaths paths, String pluginType, NodeScanner scanner, EventIntake intake, AgentMetrics metrics)
    {
        this.host = requireNonNull(host, "host is null");
        this.paths = requireNonNull(paths, "paths is null");
        this.confDir = paths.confDir();
        this.pluginType = requireNonNull(pluginType, "pluginType is null");
        this.scanner = requireNonNull(scanner, "scanner is null");
        this.intake = requireNonNull(intake, "intake is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
    }

    /**
     * What the last pass left: the runtime's file as it saw it, and whether the agent said ready.
     *
     * @param effective the runtime's file (host path), if any
     * @param ready     whether the pass left the agent ready
     */
    record Belief(Optional<Path> effective, boolean ready)
    {
        Belief
        {
            requireNonNull(effective, "effective is null");
        }

        static Belief of(ReconcilePass.Report report, boolean ready)
        {
            Optional<ConfigEntry> entry = report.snapshot().effectiveConfig();
            return new Belief(entry.isPresent() ? Optional.of(entry.get().path()) : Optional.<Path>empty(), ready);
        }
    }

    /**
     * How a check ended.
     *
     * @param repair  whether a pass must look at everything now (watches were repaired, or the file was missed)
     * @param unsure  whether a difference was too recent to judge: check again after {@link #SETTLE_MILLIS}
     */
    record Outcome(boolean repair, boolean unsure) {}

    /**
     * @param belief   what the last pass left
     * @param atRest   whether the loop owes no pass (no timer, nothing queued): only then is the file judged
     * @return what the loop must do
     */
    Outcome run(Belief belief, boolean atRest)
    {
        metrics.periodicCheck();
        long settledBefore = System.currentTimeMillis() - SETTLE_MILLIS;
        Predicate<Path> settled = path -> changedBefore(path, settledBefore);
        WatchVerification watches = intake.verifyWatches(settled);
        boolean repair = false;
        boolean unsure = watches.unsettled();
        for (WatchVerification.Repair fixed : watches.repairs()) {
            repair = true;
            metrics.missedEvent("watch");
            log.warn("Periodic check: {} {}; no event told. Watching it again and looking at everything", fixed.directory(), fixed.why());
        }
        // The conf dir's own links moved: nothing the agent watches tells, and only a pass says it is not ready any more.
        Optional<String> moved = paths.confDirMoved();
        if (moved.isPresent() && belief.ready()) {
            metrics.missedEvent("watch");
            log.warn("Periodic check: {}; no event told", moved.get());
            repair = true;
        }
        if (!atRest) {
            // The loop is at work (a retry, a back-off, a pass under way): it looks again by itself; so does the next check.
            return new Outcome(repair, unsure);
        }
        Optional<Difference> difference = fileDifference(belief);
        if (difference.isPresent()) {
            if (allSettled(difference.get().changed(), settled)) {
                metrics.missedEvent("file");
                log.warn("Periodic check: the runtime's file {}; no event told. Looking at everything", difference.get().what());
                repair = true;
            }
            else {
                unsure = true;
            }
        }
        return new Outcome(repair, unsure);
    }

    /**
     * How the runtime's file differs from what the last pass left.
     *
     * @param what    said after "the runtime's file"
     * @param changed where the change happened (as the agent sees them): it is a miss once all of them are settled
     */
    private record Difference(String what, List<Path> changed) {}

    private Optional<Difference> fileDifference(Belief belief)
    {
        // A look at everything, as after an overflow; the scanner keeps what it found, so the next pass starts from it.
        scanner.changedEverything();
        NodeSnapshot fresh = scanner.snapshot();
        Optional<ConfigEntry> effective = fresh.effectiveConfig();
        Optional<Path> now = effective.isPresent() ? Optional.of(effective.get().path()) : Optional.<Path>empty();
        if (!now.equals(belief.effective())) {
            List<Path> changed = new ArrayList<>();
            changed.add(host.toContainer(confDir));
            for (Optional<Path> file : List.of(now, belief.effective())) {
                if (file.isPresent()) {
                    changed.add(host.toContainer(file.get()));
                }
            }
            return Optional.of(new Difference("is now " + now.map(Path::toString).orElse("none") + " (the last pass saw "
                    + belief.effective().map(Path::toString).orElse("none") + ")", changed));
        }
        if (belief.ready() && effective.isPresent()) {
            Optional<LoadedConfig> config = fresh.load(effective.get()).config();
            if (config.isPresent() && !fresh.runtimePluginTypes(effective.get()).contains(pluginType)) {
                return Optional.of(new Difference(effective.get().path() + " lacks our entry", List.of(host.toContainer(effective.get().path()))));
            }
        }
        return Optional.empty();
    }

    private static boolean allSettled(List<Path> paths, Predicate<Path> settled)
    {
        for (Path path : paths) {
            if (!settled.test(path)) {
                return false;
            }
        }
        return true;
    }

    /**
     * @return whether the path (as the agent sees it; the file behind a link) last changed before then; for a path
     *         that is gone, whether its directory did
     */
    private static boolean changedBefore(Path path, long epochMillis)
    {
        if (!Files.exists(path) && path.getParent() != null) {
            return changedBefore(path.getParent(), epochMillis);
        }
        try {
            FileTime modified = Files.getLastModifiedTime(path);
            Object changed = Files.getAttribute(path, "unix:ctime");
            long latest = Math.max(modified.toMillis(), changed instanceof FileTime time ? time.toMillis() : 0);
            return latest < epochMillis;
        }
        catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            // Gone or unreadable: it changed, and when cannot be told; the next check decides.
            return false;
        }
    }
}
