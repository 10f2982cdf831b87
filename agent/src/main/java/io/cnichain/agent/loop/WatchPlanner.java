package io.cnichain.agent.loop;

import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.discovery.DropIns;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.host.HostPaths;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Decides what to watch: always the configuration directory, the service-account directory and the bin directory;
 * then, from the adapter's decision, the directory of every file we patch and of every link on the way to it
 * (re-pointing a link, or replacing a file in another directory, says nothing in the configuration directory), the
 * plugin directory of our drop-in, and
 * the adapter's own {@code watchDirectories}; and the directory a dangling link of the conf dir points into, where its
 * target may appear.
 */
final class WatchPlanner
{
    private static final Logger log = LoggerFactory.getLogger(WatchPlanner.class);

    private final Engine engine;
    private final HostPaths host;

    WatchPlanner(Engine engine)
    {
        this.engine = requireNonNull(engine, "engine is null");
        this.host = engine.host();
    }

    /** @return the plan before any decision: the three fixed directories */
    WatchPlan initial()
    {
        return plan(Map.of());
    }

    /**
     * @param selection the adapter's decision of the last pass
     * @param snapshot  the node as that pass saw it (we never write links, so the chains to its targets are the same after it)
     * @return the plan that follows from it
     */
    WatchPlan plan(Selection selection, NodeSnapshot snapshot)
    {
        Map<Path, Set<String>> names = new LinkedHashMap<>();
        for (ConfigTarget target : selection.targets()) {
            add(names, target.resolvedFile());
            for (Path link : snapshot.inspect(target.path()).linkChain()) {
                add(names, link);
            }
            // A drop-in deleted or changed says nothing in the conf dir: its plugin directory is watched too.
            engine.installer().dropInFile(target, snapshot).ifPresent(file -> {
                add(names, file);
                namesIn(names, host.toContainer(file.getParent())).add(WatchPlan.ANY_DROP_IN);
            });
        }
        // A list that a broken drop-in keeps from loading, before the one that loads (or anywhere, when none does): fixed
        // in its plugin directory, it loads again, and the conf dir hears nothing of it. The effective file's rule has
        // read these lists already.
        Optional<ConfigEntry> effective = snapshot.effectiveConfig();
        for (ConfigEntry entry : snapshot.entries()) {
            if (effective.isPresent() && entry.name().equals(effective.get().name())) {
                break;
            }
            if (entry.runtimeLoadable()) {
                DropIns.Reading dropIns = snapshot.dropIns(entry);
                if (dropIns.failure().isPresent() && dropIns.directory().isPresent()) {
                    namesIn(names, host.toContainer(dropIns.directory().get())).add(WatchPlan.ANY_DROP_IN);
                }
            }
        }
        // A link the runtime would load that leads nowhere yet: when its target appears in another directory, the conf
        // dir hears nothing of it. Its directory is watched (or, while missing, its nearest existing parent).
        for (ConfigEntry entry : snapshot.entries()) {
            if (entry.runtimeLoadable() && entry.isSymlink() && !entry.resolves()) {
                Optional<Path> target = danglingTarget(entry);
                if (target.isPresent()) {
                    add(names, target.get());
                }
            }
        }
        try {
            for (Path extra : selection.chosen().adapter().watchDirectories(snapshot, selection.settings())) {
                namesIn(names, host.toContainer(extra));
            }
        }
        catch (RuntimeException e) {
            log.warn("adapter {} failed to name its directories: {}", selection.chosen().name(), e.getMessage());
        }
        names.remove(host.toContainer(engine.config().paths().confDir()));
        return plan(names);
    }

    /** @return where the last link on the entry's way points (a host path), when that lies in the allowed roots */
    private Optional<Path> danglingTarget(ConfigEntry entry)
    {
        Path last = entry.linkChain().isEmpty() ? entry.path() : entry.linkChain().get(entry.linkChain().size() - 1);
        try {
            Path target = Files.readSymbolicLink(host.toContainer(last));
            Path hostTarget = target.isAbsolute() ? target.normalize() : last.getParent().resolve(target).normalize();
            for (Path root : engine.config().paths().allowedRoots()) {
                if (hostTarget.startsWith(root) && !hostTarget.equals(root)) {
                    return Optional.of(hostTarget);
                }
            }
            return Optional.empty();
        }
        catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }

    private void add(Map<Path, Set<String>> names, Path hostFile)
    {
        Path file = host.toContainer(hostFile);
        namesIn(names, file.getParent()).add(file.getFileName().toString());
    }

    private static Set<String> namesIn(Map<Path, Set<String>> names, Path directory)
    {
        Set<String> in = names.get(directory);
        if (in == null) {
            in = new HashSet<>();
            names.put(directory, in);
        }
        return in;
    }

    private WatchPlan plan(Map<Path, Set<String>> targetDirNames)
    {
        var config = engine.config();
        // The kubeconfig's token: the service account's volume, or the file the agent keeps the plugin's requested token in.
        return new WatchPlan(host, host.toContainer(config.paths().confDir()), config.kubeconfig().tokenFile(config.apiServer()).getParent(),
                host.toContainer(config.paths().binDir()), config.kubeconfig().fileName(), this::binaryNames, targetDirNames);
    }

    /** The binaries install copies, and the plugin's own even when its source is gone (then it cannot come back). */
    private List<String> binaryNames()
    {
        List<String> names = new ArrayList<>(engine.installer().binaryNames());
        String plugin = engine.config().plugin().type();
        if (!names.contains(plugin)) {
            names.add(plugin);
        }
        return names;
    }
}
