package io.cnichain.core.engine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.discovery.CniConfigParser;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.core.host.HostPaths;
import io.cnichain.core.install.BinaryInstaller;
import io.cnichain.core.install.KubeconfigWriter;
import io.cnichain.core.patch.ConfigFilePatcher;
import io.cnichain.core.placement.PlacementDecision;
import io.cnichain.spi.ConfigTarget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * Install: the plugin's kubeconfig first, then its binaries, then its entry in every file of the plan. No file is
 * patched while the binary or the kubeconfig is missing: a configuration naming a missing binary breaks every pod on
 * the node. The kubeconfig comes first because an agent taking over a node where its predecessor left everything in
 * place (an upgrade, a reboot) must replace a token that may have expired before anything else. The one-shot install and
 * every pass of the agent run the same sequence, {@link #install}.
 */
public final class Installer
{
    private static final Logger log = LoggerFactory.getLogger(Installer.class);

    private final AgentConfig config;
    private final HostPaths host;
    private final AtomicFileWriter writer;
    private final BinaryInstaller binaries;
    private final KubeconfigWriter kubeconfig;
    private final EntryPlacer placer;
    /** Directories already cleared of our stale temp files by this process. */
    private final Set<Path> swept = ConcurrentHashMap.newKeySet();

    Installer(AgentConfig config, AtomicFileWriter writer, BinaryInstaller binaries, KubeconfigWriter kubeconfig, EntryPlacer placer)
    {
        this.config = requireNonNull(config, "config is null");
        this.host = config.host();
        this.writer = requireNonNull(writer, "writer is null");
        this.binaries = requireNonNull(binaries, "binaries is null");
        this.kubeconfig = requireNonNull(kubeconfig, "kubeconfig is null");
        this.placer = requireNonNull(placer, "placer is null");
    }

    /** Where the entry goes on this node, and why. */
    public PlacementDecision placement()
    {
        return placer.decision();
    }

    EntryPlacer placer()
    {
        return placer;
    }

    /**
     * @return our drop-in's host path for a target (the file the agent watches for in its plugin directory), when the
     *         placement puts one there
     */
    public Optional<Path> dropInFile(ConfigTarget target, NodeSnapshot snapshot)
    {
        if (placer.decision().placement() != io.cnichain.core.config.Placement.DROP_IN) {
            return Optional.empty();
        }
        return snapshot.load(snapshot.inspect(target.path())).config().flatMap(parsed -> placer.dropInFile(target, parsed));
    }

    /** The entry to install, the kubeconfig's path substituted. */
    public ObjectNode entry()
    {
        return config.plugin().render(config.kubeconfigHostPath());
    }

    /**
     * The install sequence, run by the one-shot install and by every pass of the agent: the kubeconfig, then the
     * binaries, each when asked to compare it or when it is missing; no file patched while either is missing; then every
     * file of the decision, each by {@code step}; then, files patched or not, the record of the binaries copied. Says
     * nothing of what failed: the caller says it, once or every time.
     *
     * @param snapshot  the node
     * @param selection the adapter's decision
     * @param compare   the prerequisites to compare with what they should be even when present
     * @param step      how one file is patched (the agent's minds what it knows of the file first)
     * @return what happened
     */
    public InstallReport install(NodeSnapshot snapshot, Selection selection, Prerequisites compare, Function<ConfigTarget, FileOutcome> step)
    {
        sweepOnce(snapshot.layout().containerConfDir());
        // An adapter that failed, or an effective configuration we may not write, fails the pass, but the files that can
        // be patched still are: the runtime's file first of all.
        List<String> failures = problems(selection);
        // Not "no primary yet": the runtime may load a file there that we cannot see.
        snapshot.contentsUnknown().ifPresent(failures::add);
        if (selection.targets().isEmpty()) {
            return new InstallReport(selection, List.of(), List.of(), false, failures, compare, List.of());
        }
        Optional<String> clash = primaryRunsOurType(selection, snapshot);
        if (clash.isPresent()) {
            // Before anything is written: our binary would take the place of the primary's own.
            List<FileOutcome> refused = selection.targets().stream()
                    .map(target -> new FileOutcome(target.path(), FileOutcome.Result.FAILED, clash.get(), List.of())).toList();
            return new InstallReport(selection, refused, List.of(), false, List.of(clash.get()), compare, List.of());
        }
        boolean kubeconfigThere = !config.kubeconfig().enabled() || kubeconfig.exists();
        boolean kubeconfigOwed = config.kubeconfig().enabled() && (compare.kubeconfig() || !kubeconfigThere);
        boolean kubeconfigWritten = false;
        List<String> waiting = new ArrayList<>();
        if (kubeconfigOwed) {
            try {
                kubeconfigWritten = kubeconfig.ensure();
                kubeconfigOwed = false;
            }
            catch (CniChainException e) {
                (e.code() == ErrorCode.NOT_YET ? waiting : failures).add(e.getMessage());
            }
            kubeconfigThere = kubeconfig.exists();
        }
        boolean binaryThere = binaryInstalled();
        boolean binariesOwed = compare.binaries() || !binaryThere;
        List<Path> written = List.of();
        boolean binaryFailed = false;
        if (binariesOwed) {
            try {
                written = installBinaries();
                binariesOwed = false;
            }
            catch (CniChainException e) {
                // A kubeconfig that cannot be rendered holds the binaries back too: said once, above.
                if (!failures.contains(e.getMessage())) {
                    failures.add(e.getMessage());
                }
                binaryFailed = true;
            }
            binaryThere = binaryInstalled();
        }
        Optional<String> missing = missingPrerequisite(binaryThere, binaryFailed, kubeconfigThere || !waiting.isEmpty());
        missing.ifPresent(failures::add);
        List<FileOutcome> outcomes = new ArrayList<>();
        try {
            if (missing.isEmpty() && waiting.isEmpty()) {
                for (ConfigTarget target : selection.targets()) {
                    outcomes.add(step.apply(target));
                }
            }
        }
        finally {
            // After the patch, even when a step threw: the record's digests need not hold the first patch back, and
            // the next install takes what the record names for ours.
            try {
                binaries.recordCopies();
            }
            catch (CniChainException e) {
                failures.add(e.getMessage());
                binariesOwed = true;
            }
        }
        return new InstallReport(selection, outcomes, written, kubeconfigWritten, failures, new Prerequisites(kubeconfigOwed, binariesOwed), waiting);
    }

    /** @return why, when a file to patch already runs a plugin of our type of its own ({@link ConfigFilePatcher#primaryPluginOfOurType}) */
    private Optional<String> primaryRunsOurType(Selection selection, NodeSnapshot snapshot)
    {
        String type = config.plugin().type();
        Optional<String> ourName = Optional.ofNullable(config.plugin().template().get("name")).map(name -> name.asText());
        for (ConfigTarget target : selection.targets()) {
            // A file that does not parse is judged, and said, when it is patched.
            Optional<CniConfigParser.LoadedConfig> loaded = snapshot.load(snapshot.inspect(target.path())).config();
            Optional<String> why = loaded.flatMap(parsed -> ConfigFilePatcher.primaryPluginOfOurType(parsed, type, ourName));
            if (why.isPresent()) {
                return Optional.of(target.resolvedFile() + ": " + why.get());
            }
        }
        return Optional.empty();
    }

    /** @return what makes a pass fail even when every file it can patch is patched, one line each */
    static List<String> problems(Selection selection)
    {
        List<String> problems = new ArrayList<>();
        selection.failure().ifPresent(problems::add);
        selection.unpatchable().ifPresent(problems::add);
        return problems;
    }

    /**
     * @return the names of the binaries install copies (the source directory's files)
     */
    public List<String> binaryNames()
    {
        return binaries.sourceNames();
    }

    /**
     * @return the binaries written (none when they were in place already)
     * @throws CniChainException when they cannot be installed, or when the kubeconfig that must follow them cannot be
     *                           rendered (nothing is written then)
     */
    private List<Path> installBinaries()
    {
        // A kubeconfig that cannot be written (a bad token, no CA) stops install before anything is written; the
        // plugin's token on its way does not.
        if (config.kubeconfig().enabled()) {
            try {
                kubeconfig.render();
            }
            catch (CniChainException e) {
                if (e.code() != ErrorCode.NOT_YET) {
                    throw e;
                }
            }
        }
        return binaries.install(config.plugin().shortName());
    }

    private boolean binaryInstalled()
    {
        return Files.isRegularFile(host.toContainer(config.paths().binDir().resolve(config.plugin().type())));
    }

    /** @return why no configuration may name the plugin now, if so: its binary or its kubeconfig is missing */
    private Optional<String> missingPrerequisite(boolean binaryThere, boolean binaryFailed, boolean kubeconfigThere)
    {
        if (!binaryThere) {
            Path source = config.paths().sourceBinDir();
            String why = binaryFailed ? "for the failure above" : "source " + source + " " + (Files.isDirectory(source) ? "does not contain it" : "does not exist");
            return Optional.of(config.paths().binDir().resolve(config.plugin().type()) + ": the " + config.plugin().type() + " binary is not installed ("
                    + why + "); no configuration may name a missing binary");
        }
        if (!kubeconfigThere) {
            return Optional.of(kubeconfig.hostPath() + ": the plugin's kubeconfig is missing");
        }
        return Optional.empty();
    }

    /**
     * Removes the temp files a killed predecessor left in a directory, the first time this process writes there, and again
     * after a write there failed: a temp file of ours stays only when a process dies mid-write or its failed write could
     * not remove it, so a pass does not list a directory of thousands of entries on every event.
     */
    private void sweepOnce(Path directory)
    {
        if (swept.add(directory)) {
            writer.removeStaleTemps(directory);
        }
    }

    /**
     * Patches one file, as a step of {@link #install}.
     *
     * @param target    one of the selection's targets
     * @param selection the decision it came from (its adapter is asked whether a file it named is complete)
     * @param snapshot  the look at the node the decision was made from
     * @param putBack   why our entry is written again, when the caller knows it had been there (said in the log)
     * @return the outcome
     */
    public FileOutcome patch(ConfigTarget target, Selection selection, NodeSnapshot snapshot, Optional<String> putBack)
    {
        Path directory = host.toContainer(target.resolvedFile()).getParent();
        sweepOnce(directory);
        FileOutcome outcome = placer.place(target, entry(), selection, snapshot, putBack);
        switch (outcome.result()) {
            // Said by the caller ("Not patching"), once: the loop's passes come here again and again.
            // A write that failed may have left its temp file (a directory turned read-only under it): sweep again.
            case FAILED -> swept.remove(directory);
            case WAITING -> log.info("Waiting for {}: {}", target.path(), outcome.detail());
            default -> { }
        }
        return outcome;
    }
}
