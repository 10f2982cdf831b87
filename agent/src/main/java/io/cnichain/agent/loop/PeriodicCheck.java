package io.cnichain.agent.loop;

import io.cnichain.core.discovery.CniConfigParser.LoadedConfig;
import io.cnichain.core.discovery.NodeScanner;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.spi.ConfigEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The loop's second chance, as a controller's resync: every {@code periodicCheckSeconds}, without any event, it checks
 * that every directory the agent wants is watched (and watched where it is now, not where it was), and that the
 * runtime's file is what the last pass left: the same file, still carrying our entry when the agent said ready. A
 * difference is an event the agent never got: said in a warning naming it, counted in
 * {@code cnichain_missed_events_total}, and repaired by a pass that looks at everything.
 *
 * <p>A difference seen once may have its event on its way: it is looked at again {@link #SETTLE} later, and counts as
 * missed when that look finds the same difference. After a change that no event ever tells (a mount, seen by the
 * {@link GroundCheck}), the check acts at once.
 */
final class PeriodicCheck
{
    private static final Logger log = LoggerFactory.getLogger(PeriodicCheck.class);

    /** How long an event may take to reach the loop before its absence counts: far more than inotify ever needs. */
    static final Duration SETTLE = Duration.ofSeconds(1);

    private final String pluginType;
    private final NodeScanner scanner;
    private final DirectoryWatches watches;
    private final AgentMetrics metrics;
    /** The directories whose watch differed at the last check, left for this one. */
    private Set<Path> watchesDiffering = Set.of();
    /** How the runtime's file differed at the last check that judged it, left for the next. */
    private Optional<String> fileDiffering = Optional.empty();

    PeriodicCheck(String pluginType, NodeScanner scanner, DirectoryWatches watches, AgentMetrics metrics)
    {
        this.pluginType = requireNonNull(pluginType, "pluginType is null");
        this.scanner = requireNonNull(scanner, "scanner is null");
        this.watches = requireNonNull(watches, "watches is null");
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
            return new Belief(report.snapshot().effectiveConfig().map(ConfigEntry::path), ready);
        }
    }

    /**
     * How a check ended.
     *
     * @param repair whether a pass must look at everything now (watches were repaired, or the file was missed)
     * @param unsure whether a difference was left for a look {@link #SETTLE} later
     */
    record Outcome(boolean repair, boolean unsure) {}

    /**
     * @param belief what the last pass left
     * @param atRest whether the loop owes no pass (no timer, nothing queued): only then is the file judged
     * @param now    whether to act on a difference at once, its event being one that never comes
     * @return what the loop must do
     */
    Outcome run(Belief belief, boolean atRest, boolean now)
    {
        metrics.periodicCheck();
        Set<Path> seenBefore = watchesDiffering;
        DirectoryWatches.Verification watches = this.watches.verify(directory -> now || seenBefore.contains(directory));
        watchesDiffering = watches.unsettled();
        boolean repair = false;
        for (DirectoryWatches.Repair fixed : watches.repairs()) {
            repair = true;
            metrics.missedEvent("watch");
            log.warn("Periodic check: {} {}; no event told. Watching it again and looking at everything", fixed.directory(), fixed.why());
        }
        if (!atRest) {
            // The loop is at work (a retry, a back-off, a pass under way): it looks again by itself; so does the next check.
            return new Outcome(repair, !watchesDiffering.isEmpty());
        }
        Optional<String> before = fileDiffering;
        fileDiffering = fileDifference(belief);
        if (fileDiffering.isPresent() && (now || fileDiffering.equals(before))) {
            metrics.missedEvent("file");
            log.warn("Periodic check: the runtime's file {}; no event told. Looking at everything", fileDiffering.get());
            fileDiffering = Optional.empty();
            repair = true;
        }
        return new Outcome(repair, !watchesDiffering.isEmpty() || fileDiffering.isPresent());
    }

    /** @return how the runtime's file differs from what the last pass left, said after "the runtime's file" */
    private Optional<String> fileDifference(Belief belief)
    {
        // A look at everything, as after an overflow; the scanner keeps what it found, so the next pass starts from it.
        scanner.changedEverything();
        NodeSnapshot fresh = scanner.snapshot();
        Optional<ConfigEntry> effective = fresh.effectiveConfig();
        Optional<Path> now = effective.map(ConfigEntry::path);
        if (!now.equals(belief.effective())) {
            return Optional.of("is now " + now.map(Path::toString).orElse("none") + " (the last pass saw " + belief.effective().map(Path::toString).orElse("none")
                    + ")");
        }
        if (belief.ready() && effective.isPresent()) {
            Optional<LoadedConfig> config = fresh.load(effective.get()).config();
            if (config.isPresent() && !fresh.runtimePluginTypes(effective.get()).contains(pluginType)) {
                return Optional.of(effective.get().path() + " lacks our entry");
            }
        }
        return Optional.empty();
    }
}
