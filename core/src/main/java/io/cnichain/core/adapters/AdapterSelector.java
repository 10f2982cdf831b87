package io.cnichain.core.adapters;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.config.AdapterChoice;
import io.cnichain.core.config.AdapterConfig;
import io.cnichain.core.discovery.LibcniGeneration;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.spi.AdapterException;
import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.CniConfig;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.Detection;
import io.cnichain.spi.NodeView;
import io.cnichain.spi.ParseResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Chooses the adapter that decides for this node, and asks it what to patch.
 *
 * <ul>
 *   <li>{@code auto}: every adapter scores the node; the highest score wins. Ties between different adapters
 *   go to the name that sorts first, and are reported. {@code generic-symlink} scores lowest of all when it
 *   matches and is the fallback when nothing matches.</li>
 *   <li>one name: that adapter.</li>
 *   <li>a list: the first adapter, in order, that finds something to patch.</li>
 * </ul>
 * When the chosen adapter finds nothing to patch while another one would, the selection says so, naming it.
 */
public final class AdapterSelector
{
    public static final String FALLBACK = "generic-symlink";

    /** Highest score first; ties to the name that sorts first. */
    private static final Comparator<Candidate> BY_SCORE_THEN_NAME =
            Comparator.comparingInt((Candidate candidate) -> candidate.detection().score()).reversed()
                    .thenComparing(candidate -> candidate.adapter().name());

    private static final Logger log = LoggerFactory.getLogger(AdapterSelector.class);

    private final AdapterRegistry registry;
    private final AdapterConfig config;

    /**
     * @param registry the adapters
     * @param config   each adapter's settings (already validated against the adapter's setting names)
     */
    public AdapterSelector(AdapterRegistry registry, AdapterConfig config)
    {
        this.registry = requireNonNull(registry, "registry is null");
        this.config = requireNonNull(config, "config is null");
    }

    /**
     * @param node   the node
     * @param choice what the configuration asks for
     * @return the selection
     */
    public Selection select(NodeSnapshot node, AdapterChoice choice)
    {
        return select(node, node, choice);
    }

    /**
     * @param view   what the adapters see of the node (a test may watch their calls through it)
     * @param node   the node, for the core's own rules on what the runtime loads
     * @param choice what the configuration asks for
     * @return the selection
     */
    Selection select(NodeView view, NodeSnapshot node, AdapterChoice choice)
    {
        if (registry.onlyBuiltIn()) {
            // Only the agent's own adapters: no code to guard the loop from, and no hand-over to pay for.
            return AdapterCalls.onCallingThread(() -> decide(view, node, choice));
        }
        // Every adapter call of the decision on one adapter-call thread: one hand-over per pass, not one per call.
        return AdapterCalls.batch(() -> decide(view, node, choice));
    }

    /**
     * Every adapter's detection, whatever the choice: what {@code cni-chain detect} shows when one is pinned, so that
     * an operator sees what auto-detection would have said.
     *
     * @param node the node
     * @return one candidate per adapter, in the registry's order
     */
    public List<Candidate> scoreAll(NodeView node)
    {
        return AdapterCalls.batch(() -> registry.all().stream().map(adapter -> detect(adapter, node)).toList());
    }

