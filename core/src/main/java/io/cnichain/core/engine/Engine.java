package io.cnichain.core.engine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.CniChainException;
import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.AdapterSelector;
import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.discovery.CniConfigParser;
import io.cnichain.core.discovery.NodeLayout;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.core.host.HostPaths;
import io.cnichain.core.install.BinaryInstaller;
import io.cnichain.core.install.KubeconfigWriter;
import io.cnichain.core.json.CniJson;
import io.cnichain.core.patch.ConfigFilePatcher;
import io.cnichain.core.patch.PatchPlan;
import io.cnichain.core.patch.Patcher;
import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.ParseResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The engine's three jobs on a node: install (binaries, kubeconfig, then our entry in every authoritative
 * configuration), uninstall (entries first, then kubeconfig, then binaries) and detect (the same decisions,
 * nothing written). One pass each; the agent's reconcile loop calls {@link #patch} for every change.
 */
public final class Engine
{
    private static final Logger log = LoggerFactory.getLogger(Engine.class);

    private final AgentConfig config;
    private final AdapterRegistry registry;
    private final AdapterSelector selector;
    private final NodeLayout layout;
    private final HostPaths host;
    private final AtomicFileWriter writer;
    private final BinaryInstaller binaries;
    private final KubeconfigWriter kubeconfig;
    private final ConfigFileUpdater updater;

    public Engine(AgentConfig config, AdapterRegistry registry)
    {
        this(config, registry, new AtomicFileWriter());
    }

    public Engine(AgentConfig config, AdapterRegistry registry, AtomicFileWriter writer)
    {
        this.config = requireNonNull(config, "config is null");
        this.registry = requireNonNull(registry, "registry is null");
        this.writer = requireNonNull(writer, "writer is null");
        registry.validateSettings(config.adapterSettings(), config.configFile());
        if (!config.adapter().isAuto()) {
            config.adapter().names().forEach(name -> registry.require(name, config.configFile().map(Path::toString).orElse("configuration") + ": adapter"));
        }
        this.selector = new AdapterSelector(registry, config.adapterSettings());
        this.layout = config.layout();
        this.host = config.host();
        this.binaries = new BinaryInstaller(host, config.sourceBinDir(), config.binDir(), writer);
        this.kubeconfig = new KubeconfigWriter(host, config.kubeconfig(), config.serviceAccountDir(), config.kubeconfigHostPath(), writer);
        this.updater = new ConfigFileUpdater(host, new BoundedFileReader(config.maxConfigBytes()), writer);
    }

    public AgentConfig config()
    {
        return config;
    }

    public AdapterRegistry registry()
    {
        return registry;
    }

    public NodeSnapshot snapshot()
    {
        return layout.snapshot();
    }

    /**
     * @param adapter an adapter
     * @return its settings from the configuration
     */
    public io.cnichain.spi.AdapterSettings adapterSettings(LoadedAdapter adapter)
    {
        return selector.settingsFor(adapter);
    }

    public Selection select(NodeSnapshot snapshot)
    {
        return selector.select(snapshot, config.adapter());
    }

    /** The entry to install, kubeconfig path substituted. */
    public ObjectNode entry()
    {
        return config.plugin().render(config.kubeconfigHostPath());
    }

    /**
     * One full pass: decide, install binaries and kubeconfig, patch.
     *
     * @return what happened
     */
    public InstallReport install()
    {
        NodeSnapshot snapshot = snapshot();
        writer.removeStaleTemps(layout.containerConfDir());
        Selection selection = select(snapshot);
        log.info("Using adapter {} ({})", selection.chosen().name(), selection.why());
        selection.notes().forEach(note -> log.warn("{}", note));
        warnings(selection, snapshot).forEach(warning -> log.warn("{}", warning));
        snapshot.brokenBeforeEffective().forEach(problem -> log.warn("{}", problem));
        if (selection.failure().isPresent()) {
            return new InstallReport(selection, List.of(), List.of(), false, selection.failure());
        }
        if (selection.targets().isEmpty()) {
            log.info("No active CNI configuration files found in {}; nothing to patch, nothing created", config.confDir());
            return new InstallReport(selection, List.of(), List.of(), false, Optional.empty());
        }
        List<Path> written;
        boolean kubeconfigWritten;
        try {
            written = installBinaries();
            kubeconfigWritten = ensureKubeconfig();
        }
        catch (CniChainException e) {
            log.error("Not patching any configuration: {}", e.getMessage());
            return new InstallReport(selection, List.of(), List.of(), false, Optional.of(e.getMessage()));
        }
        log.info("Using CNI config template from {}.", config.plugin().source());
        log.info("CNI config: {}", CniJson.compact(entry()));
        return new InstallReport(selection, patch(selection), written, kubeconfigWritten, Optional.empty());
    }

