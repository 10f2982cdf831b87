package io.cnichain.core.engine;

import io.cnichain.core.CniChainException;
import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.discovery.ConfigNames;
import io.cnichain.core.discovery.NodeLayout;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.core.install.BinaryInstaller;
import io.cnichain.core.install.KubeconfigWriter;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.ParseResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * Uninstall: our entry out of every configuration that may hold it (links followed, every adapter's authoritative
 * files included), then the kubeconfig, then the binaries, the last two only when no configuration names the plugin
 * any more. Continues past every failure and reports each.
 */
public final class Uninstaller
{
    private static final Logger log = LoggerFactory.getLogger(Uninstaller.class);

    private final AgentConfig config;
    private final AdapterRegistry registry;
    private final NodeLayout layout;
    private final AtomicFileWriter writer;
    private final BinaryInstaller binaries;
    private final KubeconfigWriter kubeconfig;
    private final ConfigFileUpdater updater;
    private final DropInFiles dropIns;

    Uninstaller(AgentConfig config, AdapterRegistry registry, AtomicFileWriter writer, BinaryInstaller binaries, KubeconfigWriter kubeconfig,
            ConfigFileUpdater updater, DropInFiles dropIns)
    {
        this.dropIns = requireNonNull(dropIns, "dropIns is null");
        this.config = requireNonNull(config, "config is null");
        this.registry = requireNonNull(registry, "registry is null");
        this.layout = config.layout();
        this.writer = requireNonNull(writer, "writer is null");
        this.binaries = requireNonNull(binaries, "binaries is null");
        this.kubeconfig = requireNonNull(kubeconfig, "kubeconfig is null");
        this.updater = requireNonNull(updater, "updater is null");
    }

    UninstallReport uninstall()
    {
        String type = config.plugin().type();
        Optional<String> ourName = Optional.ofNullable(config.plugin().template().get("name")).map(name -> name.asText());
        log.info("Removing {} artifacts.", type);
        writer.removeStaleTemps(layout.containerConfDir());
        List<FileOutcome> outcomes = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        removeDropIns(outcomes, failures);
        for (Map.Entry<Path, Path> file : cleanupCandidates(layout.snapshot()).entrySet()) {
            FileOutcome outcome = updater.uninstall(file.getValue(), file.getKey(), type, ourName);
            outcomes.add(outcome);
            switch (outcome.result()) {
                case FAILED -> {
                    failures.add(outcome.detail());
                    log.error("Failed to remove {} from {}: {}", type, file.getValue(), outcome.detail());
                }
                case SKIPPED -> log.warn("Skipping {}", outcome.detail());
                default -> { }
            }
        }

        // Every binary uninstall may remove, not only this run's type: an earlier install may have had another.
        NodeSnapshot after = layout.snapshot();
        Map<String, List<Path>> stillNaming = new LinkedHashMap<>();
        Set<String> names = new LinkedHashSet<>(List.of(type));
        names.addAll(binaries.namesUninstallMayRemove());
        for (String name : names) {
            List<Path> naming = filesNaming(after, name);
            if (!naming.isEmpty()) {
                stillNaming.put(name, naming);
            }
        }
        boolean kubeconfigRemoved = false;
        List<Path> removedBinaries = List.of();
        Optional<String> unseen = after.contentsUnknown();
        if (!stillNaming.isEmpty() || !failures.isEmpty() || unseen.isPresent()) {
            // A configuration naming a missing binary breaks ADD and DEL for every pod on the node: while any
            // file may still name one of our binaries, the binaries and the kubeconfig stay.
            List<String> why = new ArrayList<>();
            unseen.ifPresent(problem -> why.add(problem + ", so a configuration there may still name " + type));
            stillNaming.forEach((name, files) -> why.add(files + " still name " + name + (name.equals(type) ? "" : " (installed by cni-chain; this "
                    + "uninstall's plugin type is " + type + ")")));
            String failure = "keeping the kubeconfig and the binaries: "
                    + (why.isEmpty() ? "a configuration above could not be cleaned and may still name " + type : String.join("; ", why));
            log.error("{}", failure);
            failures.add(failure);
        }
        else {
            try {
                if (kubeconfig.present()) {
                    kubeconfigRemoved = kubeconfig.remove();
                    log.info("Removing {} kubeconfig: {}", type, kubeconfig.hostPath());
                }
            }
            catch (CniChainException e) {
                failures.add(e.getMessage());
                log.error("{}", e.getMessage());
            }
            try {
                removedBinaries = binaries.uninstall();
                removedBinaries.forEach(binary -> log.info("Removing {} binary: {}", type, binary));
                Optional<String> left = binaries.leftForWantOfSource(type);
                if (left.isPresent()) {
                    failures.add(left.get());
                    log.error("{}", left.get());
                }
            }
            catch (CniChainException e) {
                failures.add(e.getMessage());
                log.error("{}", e.getMessage());
            }
        }
        return new UninstallReport(outcomes, kubeconfigRemoved, removedBinaries, failures);
    }