    private Selection decide(NodeView node, NodeSnapshot snapshot, AdapterChoice choice)
    {
        List<Candidate> candidates = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        LoadedAdapter chosen;
        String why;
        if (choice.isAuto()) {
            for (LoadedAdapter adapter : registry.all()) {
                candidates.add(detect(adapter, node));
            }
            List<Candidate> ranked = new ArrayList<>();
            for (Candidate candidate : candidates) {
                if (candidate.failure().isEmpty() && candidate.detection().matched()) {
                    ranked.add(candidate);
                }
            }
            ranked.sort(BY_SCORE_THEN_NAME);
            if (ranked.isEmpty()) {
                Optional<LoadedAdapter> fallback = registry.find(FALLBACK);
                if (fallback.isEmpty()) {
                    throw new CniChainException(ErrorCode.ADAPTER, "no adapter recognised the node and the fallback adapter " + FALLBACK + " is not installed");
                }
                chosen = fallback.get();
                why = "no adapter recognised the node; " + FALLBACK + " is the fallback";
            }
            else {
                chosen = ranked.get(0).adapter();
                int best = ranked.get(0).detection().score();
                why = "highest detection score, " + best;
                List<String> tied = new ArrayList<>();
                for (Candidate candidate : ranked) {
                    if (candidate.detection().score() == best) {
                        tied.add(candidate.adapter().name());
                    }
                }
                if (tied.size() > 1) {
                    String note = "tie at score " + ranked.get(0).detection().score() + " between " + String.join(", ", tied)
                            + "; chose " + chosen.name() + " (ties go to the adapter name that sorts first; pin one with 'adapter:')";
                    notes.add(note);
                }
            }
        }
        else if (choice.names().size() == 1) {
            chosen = registry.require(choice.names().get(0), "adapter");
            candidates.add(detect(chosen, node));
            why = "pinned by configuration";
        }
        else {
            chosen = null;
            why = null;
            for (String name : choice.names()) {
                LoadedAdapter adapter = registry.require(name, "adapter");
                candidates.add(detect(adapter, node));
                if (chosen == null && !targets(adapter, node).orElse(List.of()).isEmpty()) {
                    chosen = adapter;
                    why = "first adapter of " + choice.names() + " that finds something to patch";
                }
            }
            if (chosen == null) {
                chosen = registry.require(choice.names().get(0), "adapter");
                why = "no adapter of " + choice.names() + " finds anything to patch; " + chosen.name() + " is the first";
            }
        }

        Optional<String> failure = Optional.empty();
        List<ConfigTarget> targets;
        try {
            targets = chosenTargets(chosen, node);
        }
        catch (RuntimeException e) {
            failure = Optional.of(describe(chosen, e));
            targets = List.of();
        }
        if (targets.isEmpty() && failure.isEmpty()) {
            for (LoadedAdapter other : registry.all()) {
                if (other == chosen) {
                    continue;
                }
                List<ConfigTarget> theirs = targets(other, node).orElse(List.of());
                if (!theirs.isEmpty()) {
                    List<String> paths = new ArrayList<>();
                    for (ConfigTarget target : theirs) {
                        paths.add(target.path().toString());
                    }
                    notes.add("adapter " + chosen.name() + " finds nothing to patch, but adapter " + other.name() + " would patch " + String.join(", ", paths));
                }
            }
        }
        // The invariant: whatever the adapter chose, the file the runtime loads carries our entry. Targets that
        // resolve to one file are patched once, under the first target's path.
        Map<Path, ConfigTarget> byFile = new LinkedHashMap<>();
        Set<Path> named = new HashSet<>();
        for (ConfigTarget target : targets) {
            byFile.putIfAbsent(target.resolvedFile(), target);
            named.add(target.resolvedFile());
        }
        Optional<String> unpatchable = Optional.empty();
        Optional<ConfigEntry> effective = node.effectiveConfig();
        if (effective.isPresent()) {
            ConfigEntry entry = effective.get();
            if (entry.resolves()) {
                byFile.putIfAbsent(entry.resolvedFile().orElseThrow(), ConfigTarget.of(entry, EFFECTIVE_REASON));
            }
            else {
                unpatchable = Optional.of("the runtime loads " + entry.path() + ", which cannot be patched: " + entry.problem().orElseThrow());
            }
        }
        unpatchable = otherReadings(snapshot, effective, byFile, unpatchable);
        return new Selection(chosen, settingsFor(chosen), why, candidates, List.copyOf(byFile.values()), named, notes, warnings(chosen, node), failure,
                unpatchable, judge(chosen, node, byFile.values(), named));
    }