    /**
     * @return the names of the binaries install copies (the source directory's files)
     */
    public List<String> binaryNames()
    {
        return binaries.sourceNames();
    }

    /**
     * @return the binaries written
     */
    public List<Path> installBinaries()
    {
        return binaries.install(config.plugin().shortName());
    }

    /**
     * @return whether the kubeconfig was written
     */
    public boolean ensureKubeconfig()
    {
        return config.kubeconfig().enabled() && kubeconfig.ensure();
    }

    /**
     * Patches the files a selection names. Refuses every file when the plugin's binary or kubeconfig is
     * missing: a configuration naming a missing binary breaks every pod on the node.
     *
     * @param selection the adapter's decision
     * @return one outcome per file
     */
    public List<FileOutcome> patch(Selection selection)
    {
        Optional<String> missing = missingPrerequisite();
        List<FileOutcome> outcomes = new ArrayList<>();
        for (ConfigTarget target : selection.targets()) {
            if (missing.isPresent()) {
                outcomes.add(new FileOutcome(target.path(), FileOutcome.Result.FAILED, missing.get(), List.of()));
                continue;
            }
            outcomes.add(patch(target, selection.chosen().adapter()));
        }
        return outcomes;
    }

    /**
     * Patches one file. The caller has checked {@link #missingPrerequisite()}.
     *
     * @param target  the file
     * @param adapter the adapter that named it (asked whether the file is complete)
     * @return the outcome
     */
    public FileOutcome patch(ConfigTarget target, CniPlatformAdapter adapter)
    {
        writer.removeStaleTemps(host.toContainer(target.target()).getParent());
        FileOutcome outcome = updater.install(target, entry(), adapter);
        if (outcome.result() == FileOutcome.Result.FAILED) {
            log.warn("Not patching {}: {}", target.path(), outcome.detail());
        }
        else if (outcome.result() == FileOutcome.Result.WAITING) {
            log.info("Waiting for {}: {}", target.path(), outcome.detail());
        }
        return outcome;
    }

    /**
     * @return why no configuration may name the plugin now, if so
     */
    public Optional<String> missingPrerequisite()
    {
        Path binary = config.binDir().resolve(config.plugin().type());
        if (!Files.isRegularFile(host.toContainer(binary))) {
            return Optional.of(binary + ": the " + config.plugin().type() + " binary is not installed (source " + config.sourceBinDir()
                    + " " + (Files.isDirectory(config.sourceBinDir()) ? "does not contain it" : "does not exist")
                    + "); no configuration may name a missing binary");
        }
        if (config.kubeconfig().enabled() && !kubeconfig.exists()) {
            return Optional.of(kubeconfig.hostPath() + ": the plugin's kubeconfig is missing");
        }
        return Optional.empty();
    }

    /**
     * Removes our entry from every configuration we may have patched (links followed, every adapter's
     * authoritative files included), then the kubeconfig, then the binaries, but the last two only when no
     * configuration names the plugin any more. Continues past every failure and reports each.
     *
     * @return what happened
     */
    public UninstallReport uninstall()
    {
        String type = config.plugin().type();
        log.info("Removing {} artifacts.", type);
        writer.removeStaleTemps(layout.containerConfDir());
        List<FileOutcome> outcomes = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (Map.Entry<Path, Path> file : cleanupCandidates(snapshot()).entrySet()) {
            FileOutcome outcome = updater.uninstall(file.getValue(), file.getKey(), type);
            outcomes.add(outcome);
            if (outcome.failed()) {
                failures.add(outcome.detail());
                log.error("Failed to remove {} from {}: {}", type, file.getValue(), outcome.detail());
            }
            else if (outcome.result() == FileOutcome.Result.UNCHANGED && outcome.detail().contains("left untouched")) {
                log.warn("Skipping {}", outcome.detail());
            }
        }

        List<Path> stillNaming = filesNaming(snapshot(), type);
        boolean kubeconfigRemoved = false;
        List<Path> removedBinaries = List.of();
        if (!stillNaming.isEmpty() || !failures.isEmpty()) {
            // A configuration naming a missing binary breaks ADD and DEL for every pod on the node: while any
            // file may still name the plugin, its binary and kubeconfig stay.
            String failure = "keeping the kubeconfig and the " + type + " binary: "
                    + (stillNaming.isEmpty() ? "a configuration above could not be cleaned and may still name " + type
                    : stillNaming + " still name " + type);
            log.error("{}", failure);
            failures.add(failure);
        }
        else {
            try {
                if (kubeconfig.exists()) {
                    log.info("Removing {} kubeconfig: {}", type, kubeconfig.hostPath());
                    kubeconfigRemoved = kubeconfig.remove();
                }
            }
            catch (CniChainException e) {
                failures.add(e.getMessage());
                log.error("{}", e.getMessage());
            }
            try {
                removedBinaries = binaries.uninstall();
                removedBinaries.forEach(binary -> log.info("Removing {} binary: {}", type, binary));
            }
            catch (CniChainException e) {
                failures.add(e.getMessage());
                log.error("{}", e.getMessage());
            }
        }
        return new UninstallReport(outcomes, kubeconfigRemoved, removedBinaries, failures);
    }

