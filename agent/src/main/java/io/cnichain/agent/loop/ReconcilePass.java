package io.cnichain.agent.loop;

import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.discovery.NodeScanner;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.engine.FileOutcome;
import io.cnichain.core.engine.InstallReport;
import io.cnichain.core.engine.Prerequisites;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One reconcile pass: a fresh look at the node and the adapter's decision, then the engine's install sequence, each
 * file through {@link WrittenFiles#patch}. It keeps what was already said (the adapter, its notes, a failure, "no
 * primary yet") so that each is said once, not on every pass.
 */
final class ReconcilePass
{
    private static final Logger log = LoggerFactory.getLogger(ReconcilePass.class);

    private final Engine engine;
    private final NodeScanner scanner;
    private final EchoFilter echoes;
    private final WrittenFiles files;
    private final GroundCheck ground;

    /** Everything at first, then what events named or a failed write left. */
    private Prerequisites compare = Prerequisites.ALL;
    private boolean saidNoPrimary;
    private String lastAdapter = "";
    private Set<String> said = Set.of();

    ReconcilePass(Engine engine, NodeScanner scanner, EchoFilter echoes, WrittenFiles files, GroundCheck ground)
    {
        this.engine = engine;
        this.scanner = scanner;
        this.echoes = echoes;
        this.files = files;
        this.ground = ground;
    }

    Report run(PassRequest request)
    {
        compare = compare.or(request.prerequisites());
        NodeSnapshot snapshot = scanner.snapshot();
        boolean realChange = request.configFiles().isEmpty() || echoes.anyRealChange(request.configFiles(), snapshot, request.wokeNanos());
        if (!realChange && request.onlyConfigFiles() && !compare.any()) {
            return new Report(Result.ECHO, List.of(), Optional.empty(), snapshot);
        }
        Selection selection = engine.select(snapshot);
        InstallReport installed = engine.installer().install(snapshot, selection, compare,
                target -> files.patch(target, selection, snapshot, request.firstFileEventNanos()));
        compare = installed.owed();
        files.prerequisites(!selection.targets().isEmpty() && compare.any());
        // A failure makes the node not ready; the files that can be patched still are.
        List<String> notReady = new ArrayList<>(installed.failures());
        ground.confDirMoved().ifPresent(notReady::add);
        announce(selection, snapshot, notReady, installed);
        Result result = !notReady.isEmpty() ? Result.FAILED : installed.waiting().isEmpty() ? Result.OK : Result.WAITING;
        notReady.addAll(installed.waiting());
        for (FileOutcome outcome : installed.outcomes()) {
            if (outcome.failed() || outcome.result() == FileOutcome.Result.WAITING) {
                notReady.add(outcome.detail());
                result = result == Result.FAILED || outcome.failed() ? Result.FAILED : Result.WAITING;
            }
        }
        if (!selection.targets().isEmpty() && snapshot.effectiveConfig().isEmpty() && scanner.snapshot().effectiveConfig().isEmpty()) {
            // An adapter may name a file before the runtime loads it (OCI's target before its link): patched ahead, but
            // ready would lift the start-up fence while the runtime has no configuration, and its first one may lack us.
            // Asked again of the node as it is now: the pass's look may have caught the primary's file half-written.
            notReady.add("no CNI configuration in " + engine.config().paths().confDir() + " that the runtime loads yet (patched ahead of it: "
                    + selection.targets().stream().map(target -> target.path().toString()).collect(java.util.stream.Collectors.joining(", ")) + ")");
            result = result == Result.OK ? Result.WAITING : result;
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
        return new Report(Result.NOTHING, reasons, Optional.of(selection), snapshot);
    }

    private void announce(Selection selection, NodeSnapshot snapshot, List<String> failures, InstallReport installed)
    {
        if (lastAdapter.isEmpty()) {
            log.info("Placing the entry by {}: {}", engine.installer().placement().placement().yaml(), engine.installer().placement().why());
        }
        if (!selection.chosen().name().equals(lastAdapter)) {
            log.info("Using adapter {} ({})", selection.chosen().name(), selection.why());
            lastAdapter = selection.chosen().name();
        }
        Set<String> now = new LinkedHashSet<>();
        Consumer<String> warn = note -> log.warn("{}", note);
        selection.notes().forEach(note -> sayOnce(note, now, warn));
        selection.warnings().forEach(warning -> sayOnce(warning, now, warn));
        snapshot.brokenBeforeEffective().forEach(broken -> sayOnce(broken, now, warn));
        failures.forEach(failure -> sayOnce(failure, now, line -> log.error("{}", line)));
        installed.waiting().forEach(wait -> sayOnce(wait, now, line -> log.info("Not patching yet: {}", line)));
        installed.links().forEach(link -> sayOnce(link, now, line -> log.info("{}", line)));
        installed.notPatched().forEach(line -> sayOnce(line, now, warn));
        said = now;
    }

    private void sayOnce(String line, Set<String> now, Consumer<String> say)
    {
        if (now.add(line) && !said.contains(line)) {
            say.accept(line);
        }
    }

    /**
     * @param notReady  why the agent is not ready, one line each
     * @param selection the adapter's decision the pass acted on; none for an echo
     */
    record Report(Result result, List<String> notReady, Optional<Selection> selection, NodeSnapshot snapshot) {}

    /** The {@code result} label of {@code cnichain_reconciles_total}. */
    enum Result
    {
        /** Every authoritative file holds our entry; binaries and kubeconfig are in place. */
        OK,
        /** Every event was our own write coming back: no pass. */
        ECHO,
        /** No primary configuration yet: nothing patched, nothing created. */
        NOTHING,
        /** A file cannot be patched yet: it does not parse, or a fight holds it back. */
        WAITING,
        FAILED
    }
}
