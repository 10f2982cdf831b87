package io.cnichain.core.engine;

import io.cnichain.core.CniChainException;
import io.cnichain.core.Printable;
import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.AdapterSelector;
import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.discovery.CniConfigParser;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.install.BinaryInstaller;
import io.cnichain.core.install.KubeconfigWriter;
import io.cnichain.core.patch.ConfigFilePatcher;
import io.cnichain.core.patch.OriginalBytes;
import io.cnichain.core.patch.PatchPlan;
import io.cnichain.core.placement.PlacementDecision;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * {@code cni-chain detect}: the decisions install would make, with the reasons, and nothing written.
 */
final class DetectPlanner
{
    private final AgentConfig config;
    private final AdapterRegistry registry;
    private final BinaryInstaller binaries;
    private final KubeconfigWriter kubeconfig;
    private final Installer installer;

    DetectPlanner(AgentConfig config, AdapterRegistry registry, BinaryInstaller binaries, KubeconfigWriter kubeconfig, Installer installer)
    {
        this.config = requireNonNull(config, "config is null");
        this.registry = requireNonNull(registry, "registry is null");
        this.binaries = requireNonNull(binaries, "binaries is null");
        this.kubeconfig = requireNonNull(kubeconfig, "kubeconfig is null");
        this.installer = requireNonNull(installer, "installer is null");
    }

    /**
     * @param candidates every adapter's detection to show (every adapter's, also when one is pinned)
     */
    DetectReport detect(NodeSnapshot snapshot, Selection selection, List<AdapterSelector.Candidate> candidates)
    {
        List<DetectReport.AdapterScore> scores = candidates.stream()
                .map(c -> new DetectReport.AdapterScore(c.adapter().name(), c.adapter().describeOrigin(), c.adapter().state(), c.detection().score(),
                        c.detection().evidence(), c.failure()))
                .toList();
        String type = config.plugin().type();
        Optional<DetectReport.Effective> effective = snapshot.effectiveConfig().map(e -> {
            var summary = snapshot.parse(e).config().orElseThrow();
            List<String> plugins = snapshot.runtimePluginTypes(e);
            return new DetectReport.Effective(e.path().toString(), e.linkChain().stream().map(Path::toString).toList(),
                    e.resolvedFile().map(Path::toString).orElse("not writable: " + e.problem().orElse("")), summary.networkName(), plugins,
                    snapshot.dropIns(e).plugins().stream().map(p -> p.path().toString()).toList(), plugins.contains(type));
        });
        List<DetectReport.Target> targets = new ArrayList<>();
        for (ConfigTarget target : selection.targets()) {
            targets.add(new DetectReport.Target(target.path().toString(), target.resolvedFile().toString(), target.reason(), plan(snapshot, target, selection)));
        }
        Set<String> problems = new LinkedHashSet<>();
        snapshot.listingProblem().ifPresent(problems::add);
        problems.addAll(snapshot.brokenBeforeEffective());
        for (ConfigEntry entry : snapshot.entries()) {
            if (entry.runtimeLoadable() && entry.isSymlink() && entry.problem().isPresent()) {
                problems.add(entry.problem().get());
            }
        }
        selection.failure().ifPresent(problems::add);
        selection.unpatchable().ifPresent(problems::add);
        problems.addAll(registry.problems());
        List<String> notes = new ArrayList<>(selection.notes());
        if (!selection.targets().isEmpty()) {
            prerequisites(problems, notes);
        }
        // An adapter's warnings are what its platform does against chained plugins (Cilium's exclusive mode reverts
        // every edit to its file): something that will undo our entry, so a problem, not a note.
        problems.addAll(selection.warnings());
        if (selection.targets().isEmpty() && selection.failure().isEmpty()) {
            notes.add("no primary configuration to patch: install would create nothing");
        }
        PlacementDecision placement = installer.placement();
        return new DetectReport(config.paths().confDir().toString(), config.paths().binDir().toString(), scores, selection.chosen().name(),
                selection.why(), placement.placement().yaml(), placement.why(), effective, targets, List.copyOf(problems), notes);
    }