    /**
     * Every file that may hold our entry, by resolved target (each once), with the path it is seen under:
     * every runtime-loadable entry of the conf dir and every file any adapter calls authoritative.
     */
    private Map<Path, Path> cleanupCandidates(NodeSnapshot snapshot)
    {
        Map<Path, Path> byTarget = new LinkedHashMap<>();
        for (ConfigEntry entry : snapshot.entries()) {
            if (entry.runtimeLoadable() && entry.target().isPresent()) {
                byTarget.putIfAbsent(entry.target().get(), entry.path());
            }
        }
        for (LoadedAdapter adapter : registry.all()) {
            try {
                for (ConfigTarget target : adapter.adapter().authoritativeConfigs(snapshot, selector.settingsFor(adapter))) {
                    byTarget.putIfAbsent(target.target(), target.path());
                }
            }
            catch (RuntimeException e) {
                log.warn("adapter {} could not list its files for cleanup: {}", adapter.name(), e.getMessage());
            }
        }
        return byTarget;
    }

    private List<Path> filesNaming(NodeSnapshot snapshot, String type)
    {
        Set<Path> naming = new LinkedHashSet<>();
        for (Map.Entry<Path, Path> file : cleanupCandidates(snapshot).entrySet()) {
            ConfigEntry entry = snapshot.inspect(file.getValue());
            if (names(snapshot.parse(entry), type)) {
                naming.add(file.getKey());
            }
        }
        // The runtime also loads what we may not write (a link out of the allowed roots): while such a file names
        // the plugin, its binary must stay, or ADD and DEL fail on that network.
        for (ConfigEntry entry : snapshot.entries()) {
            if (entry.runtimeLoadable() && entry.target().isEmpty() && names(snapshot.parse(entry), type)) {
                naming.add(entry.path());
            }
        }
        return List.copyOf(naming);
    }

    private static boolean names(ParseResult result, String type)
    {
        return result.config().map(c -> c.hasPluginType(type)).orElse(false);
    }

    /**
     * Decides as install would, writes nothing.
     *
     * @return the report
     */
    public DetectReport detect()
    {
        NodeSnapshot snapshot = snapshot();
        Selection selection = select(snapshot);
        List<DetectReport.AdapterScore> scores = selection.candidates().stream()
                .map(c -> new DetectReport.AdapterScore(c.adapter().name(), c.adapter().describeOrigin(), c.adapter().state(), c.detection().score(),
                        c.detection().evidence(), c.failure()))
                .toList();
        Optional<DetectReport.Effective> effective = snapshot.effectiveConfig().map(e -> {
            var summary = snapshot.parse(e).config().orElseThrow();
            return new DetectReport.Effective(e.path().toString(), e.linkChain().stream().map(Path::toString).toList(),
                    e.target().map(Path::toString).orElse("not writable: " + e.problem().orElse("")), summary.networkName(), summary.pluginTypes());
        });
        List<DetectReport.Target> targets = new ArrayList<>();
        for (ConfigTarget target : selection.targets()) {
            targets.add(new DetectReport.Target(target.path().toString(), target.target().toString(), target.reason(),
                    plan(snapshot, target, selection.chosen().adapter())));
        }
        Set<String> problems = new LinkedHashSet<>();
        snapshot.listingProblem().ifPresent(problems::add);
        problems.addAll(snapshot.brokenBeforeEffective());
        for (ConfigEntry entry : snapshot.entries()) {
            if (entry.runtimeLoadable() && entry.isLink() && entry.problem().isPresent()) {
                problems.add(entry.problem().get());
            }
        }
        selection.failure().ifPresent(problems::add);
        problems.addAll(registry.problems());
        List<String> notes = new ArrayList<>(selection.notes());
        if (!selection.targets().isEmpty()) {
            prerequisites(problems, notes);
        }
        try {
            notes.addAll(selection.chosen().adapter().warnings(snapshot));
        }
        catch (RuntimeException e) {
            problems.add("adapter " + selection.chosen().name() + " failed to list warnings: " + e);
        }
        if (selection.targets().isEmpty() && selection.failure().isEmpty()) {
            notes.add("no primary configuration to patch: install would create nothing");
        }
        return new DetectReport(config.confDir().toString(), config.binDir().toString(), scores, selection.chosen().name(), selection.why(),
                effective, targets, List.copyOf(problems), notes);
    }