    /**
     * The files a runtime may load where the agent cannot know it does not: the node's libcni generation is unknown, so
     * the file libcni 1.1 loads is patched too when it differs from libcni 1.3's; one that 1.3 rejects cannot be
     * patched, and a file before the effective one that cannot be read whole may be the runtime's. Either is a reason
     * for the pass to fail, never a silent miss.
     *
     * @return what keeps the runtime's file from certainly carrying our entry, with what was there before
     */
    private static Optional<String> otherReadings(NodeSnapshot snapshot, Optional<ConfigEntry> effective, Map<Path, ConfigTarget> byFile,
            Optional<String> unpatchable)
    {
        List<String> problems = new ArrayList<>();
        if (unpatchable.isPresent()) {
            problems.add(unpatchable.get());
        }
        problems.addAll(snapshot.unknownBeforeEffective());
        Optional<ConfigEntry> older = snapshot.effectiveConfig(LibcniGeneration.V1_1);
        if (older.isPresent() && (effective.isEmpty() || !older.get().name().equals(effective.get().name()))) {
            ConfigEntry entry = older.get();
            ParseResult current = snapshot.parse(entry);
            if (!current.isValid()) {
                problems.add(LibcniGeneration.V1_1.description() + " loads " + entry.path() + ", which " + LibcniGeneration.V1_3.description()
                        + " rejects (" + current.error().orElse("") + "): we patch only what every generation loads, so on a node whose runtime links "
                        + "libcni 1.1 it runs without our entry; fix or remove it");
            }
            else if (!entry.resolves()) {
                problems.add(LibcniGeneration.V1_1.description() + " loads " + entry.path() + ", which cannot be patched: " + entry.problem().orElseThrow());
            }
            else {
                byFile.putIfAbsent(entry.resolvedFile().orElseThrow(), ConfigTarget.of(entry, OLDER_LIBCNI_REASON + (effective.isPresent()
                        ? "; libcni 1.3 loads " + effective.get().path() + " instead" : "")));
            }
        }
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
    }

    /** Why the file an older libcni loads is patched when the adapter did not name it. */
    public static final String OLDER_LIBCNI_REASON = "the configuration " + LibcniGeneration.V1_1.description() + " loads (patched too: which libcni "
            + "the node's runtime links cannot be known)";

    /**
     * The chosen adapter's word on whether each file it named is complete, as this pass read the file: asked here, with
     * the rest of the decision, so that patching the file costs no further hand-over to an adapter-call thread. A file
     * that does not parse, or that the adapter fails on, is left out and asked about when it is patched.
     */
    private Map<Path, Judged> judge(LoadedAdapter chosen, NodeView node, Collection<ConfigTarget> targets, Set<Path> named)
    {
        Map<Path, Judged> judged = new HashMap<>();
        for (ConfigTarget target : targets) {
            Optional<CniConfig> config = named.contains(target.resolvedFile()) ? node.parse(target.entry()).config() : Optional.empty();
            if (config.isEmpty()) {
                continue;
            }
            try {
                judged.put(target.resolvedFile(), new Judged(config.get(), chosen.adapter().incompleteReason(target, config.get(), settingsFor(chosen))));
            }
            catch (RuntimeException e) {
                log.debug("adapter {} failed to judge {}: {}", chosen.name(), target.path(), e.toString());
            }
        }
        return judged;
    }

    /** What the adapter said of one parse of a file: asked again for any other. */
    public record Judged(CniConfig config, Optional<String> incompleteReason) {}

    /** Why the effective configuration is patched when the adapter did not name it. */
    public static final String EFFECTIVE_REASON = "the configuration the runtime loads (always patched, whatever the adapter chose)";

    private AdapterSettings settingsFor(LoadedAdapter adapter)
    {
        return config.settingsFor(adapter.name());
    }

    /** The chosen adapter's warnings about the node; an adapter that fails here is one more warning. */
    private List<String> warnings(LoadedAdapter adapter, NodeView node)
    {
        try {
            return List.copyOf(adapter.adapter().warnings(node, settingsFor(adapter)));
        }
        catch (RuntimeException e) {
            return List.of("adapter " + adapter.name() + " failed to list warnings: " + e.getMessage());
        }
    }

