package io.cnichain.agent.loop;

import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.discovery.NodeScanner;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.engine.FileOutcome;
import io.cnichain.core.engine.InstallReport;
import io.cnichain.core.engine.Installer;
import io.cnichain.core.engine.Prerequisites;
import io.cnichain.core.fs.linux.FileSystemCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * One reconcile pass: a fresh look at the node and the adapter's decision, then the engine's install sequence
 * ({@link Installer#install}), each file through the {@link TargetPatcher}. A request whose files are all our own echo
 * ends before any of that. Keeps what must outlive a pass: whether binaries or kubeconfig still need a look, and what
 * was already said (the adapter in use, its notes, a failure, "no primary yet"), so it is said once.
 */
final class ReconcilePass
{
    private static final Logger log = LoggerFactory.getLogger(ReconcilePass.class);

    private final Engine engine;
    private final NodeScanner scanner;
    private final Installer installer;
    private final EchoFilter echoes;
    private final TargetPatcher patcher;

    /** Our kubeconfig and binaries to compare at the next pass: everything at first, then what events named or a failed write left. */
    private Prerequisites compare = Prerequisites.ALL;
    private boolean prerequisitesPending;
    private Set<String> lastFailures = Set.of();
    private boolean saidNoPrimary;
    private String lastAdapter = "";
    private Set<String> lastNotes = Set.of();
    /** Whether the conf dir's links lead elsewhere now, asked with the walk remembered: made at the first pass. */
    private Supplier<Optional<String>> confDirMoved;

    ReconcilePass(Engine engine, NodeScanner scanner, EchoFilter echoes, TargetPatcher patcher)
    {
        this.engine = requireNonNull(engine, "engine is null");
        this.scanner = requireNonNull(scanner, "scanner is null");
        this.installer = engine.installer();
        this.echoes = requireNonNull(echoes, "echoes is null");
        this.patcher = requireNonNull(patcher, "patcher is null");
    }

    /**
     * @return how it ended, why the agent is not ready (empty when it is), and the decision it acted on
     */
    Report run(PassRequest request)
    {
        compare = compare.or(new Prerequisites(request.kubeconfig() || request.rescanRequested(), request.binaries() || request.rescanRequested()));
        // One look at the node per pass, made from what changed since the last one.
        NodeSnapshot snapshot = scanner.snapshot();
        if (!request.configFiles().isEmpty() && !echoes.anyRealChange(request.configFiles(), snapshot, request.wokeNanos())
                && request.onlyConfigFiles() && !compare.any()) {
            return new Report(ReconcileResult.ECHO, List.of(), Optional.empty(), snapshot);
        }
        Selection selection = engine.select(snapshot);
        announce(selection, snapshot);
        for (Path file : request.stableChecks()) {
            patcher.checkStable(file);
        }
        List<TargetPatcher.NotPatched> notPatched = new ArrayList<>();
        InstallReport installed = installer.install(snapshot, selection, compare, target -> {
            Optional<TargetPatcher.NotPatched> problem = patcher.patch(target, selection, snapshot, request.firstFileEventNanos());
            problem.ifPresent(notPatched::add);
            return new FileOutcome(target.path(), problem.map(TargetPatcher.NotPatched::outcome).orElse(FileOutcome.Result.PATCHED),
                    problem.map(TargetPatcher.NotPatched::reason).orElse(""), List.of());
        });
        compare = installed.owed();
        prerequisitesPending = !selection.targets().isEmpty() && compare.any();
        // Each failure said once, when it appears; readiness says it as long as it lasts.
        Set<String> said = lastFailures;
        lastFailures = new LinkedHashSet<>(installed.failures());
        installed.failures().stream().filter(failure -> !said.contains(failure) && !lastNotes.contains(failure)).forEach(failure -> log.error("{}", failure));
        // The adapter failing, or the runtime's file being one we may not write, makes the node not ready; the files
        // that can be patched still are.
        List<String> notReady = new ArrayList<>(installed.failures());
        if (confDirMoved == null) {
            // Asked on every pass that decides: a fresh walk made and took apart a path per name, interpreted, on the reaction's path.
            confDirMoved = engine.config().paths().confDirMovedAgain(FileSystemCalls.get());
        }
        Optional<String> moved = confDirMoved.get();
        if (moved.isPresent()) {
            if (!lastNotes.contains(moved.get())) {
                log.error("{}", moved.get());
            }
            notReady.add(moved.get());
        }
        if (selection.targets().isEmpty()) {
            if (!notReady.isEmpty()) {
                return report(ReconcileResult.FAILED, notReady, selection, snapshot);
            }
            if (!saidNoPrimary) {
                log.info("No active CNI configuration files found in {}; waiting for the primary network plugin to write one (nothing is created until then)",
                        engine.config().paths().confDir());
                saidNoPrimary = true;
            }
            List<String> reasons = new ArrayList<>();
            if (engine.hostRootProblem().isPresent()) {
                reasons.add(engine.hostRootProblem().get());
            }
            reasons.add("no primary CNI configuration in " + engine.config().paths().confDir() + " yet");
            return report(ReconcileResult.NOTHING, reasons, selection, snapshot);
        }
        saidNoPrimary = false;
        ReconcileResult result = notReady.isEmpty() ? ReconcileResult.OK : ReconcileResult.FAILED;
        for (TargetPatcher.NotPatched problem : notPatched) {
            notReady.add(problem.reason());
            result = worse(result, problem.result());
        }
        return report(result, notReady, selection, snapshot);
    }

    /** @return whether our binaries or kubeconfig still have to be written (the last try failed) while a primary exists */
    boolean prerequisitesPending()
    {
        return prerequisitesPending;
    }

    /** What fails the pass whatever is patched: the adapter's failure, and a runtime's file we may not write. */
    private static List<String> problems(Selection selection)
    {
        List<String> problems = new ArrayList<>();
        if (selection.failure().isPresent()) {
            problems.add(selection.failure().get());
        }
        if (selection.unpatchable().isPresent()) {
            problems.add(selection.unpatchable().get());
        }
        return problems;
    }

    private void announce(Selection selection, NodeSnapshot snapshot)
    {
        if (lastAdapter.isEmpty()) {
            log.info("Placing the entry by {}: {}", installer.placement().placement().yaml(), installer.placement().why());
        }
        if (!selection.chosen().name().equals(lastAdapter)) {
            log.info("Using adapter {} ({})", selection.chosen().name(), selection.why());
            lastAdapter = selection.chosen().name();
        }
        Set<String> notes = new LinkedHashSet<>(selection.notes());
        notes.addAll(selection.warnings());
        notes.addAll(snapshot.brokenBeforeEffective());
        Set<String> problems = new LinkedHashSet<>(problems(selection));
        // Each said once, when it appears, not on every pass.
        for (String problem : problems) {
            if (!lastNotes.contains(problem)) {
                log.error("{}", problem);
            }
        }
        for (String note : notes) {
            if (!lastNotes.contains(note)) {
                log.warn("{}", note);
            }
        }
        notes.addAll(problems);
        lastNotes = notes;
    }

    private static ReconcileResult worse(ReconcileResult a, ReconcileResult b)
    {
        return a == ReconcileResult.FAILED || b == ReconcileResult.FAILED ? ReconcileResult.FAILED : ReconcileResult.WAITING;
    }

    private static Report report(ReconcileResult result, List<String> notReady, Selection selection, NodeSnapshot snapshot)
    {
        return new Report(result, notReady, Optional.of(selection), snapshot);
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