    /** The chosen adapter's warnings about the node, for the log; an adapter that fails here is one more warning. */
    private static List<String> warnings(Selection selection, NodeSnapshot snapshot)
    {
        try {
            return List.copyOf(selection.chosen().adapter().warnings(snapshot));
        }
        catch (RuntimeException e) {
            return List.of("adapter " + selection.chosen().name() + " failed to list warnings: " + e);
        }
    }

    /** What install would have to put in place before it patches, and what stops it. */
    private void prerequisites(Set<String> problems, List<String> notes)
    {
        String type = config.plugin().type();
        Path binary = config.binDir().resolve(type);
        if (!Files.isRegularFile(host.toContainer(binary))) {
            if (binaries.sourceNames().contains(type)) {
                notes.add("install copies " + type + " from " + config.sourceBinDir() + " to " + config.binDir() + " first");
            }
            else {
                problems.add(binary + ": the " + type + " binary is not installed and " + config.sourceBinDir()
                        + " does not provide it; install would patch nothing (no configuration may name a missing binary)");
            }
        }
        if (config.kubeconfig().enabled()) {
            try {
                kubeconfig.render();
                if (!kubeconfig.exists()) {
                    notes.add("install writes the plugin's kubeconfig " + kubeconfig.hostPath() + " first");
                }
            }
            catch (CniChainException e) {
                problems.add("install would patch nothing: " + e.getMessage());
            }
        }
    }

    private String plan(NodeSnapshot snapshot, ConfigTarget target, CniPlatformAdapter adapter)
    {
        ConfigEntry entry = snapshot.inspect(target.path());
        NodeSnapshot.Loaded loaded = snapshot.load(entry);
        if (loaded.config().isEmpty()) {
            return "wait: " + loaded.result().error().orElse("does not parse");
        }
        // Install asks the adapter the same question before it writes (ConfigFileUpdater).
        Optional<String> incomplete = adapter.incompleteReason(target, loaded.config().get().summary());
        if (incomplete.isPresent()) {
            return "wait: not complete yet: " + incomplete.get();
        }
        String type = config.plugin().type();
        String loadName = ConfigFileUpdater.loadName(target.path(), target.target());
        PatchPlan plan = ConfigFilePatcher.planInstall(loaded.config().get(), loadName, target.target().getFileName().toString(), entry());
        CniConfigParser.LoadedConfig config = loaded.config().get();
        if (plan instanceof PatchPlan.Unchanged) {
            return "nothing: already holds the " + type + " entry";
        }
        if (plan instanceof PatchPlan.Refused refused) {
            return "refuse: " + refused.reason();
        }
        if (plan instanceof PatchPlan.Replace replace) {
            return "convert to " + target.target().resolveSibling(replace.newName()) + " keeping network '" + config.summary().networkName()
                    + "' and cniVersion " + config.summary().cniVersion().orElse("(none)") + ", with " + type + " appended";
        }
        int existing = Patcher.count(config.tree(), type);
        return switch (existing) {
            case 0 -> "append " + type + " as plugin #" + (config.summary().pluginTypes().size() + 1);
            case 1 -> "replace the existing " + type + " entry in place";
            default -> "collapse " + existing + " " + type + " entries into one";
        };
    }

    public HostPaths host()
    {
        return host;
    }
}