    /** What install would have to put in place before it patches, and what stops it. */
    private void prerequisites(Set<String> problems, List<String> notes)
    {
        String type = config.plugin().type();
        Path binary = config.paths().binDir().resolve(type);
        if (!Files.isRegularFile(config.host().toContainer(binary))) {
            if (binaries.sourceNames().contains(type)) {
                notes.add("install copies " + type + " from " + config.paths().sourceBinDir() + " to " + config.paths().binDir() + " first");
            }
            else {
                problems.add(binary + ": the " + type + " binary is not installed and " + config.paths().sourceBinDir()
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

    private String plan(NodeSnapshot snapshot, ConfigTarget target, Selection selection)
    {
        ConfigEntry entry = snapshot.inspect(target.path());
        NodeSnapshot.Loaded loaded = snapshot.load(entry);
        if (loaded.config().isEmpty()) {
            return "wait: " + loaded.result().error().orElse("does not parse");
        }
        CniConfigParser.LoadedConfig parsed = loaded.config().get();
        // Install asks the adapter the same question before it writes (ConfigFileUpdater).
        Optional<String> incomplete;
        try {
            incomplete = selection.incompleteReason(target, parsed.summary());
        }
        catch (RuntimeException e) {
            return "refuse: adapter " + selection.chosen().name() + ": " + e.getMessage();
        }
        if (incomplete.isPresent()) {
            return "wait: not complete yet: " + incomplete.get();
        }
        String type = config.plugin().type();
        EntryPlacer.Where where = installer.placer().where(target, parsed);
        if (where.directory().isPresent() && installer.placement().wontRun().isPresent()) {
            return "refuse: placement drop-in: " + installer.placement().wontRun().get();
        }
        if (where.directory().isPresent()) {
            Path file = installer.placer().dropInFile(where.directory().get());
            String dropIn = snapshot.dropIns(entry).plugins().stream().anyMatch(p -> p.path().equals(file))
                    ? "nothing: the drop-in " + file + " is in place" : "write the drop-in " + file;
            return dropIn + "; " + target.resolvedFile() + " stays as it is" + (parsed.count(type) > 0 ? " once our entry is out of it" : "");
        }
        if (where.notThere().isPresent() && !installer.placement().auto()) {
            return where.notThere().get().startsWith("only libcni 1.1") ? "nothing: " + where.notThere().get()
                    : "refuse: placement drop-in, but " + where.notThere().get();
        }
        String loadName = ConfigFileUpdater.loadName(target.path(), target.resolvedFile());
        String patching = where.notThere().map(why -> " (placement auto: " + why + ")").orElse("");
        PatchPlan plan = ConfigFilePatcher.planInstall(parsed, loadName, target.resolvedFile().getFileName().toString(), installer.entry());
        if (plan instanceof PatchPlan.Unchanged) {
            return "nothing: already holds the " + type + " entry" + patching;
        }
        if (plan instanceof PatchPlan.Refused refused) {
            return "refuse: " + refused.reason();
        }
        int length = plan instanceof PatchPlan.Rewrite rewrite ? OriginalBytes.keep(loaded.bytes().orElseThrow(), rewrite.content()).length
                : ((PatchPlan.Replace) plan).content().length;
        Optional<String> beyond = ConfigFileUpdater.beyondOurLimit(length, config.paths().maxConfigBytes());
        if (beyond.isPresent()) {
            return "refuse: " + beyond.get();
        }
        if (plan instanceof PatchPlan.Replace replace) {
            return "convert to " + target.resolvedFile().resolveSibling(replace.newName()) + " keeping network "
                    + Printable.quoted(parsed.summary().networkName()) + " and cniVersion " + parsed.summary().cniVersion().map(Printable::line).orElse("(none)")
                    + ", with " + type + " appended";
        }
        int existing = parsed.count(type);
        return switch (existing) {
            case 0 -> "append " + type + " as plugin #" + (parsed.summary().pluginTypes().size() + 1);
            case 1 -> "replace the existing " + type + " entry in place";
            default -> "collapse " + existing + " " + type + " entries into one";
        } + patching;
    }
}