    private List<ConfigTarget> chosenTargets(LoadedAdapter adapter, NodeView node)
    {
        return List.copyOf(adapter.adapter().authoritativeConfigs(node, settingsFor(adapter)));
    }

    private Optional<List<ConfigTarget>> targets(LoadedAdapter adapter, NodeView node)
    {
        try {
            return Optional.of(chosenTargets(adapter, node));
        }
        catch (RuntimeException e) {
            log.debug("adapter {} failed to list its files: {}", adapter.name(), e.toString());
            return Optional.empty();
        }
    }

    private Candidate detect(LoadedAdapter adapter, NodeView node)
    {
        try {
            return new Candidate(adapter, requireNonNull(adapter.adapter().detect(node, settingsFor(adapter)), "detect returned null"), Optional.empty());
        }
        catch (RuntimeException e) {
            String failure = describe(adapter, e);
            log.warn("{}", failure);
            return new Candidate(adapter, Detection.none(), Optional.of(failure));
        }
    }

    private static String describe(LoadedAdapter adapter, RuntimeException e)
    {
        if (e instanceof AdapterException ae) {
            return "adapter " + adapter.name() + ": " + ae.getMessage() + " [" + ae.code() + "]";
        }
        return "adapter " + adapter.name() + " failed: " + e;
    }

    /**
     * One adapter's detection.
     *
     * @param adapter   the adapter
     * @param detection its score and evidence
     * @param failure   why it could not score the node, if it threw
     */
    public record Candidate(LoadedAdapter adapter, Detection detection, Optional<String> failure) {}

    /**
     * What the selector decided.
     *
     * @param chosen     the deciding adapter
     * @param settings   its settings
     * @param why        why it was chosen
     * @param candidates the adapters considered, with their detections
     * @param targets    the files to patch: the adapter's, and the configuration the runtime loads
     * @param named      the resolved files the adapter itself named (only those are its business: it is asked
     *                   whether they are complete)
     * @param notes      ties, and other adapters that would patch something when the chosen one does not
     * @param warnings    the chosen adapter's warnings about the node
     * @param failure     why the chosen adapter could not list its files, if it failed
     * @param unpatchable why the configuration the runtime loads cannot carry our entry, when it cannot (a link out
     *                    of the allowed roots): nothing is written there, and the node is not ready
     * @param judged      the adapter's answers to {@link #incompleteReason} already given, by resolved file
     */
    public record Selection(LoadedAdapter chosen, AdapterSettings settings, String why, List<Candidate> candidates, List<ConfigTarget> targets,
            Set<Path> named, List<String> notes, List<String> warnings, Optional<String> failure, Optional<String> unpatchable, Map<Path, Judged> judged)
    {
        public Selection
        {
            requireNonNull(chosen, "chosen is null");
            requireNonNull(settings, "settings is null");
            candidates = List.copyOf(candidates);
            targets = List.copyOf(targets);
            named = Set.copyOf(named);
            notes = List.copyOf(notes);
            warnings = List.copyOf(warnings);
            requireNonNull(failure, "failure is null");
            requireNonNull(unpatchable, "unpatchable is null");
            judged = Map.copyOf(judged);
        }

        /**
         * @param target one of the targets
         * @return whether the file is complete enough to patch, by the adapter's judgement when the adapter named it
         */
        public Optional<String> incompleteReason(ConfigTarget target, CniConfig config)
        {
            if (!named.contains(target.resolvedFile())) {
                return Optional.empty();
            }
            // The same parse the decision judged (the engine patches from what the pass read): the same answer.
            Judged already = judged.get(target.resolvedFile());
            return already != null && already.config() == config ? already.incompleteReason() : chosen.adapter().incompleteReason(target, config, settings);
        }
    }
}
