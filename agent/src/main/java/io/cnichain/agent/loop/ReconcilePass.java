package io.cnichain.agent.loop;

import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.discovery.NodeScanner;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.engine.FileOutcome;
import io.cnichain.core.engine.InstallReport;
import io.cnichain.core.engine.Installer;
import io.cnichain.core.engine.Prerequisites;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * One reconcile pass: a fresh look at the node and the adapter's decision, then the engine's install sequence
 * ({@link Installer#install}), each file through {@link WrittenFiles#patch}. A request whose files are all our own
 * echo ends before any of that. Keeps what must outlive a pass: which of binaries and kubeconfig still need a look,
 * and what was already said (the adapter in use, its notes, a failure, "no primary yet"), so it is said once.
 */
final class ReconcilePass
{
    private static final Logger log = LoggerFactory.getLogger(ReconcilePass.class);

    private final Engine engine;
    private final NodeScanner scanner;
    private final EchoFilter echoes;
    private final WrittenFiles files;
    private final GroundCheck ground;

    /** Our kubeconfig and binaries to compare at the next pass: everything at first, then what events named or a failed write left. */
    private Prerequisites compare = Prerequisites.ALL;
    private boolean saidNoPrimary;
    private String lastAdapter = "";
    private Set<String> said = Set.of();

    ReconcilePass(Engine engine, NodeScanner scanner, EchoFilter echoes, WrittenFiles files, GroundCheck ground)
    {
        this.engine = requireNonNull(engine, "engine is null");
        this.scanner = requireNonNull(scanner, "scanner is null");
        this.echoes = requireNonNull(echoes, "echoes is null");
        this.files = requireNonNull(files, "files is null");
        this.ground = requireNonNull(ground, "ground is null");
    }

    /**
     * @return how it ended, why the agent is not ready (empty when it is), and the decision it acted on
     */
    Report run(PassRequest request)
    {
        compare = compare.or(request.prerequisites());
        // One look at the node per pass, made from what changed since the last one.
        NodeSnapshot snapshot = scanner.snapshot();
        boolean realChange = request.configFiles().isEmpty() || echoes.anyRealChange(request.configFiles(), snapshot, request.wokeNanos());
        if (!realChange && request.onlyConfigFiles() && !compare.any()) {
            return new Report(ReconcileResult.ECHO, List.of(), Optional.empty(), snapshot);
        }
        Selection selection = engine.select(snapshot);
        InstallReport installed = engine.installer().install(snapshot, selection, compare,
                target -> files.patch(target, selection, snapshot, request.firstFileEventNanos()));
        compare = installed.owed();
        files.prerequisites(!selection.targets().isEmpty() && compare.any(), request.wokeNanos());
        // The adapter failing, the runtime's file being one we may not write, the conf dir leading elsewhere make the node
        // not ready; the files that can be patched still are.
        List<String> notReady = new ArrayList<>(installed.failures());
        ground.confDirMoved().ifPresent(notReady::add);
        announce(selection, snapshot, notReady, installed.waiting());
        ReconcileResult result = !notReady.isEmpty() ? ReconcileResult.FAILED : installed.waiting().isEmpty() ? ReconcileResult.OK : ReconcileResult.WAITING;
        notReady.addAll(installed.waiting());
        for (FileOutcome outcome : installed.outcomes()) {
            if (outcome.failed() || outcome.result() == FileOutcome.Result.WAITING) {
                notReady.add(outcome.detail());
                result = result == ReconcileResult.FAILED || outcome.failed() ? ReconcileResult.FAILED : ReconcileResult.WAITING;
            }
        }
        if (!selection.targets().isEmpty() || !notReady.isEmpty()) {
            saidNoPrimary = false;
            return new Report(result, notReady, Optional.of(selection), snapshot);
        }
        if (!saidNoPrimary) {
            log.info("No active CNI configuration files found in {}; waiting for the primary network plugin to write one (nothing is created until then)",
                    engine.config().paths().confDir());
            saidNoPrimary = true;
        }
        List<String> reasons = new ArrayList<>();
        engine.hostRootProblem().ifPresent(reasons::add);
        reasons.add("no primary CNI configuration in " + engine.config().paths().confDir() + " yet");
        return new Report(ReconcileResult.NOTHING, reasons, Optional.of(selection), snapshot);
    }

    /**
     * Says the adapter when it changes, and each note and each failure once, when it appears, not on every pass (a file
     * not patched is said by the installer as it happens).
     */
    private void announce(Selection selection, NodeSnapshot snapshot, List<String> failures, List<String> waiting)
    {
        if (lastAdapter.isEmpty()) {
            log.info("Placing the entry by {}: {}", engine.installer().placement().placement().yaml(), engine.installer().placement().why());
        }
        if (!selection.chosen().name().equals(lastAdapter)) {
            log.info("Using adapter {} ({})", selection.chosen().name(), selection.why());
            lastAdapter = selection.chosen().name();
        }
        Set<String> now = new LinkedHashSet<>();
        selection.notes().forEach(note -> warnOnce(note, now));
        selection.warnings().forEach(warning -> warnOnce(warning, now));
        snapshot.brokenBeforeEffective().forEach(broken -> warnOnce(broken, now));
        for (String failure : failures) {
            if (now.add(failure) && !said.contains(failure)) {
                log.error("{}", failure);
            }
        }
        for (String wait : waiting) {
            if (now.add(wait) && !said.contains(wait)) {
                log.info("Not patching yet: {}", wait);
            }
        }
        said = now;
    }

    private void warnOnce(String note, Set<String> now)
    {
        if (now.add(note) && !said.contains(note)) {
            log.warn("{}", note);
        }
    }

    /**
     * How a pass ended.
     *
     * @param result    the result
     * @param notReady  why the agent is not ready, one line each; empty when it is
     * @param selection the adapter's decision the pass acted on (none for an echo: no decision was made)
     * @param snapshot  the look at the node the pass decided from (what to watch follows from it too)
     */
    record Report(ReconcileResult result, List<String> notReady, Optional<Selection> selection, NodeSnapshot snapshot)
    {
        Report
        {
            requireNonNull(result, "result is null");
            notReady = List.copyOf(notReady);
            requireNonNull(selection, "selection is null");
            requireNonNull(snapshot, "snapshot is null");
        }
    }
}
