package io.cnichain.core.engine;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.AdapterSelector;
import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.discovery.NodeLayout;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.core.host.HostPaths;
import io.cnichain.core.install.BinaryInstaller;
import io.cnichain.core.install.KubeconfigWriter;
import io.cnichain.core.json.CniJson;
import io.cnichain.core.placement.PlacementDecision;
import io.cnichain.spi.AdapterException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The engine on one node: the three one-shot jobs, each in its own class ({@link Installer}, {@link Uninstaller},
 * {@link DetectPlanner}), built once from the configuration and the adapters. Every job starts the same way: a fresh
 * {@link NodeSnapshot} and the adapters' decision on it ({@link AdapterSelector}). The agent's reconcile loop runs the
 * {@link #installer()}'s install sequence on every pass.
 */
public final class Engine
{
    private static final Logger log = LoggerFactory.getLogger(Engine.class);

    private final AgentConfig config;
    private final AdapterRegistry registry;
    private final AdapterSelector selector;
    private final NodeLayout layout;
    private final Installer installer;
    private final Uninstaller uninstaller;
    private final DetectPlanner planner;

    public Engine(AgentConfig config, AdapterRegistry registry)
    {
        this(config, registry, new AtomicFileWriter());
    }

    /**
     * @param config   the configuration
     * @param registry the adapters
     * @param writer   the writer every file goes through (tests inject a crash before the rename)
     * @throws io.cnichain.core.CniChainException {@link io.cnichain.core.ErrorCode#BAD_CONFIG} for settings of an
     *                                            unknown adapter, an unknown setting key or a pinned adapter that is
     *                                            not installed
     */
    public Engine(AgentConfig config, AdapterRegistry registry, AtomicFileWriter writer)
    {
        this(config, registry, writer, PlacementDecision.configured(config.placement())
                .orElseGet(() -> PlacementDecision.runtimeUnknown("this command does not ask the API server")));
    }

    /**
     * @param placement where the entry goes, decided before (for {@code auto}, from the node's runtime)
     */
    public Engine(AgentConfig config, AdapterRegistry registry, AtomicFileWriter writer, PlacementDecision placement)
    {
        this.config = requireNonNull(config, "config is null");
        this.registry = requireNonNull(registry, "registry is null");
        requireNonNull(writer, "writer is null");
        registry.validateSettings(config.adapters().settings(), config.configFile());
        for (String name : config.adapters().choice().names()) {
            registry.require(name, config.adapters().choice().source());
        }
        this.selector = new AdapterSelector(registry, config.adapters());
        this.layout = config.layout();
        HostPaths host = config.host();
        BinaryInstaller binaries = new BinaryInstaller(host, config.paths().sourceBinDir(), config.paths().binDir(), writer, config.plugin().type());
        KubeconfigWriter kubeconfig = new KubeconfigWriter(host, config.kubeconfig(), config.apiServer(), config.kubeconfigHostPath(), writer);
        BoundedFileReader reader = new BoundedFileReader(config.paths().maxConfigBytes());
        ConfigFileUpdater updater = new ConfigFileUpdater(host, reader, writer);
        DropInFiles dropIns = new DropInFiles(host, config.paths().confDir(), reader, writer, config.plugin().type());
        Optional<String> ourName = Optional.ofNullable(config.plugin().template().get("name")).map(name -> name.asText());
        EntryPlacer placer = new EntryPlacer(requireNonNull(placement, "placement is null"), updater, dropIns, config.paths().confDir(),
                config.plugin().type(), ourName);
        this.installer = new Installer(config, writer, binaries, kubeconfig, placer);
        this.uninstaller = new Uninstaller(config, registry, writer, binaries, kubeconfig, updater, dropIns);
        this.planner = new DetectPlanner(config, registry, binaries, kubeconfig, installer);
        checkSettingValues();
    }

    /**
     * A setting an adapter cannot use is a configuration error like any other (exit 2, nothing written), found before
     * anything is done: every adapter given settings is asked once to list its files with them.
     */
    private void checkSettingValues()
    {
        if (config.adapters().settings().isEmpty()) {
            // Nothing to ask, and nothing to look at: the node is first seen by the first pass.
            return;
        }
        NodeSnapshot snapshot = snapshot();
        for (String name : config.adapters().settings().keySet()) {
            try {
                registry.require(name, config.source() + ": key 'adapters." + name + "'").adapter().authoritativeConfigs(snapshot, config.adapters().settingsFor(name));
            }
            catch (AdapterException e) {
                if (e.code() == AdapterException.Code.INVALID_SETTING) {
                    throw new CniChainException(ErrorCode.BAD_CONFIG, config.source() + ": " + e.getMessage());
                }
                // Any other failure belongs to the node, not the configuration: the passes report it.
            }
        }
    }

    /**
     * @return why the host root is unusable, when it does not exist or is not a directory: nothing on the node can be
     *         seen then, and every command would find nothing and say nothing
     */
    public Optional<String> hostRootProblem()
    {
        Path root = config.paths().hostRoot();
        if (Files.isDirectory(root)) {
            return Optional.empty();
        }
        return Optional.of(root + ": the host root (hostRoot, --host-root or CONTAINER_MOUNT_PREFIX) "
                + (Files.exists(root) ? "is not a directory" : "does not exist") + "; the host's / must be mounted there");
    }

    public AgentConfig config()
    {
        return config;
    }

    public AdapterRegistry registry()
    {
        return registry;
    }

    public HostPaths host()
    {
        return config.host();
    }

    /** The install steps, for the agent's reconcile pass. */
    public Installer installer()
    {
        return installer;
    }

    /**
     * @return a fresh look at the node
     */
    public NodeSnapshot snapshot()
    {
        return layout.snapshot();
    }

    /**
     * @param snapshot the node
     * @return the adapters' decision on it
     */
    public Selection select(NodeSnapshot snapshot)
    {
        return selector.select(snapshot, config.adapters().choice());
    }

    /**
     * One full pass: decide, install binaries and kubeconfig, patch.
     *
     * @return what happened
     */
    public InstallReport install()
    {
        NodeSnapshot snapshot = snapshot();
        Selection selection = select(snapshot);
        log.info("Using adapter {} ({})", selection.chosen().name(), selection.why());
        log.info("Placing the entry by {}: {}", installer.placement().placement().yaml(), installer.placement().why());
        selection.notes().forEach(note -> log.warn("{}", note));
        selection.warnings().forEach(warning -> log.warn("{}", warning));
        snapshot.brokenBeforeEffective().forEach(problem -> log.warn("{}", problem));
        if (!selection.targets().isEmpty()) {
            log.info("Using CNI config template from {}.", config.plugin().source());
            log.info("CNI config: {}", CniJson.compact(installer.entry()));
        }
        InstallReport report = installer.install(snapshot, selection, Prerequisites.ALL,
                target -> installer.patch(target, selection, snapshot, Optional.empty()));
        report.links().forEach(line -> log.info("{}", line));
        report.notPatched().forEach(line -> log.warn("{}", line));
        report.failures().forEach(failure -> log.error("{}", failure));
        if (report.nothingToDo()) {
            log.info("No active CNI configuration files found in {}; nothing to patch, nothing created", config.paths().confDir());
        }
        return report;
    }

    /**
     * Removes everything install added: entries first, then the kubeconfig, then the binaries.
     *
     * @return what happened
     */
    public UninstallReport uninstall()
    {
        return uninstaller.uninstall();
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
        // Auto-detection scored every adapter already; a pinned choice scored only its own.
        List<AdapterSelector.Candidate> scores = config.adapters().choice().isAuto() ? selection.candidates() : selector.scoreAll(snapshot);
        return planner.detect(snapshot, selection, scores);
    }
}
