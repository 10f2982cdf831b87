package io.cnichain.agent.loop;

import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.discovery.ConfigNames;
import io.cnichain.core.discovery.DropIns;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.fs.SymlinkResolver;
import io.cnichain.core.host.HostPaths;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Which directories the agent watches (paths as the agent sees them) and what an event in each of them means, made
 * from the adapter's decision after every pass.
 *
 * @param isBinary       whether a name in the bin dir is one of our binaries, read when asked: the image's directory lists them
 * @param targetDirNames every other directory to watch, with the names in it that lead to a file we patch (none for an
 *                       adapter's extra directories; {@link #ANY_DROP_IN} where every drop-in counts)
 */
record WatchPlan(HostPaths host, Path confDir, Path serviceAccountDir, Path binDir, String kubeconfigName,
        Predicate<String> isBinary, Map<Path, Set<String>> targetDirNames)
{
    static final String ANY_DROP_IN = "*" + DropIns.EXTENSION;

    private static final Logger log = LoggerFactory.getLogger(WatchPlan.class);

    static WatchPlan initial(Engine engine)
    {
        return of(engine, Map.of());
    }

    /**
     * Beyond the three fixed directories, the directory of every file we patch and of every link on the way to it:
     * re-pointing a link, or replacing a file in another directory, says nothing in the conf dir. We never write links,
     * so the chains the pass saw are the same after it.
     */
    static WatchPlan of(Engine engine, Selection selection, NodeSnapshot snapshot)
    {
        HostPaths host = engine.host();
        Map<Path, Set<String>> names = new LinkedHashMap<>();
        for (ConfigTarget target : selection.targets()) {
            add(host, names, target.resolvedFile());
            for (Path link : snapshot.inspect(target.path()).linkChain()) {
                add(host, names, link);
            }
            // A drop-in written, deleted or changed says nothing in the conf dir: libcni 1.3 appends them to the list, and
            // a broken one makes it load another file. The list's plugin directory is watched whatever the placement.
            engine.installer().dropInFile(target, snapshot).ifPresent(file -> add(host, names, file));
            snapshot.dropIns(snapshot.inspect(target.path())).directory()
                    .ifPresent(directory -> namesIn(names, host.toContainer(directory)).add(ANY_DROP_IN));
        }
        // A file before the runtime's that does not load yet loads once it is fixed, unheard in the conf dir when it lies
        // behind a link in another directory, or when a broken drop-in in its plugin directory keeps it from loading.
        Optional<ConfigEntry> effective = snapshot.effectiveConfig();
        for (ConfigEntry entry : snapshot.entries()) {
            if (effective.isPresent() && entry.name().equals(effective.get().name())) {
                break;
            }
            if (entry.runtimeLoadable()) {
                entry.resolvedFile().ifPresent(file -> add(host, names, file));
                entry.linkChain().forEach(link -> add(host, names, link));
                DropIns.Reading dropIns = snapshot.dropIns(entry);
                if (dropIns.failure().isPresent() && dropIns.directory().isPresent()) {
                    namesIn(names, host.toContainer(dropIns.directory().get())).add(ANY_DROP_IN);
                }
            }
        }
        // A dangling link the runtime would load: its target may appear in another directory, unheard in the conf dir.
        for (ConfigEntry entry : snapshot.entries()) {
            if (entry.runtimeLoadable() && entry.isSymlink() && !entry.resolves()) {
                danglingTarget(engine, entry).ifPresent(target -> add(host, names, target));
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
        return of(engine, names);
    }

    private static WatchPlan of(Engine engine, Map<Path, Set<String>> targetDirNames)
    {
        HostPaths host = engine.host();
        var config = engine.config();
        // The kubeconfig's token: the service account's volume, or the file the agent keeps the plugin's requested token in.
        // Our binaries: those install copies, and the plugin's own even when its source is gone (then it cannot come back).
        return new WatchPlan(host, host.toContainer(config.paths().confDir()), config.kubeconfig().tokenFile(config.apiServer()).getParent(),
                host.toContainer(config.paths().binDir()), config.kubeconfig().fileName(),
                name -> name.equals(config.plugin().type()) || engine.installer().binaryNames().contains(name), targetDirNames);
    }

    /**
     * @return where the entry's dangling way stops (a host path), when that lies in the allowed roots; or, when its file
     *         appeared since the pass looked, that file, so that its directory is watched and looked at again
     */
    private static Optional<Path> danglingTarget(Engine engine, ConfigEntry entry)
    {
        List<Path> roots = engine.config().paths().allowedRoots();
        return new SymlinkResolver(engine.host(), roots).wayEnd(entry.path())
                .filter(missing -> roots.stream().anyMatch(root -> missing.startsWith(root) && !missing.equals(root)));
    }

    private static void add(HostPaths host, Map<Path, Set<String>> names, Path hostFile)
    {
        Path file = host.toContainer(hostFile);
        namesIn(names, file.getParent()).add(file.getFileName().toString());
    }

    private static Set<String> namesIn(Map<Path, Set<String>> names, Path directory)
    {
        return names.computeIfAbsent(directory, in -> new HashSet<>());
    }

    Set<Path> directories()
    {
        Set<Path> wanted = new LinkedHashSet<>();
        wanted.add(confDir);
        wanted.add(serviceAccountDir);
        wanted.add(binDir);
        wanted.addAll(targetDirNames.keySet());
        return wanted;
    }

    /** Says what an event asks of the next pass, and notes it in {@code request}. */
    void classify(EventIntake.Event event, PassRequest request)
    {
        Path directory = event.directory();
        String name = event.name();
        if (directory.equals(serviceAccountDir)) {
            if (name.equals("..data")) {
                log.info("Detected change in service account files; recreating kubeconfig file");
            }
            request.kubeconfigChanged();
            return;
        }
        if (directory.equals(binDir)) {
            if (isBinary.test(name)) {
                // Our own write echoes here too, and costs a comparison: the check writes only on a difference.
                log.debug("Detected event: {} {}; checking our binaries", event.kind(), host.toHost(directory.resolve(name)));
                request.binariesChanged();
            }
            return;
        }
        boolean inConfDir = directory.equals(confDir);
        if (!inConfDir && !targetDirNames.containsKey(directory)) {
            log.debug("Ignoring event {} {} in {}", event.kind(), name, directory);
            return;
        }
        Path hostPath = host.toHost(directory.resolve(name));
        if (inConfDir && name.equals(kubeconfigName)) {
            request.kubeconfigChanged();
            return;
        }
        if (ConfigNames.isNeverConfig(name)) {
            log.debug("Ignoring event: {} {}; not a configuration", event.kind(), hostPath);
            return;
        }
        if (!inConfDir && !targetDirNames.get(directory).contains(name)
                && !(name.endsWith(DropIns.EXTENSION) && targetDirNames.get(directory).contains(ANY_DROP_IN))) {
            log.debug("Ignoring event: {} {}; not a file we patch", event.kind(), hostPath);
            return;
        }
        request.configFileChanged(hostPath, event.kind());
    }
}
