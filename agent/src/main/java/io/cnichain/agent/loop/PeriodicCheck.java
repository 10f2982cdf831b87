package io.cnichain.agent.loop;

import io.cnichain.core.discovery.CniConfigParser;
import io.cnichain.core.discovery.LibcniGeneration;
import io.cnichain.core.discovery.NodeScanner;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.spi.ConfigEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * The loop's second chance, as a controller's resync: every {@code periodicCheckSeconds} it checks that every wanted
 * directory is watched where it is now, and that the runtime's file is what the last pass left. A difference is an
 * event the agent never got: warned of, counted, and repaired by a pass that looks at everything.
 *
 * <p>A difference seen once may have its event on its way: it counts as missed only when a look {@link #SETTLE} later
 * finds it again, or at once after a change no event ever tells (a mount, seen by the {@link GroundCheck}).
 */
final class PeriodicCheck
{
    private static final Logger log = LoggerFactory.getLogger(PeriodicCheck.class);

    /** How long an event may take to reach the loop before its absence counts: far more than inotify ever needs. */
    static final Duration SETTLE = Duration.ofSeconds(1);

    private final String pluginType;
    /** Whether what an older libcni loads carries our entry too: so with a patch, not with a drop-in (libcni 1.3's). */
    private final boolean everyGeneration;
    private final NodeScanner scanner;
    private final DirectoryWatches watches;
    private final AgentMetrics metrics;
    private Set<Path> watchesDiffering = Set.of();
    private Optional<String> fileDiffering = Optional.empty();

    PeriodicCheck(String pluginType, boolean everyGeneration, NodeScanner scanner, DirectoryWatches watches, AgentMetrics metrics)
    {
        this.pluginType = pluginType;
        this.everyGeneration = everyGeneration;
        this.scanner = scanner;
        this.watches = watches;
        this.metrics = metrics;
    }

    /**
     * What the last pass left: the runtime's file as it saw it, whether the agent said ready, and whether the pass
     * failed, which no event or timer tries again (an adapter disabled, a call that threw): the check does.
     */
    record Belief(Optional<Path> effective, boolean ready, boolean failed)
    {
        static Belief of(ReconcilePass.Report report, boolean ready, boolean failed)
        {
            return new Belief(report.snapshot().effectiveConfig().map(ConfigEntry::path), ready, failed);
        }
    }

    /**
     * @param repair whether a pass must look at everything now
     * @param unsure whether a difference was left for a look {@link #SETTLE} later
     */
    record Outcome(boolean repair, boolean unsure) {}

    /**
     * A pass the loop owes may repair a difference before the look {@link #SETTLE} later, which then finds none.
     *
     * @param now whether to act on a difference at once, its event being one that never comes
     */
    Outcome run(Belief belief, boolean now)
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
        if (belief.failed()) {
            log.debug("Periodic check: the last pass failed; reconciling again");
            repair = true;
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

    /** @return how the runtime's file differs, said after "the runtime's file" */
    private Optional<String> fileDifference(Belief belief)
    {
        // The scanner keeps what it found, so the next pass starts from it.
        scanner.changedEverything();
        NodeSnapshot fresh = scanner.snapshot();
        Optional<ConfigEntry> effective = fresh.effectiveConfig();
        Optional<Path> now = effective.map(ConfigEntry::path);
        if (!now.equals(belief.effective())) {
            return Optional.of("is now " + now.map(Path::toString).orElse("none") + " (the last pass saw " + belief.effective().map(Path::toString).orElse("none")
                    + ")");
        }
        if (belief.ready() && effective.isPresent()) {
            if (!fresh.runtimePluginTypes(effective.get()).contains(pluginType)) {
                return Optional.of(effective.get().path() + " lacks our entry");
            }
        }
        Optional<ConfigEntry> older = everyGeneration && belief.ready() ? fresh.effectiveConfig(LibcniGeneration.V1_1) : Optional.empty();
        if (older.isPresent() && !olderCarriesOurs(fresh, older.get())) {
            return Optional.of(older.get().path() + " (what " + LibcniGeneration.V1_1.description() + " loads) lacks our entry");
        }
        return Optional.empty();
    }

    private boolean olderCarriesOurs(NodeSnapshot fresh, ConfigEntry entry)
    {
        Optional<byte[]> bytes = fresh.load(entry).bytes();
        try {
            return bytes.isPresent() && CniConfigParser.parse(entry.name(), bytes.get(), LibcniGeneration.V1_1).summary().hasPluginType(pluginType);
        }
        catch (CniConfigParser.InvalidConfigException e) {
            return false;
        }
    }
}