    /**
     * Our drop-ins, whatever the placement now (an earlier run may have had the other), each with the plugin directory
     * we made for it; then an event in the conf dir, so that the runtime reloads without them.
     */
    private void removeDropIns(List<FileOutcome> outcomes, List<String> failures)
    {
        boolean removed = false;
        for (Path directory : dropIns.directoriesWithOurs()) {
            try {
                Optional<Path> file = dropIns.remove(directory);
                if (file.isPresent()) {
                    removed = true;
                    log.info("Removing {} drop-in {}", config.plugin().type(), file.get());
                    outcomes.add(new FileOutcome(file.get(), FileOutcome.Result.REMOVED, "removed our drop-in " + file.get(), List.of()));
                }
            }
            catch (CniChainException e) {
                failures.add(e.getMessage());
                log.error("Failed to remove {} drop-in from {}: {}", config.plugin().type(), directory, e.getMessage());
                outcomes.add(new FileOutcome(dropIns.file(directory), FileOutcome.Result.FAILED, e.getMessage(), List.of()));
            }
        }
        if (removed) {
            try {
                dropIns.notifyRuntime();
            }
            catch (CniChainException e) {
                log.warn("The runtime could not be told that our drop-ins are gone (an event in {}): {}", config.paths().confDir(), e.getMessage());
            }
        }
    }

    /**
     * Every file that may hold our entry, by resolved file (each once), with the path it is seen under: every
     * runtime-loadable entry of the conf dir and every file any adapter calls authoritative; first the backups a primary
     * builds its file from ({@link ConfigNames#backedUpName}), so that its next build carries no entry of ours.
     */
    private Map<Path, Path> cleanupCandidates(NodeSnapshot snapshot)
    {
        Map<Path, Path> byFile = new LinkedHashMap<>();
        for (ConfigEntry entry : snapshot.entries()) {
            if (ConfigNames.backedUpName(entry.path().getFileName().toString()).isPresent() && entry.resolves()) {
                byFile.putIfAbsent(entry.resolvedFile().orElseThrow(), entry.path());
            }
        }
        for (ConfigEntry entry : snapshot.entries()) {
            if (entry.runtimeLoadable() && entry.resolves()) {
                byFile.putIfAbsent(entry.resolvedFile().orElseThrow(), entry.path());
            }
        }
        for (LoadedAdapter adapter : registry.all()) {
            try {
                for (ConfigTarget target : adapter.adapter().authoritativeConfigs(snapshot, config.adapters().settingsFor(adapter.name()))) {
                    byFile.putIfAbsent(target.resolvedFile(), target.path());
                }
            }
            catch (RuntimeException e) {
                log.warn("adapter {} could not list its files for cleanup: {}", adapter.name(), e.getMessage());
            }
        }
        return byFile;
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
            if (entry.runtimeLoadable() && !entry.resolves() && names(snapshot.parse(entry), type)) {
                naming.add(entry.path());
            }
            // A drop-in that names it (one we could not remove, or anyone's) runs it as surely as a list does.
            if (entry.runtimeLoadable()) {
                snapshot.dropIns(entry).plugins().stream().filter(plugin -> plugin.type().equals(type)).forEach(plugin -> naming.add(plugin.path()));
            }
        }
        return List.copyOf(naming);
    }

    private static boolean names(ParseResult result, String type)
    {
        return result.config().map(c -> c.hasPluginType(type)).orElse(false);
    }
}
