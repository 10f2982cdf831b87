package io.cnichain.agent.loop;

import io.cnichain.core.discovery.ConfigNames;
import io.cnichain.core.discovery.DropIns;
import io.cnichain.core.host.HostPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * Which directories the agent watches (paths as the agent sees them) and what an event in each of them means. Made
 * by the {@link WatchPlanner} after every pass; immutable.
 *
 * @param host              where the host filesystem is mounted
 * @param confDir           the configuration directory
 * @param serviceAccountDir the service-account directory (token rotation)
 * @param binDir            the bin directory (our binaries)
 * @param kubeconfigName    the name of our kubeconfig in the configuration directory
 * @param binaryNames       the names of our binaries (read when needed: the image's directory lists them)
 * @param targetDirNames    every other directory to watch, with the names in it that lead to a file we patch
 *                          (the directory of each such file and of each link on the way; none for an adapter's
 *                          extra directories; {@link #ANY_DROP_IN} for our drop-in's plugin directory, where every
 *                          drop-in counts)
 */
record WatchPlan(HostPaths host, Path confDir, Path serviceAccountDir, Path binDir, String kubeconfigName,
        Supplier<List<String>> binaryNames, Map<Path, Set<String>> targetDirNames)
{
    /** In a plugin directory's names: every {@code *.conf} there changes what the runtime runs. */
    static final String ANY_DROP_IN = "*" + DropIns.EXTENSION;

    private static final Logger log = LoggerFactory.getLogger(WatchPlan.class);

    WatchPlan
    {
        requireNonNull(host, "host is null");
        requireNonNull(confDir, "confDir is null");
        requireNonNull(serviceAccountDir, "serviceAccountDir is null");
        requireNonNull(binDir, "binDir is null");
        requireNonNull(kubeconfigName, "kubeconfigName is null");
        requireNonNull(binaryNames, "binaryNames is null");
        Map<Path, Set<String>> copy = new LinkedHashMap<>();
        for (Map.Entry<Path, Set<String>> entry : targetDirNames.entrySet()) {
            copy.put(entry.getKey(), Set.copyOf(entry.getValue()));
        }
        targetDirNames = Collections.unmodifiableMap(copy);
    }

    /** @return every directory to watch */
    Set<Path> directories()
    {
        Set<Path> wanted = new LinkedHashSet<>();
        wanted.add(confDir);
        wanted.add(serviceAccountDir);
        wanted.add(binDir);
        wanted.addAll(targetDirNames.keySet());
        return wanted;
    }

    /**
     * Says what an event asks of the next pass, and notes it in {@code request}.
     *
     * @param event   the event
     * @param request what the wake-up asks so far
     */
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
            if (binaryNames.get().contains(name)) {
                // Our own write echoes here too: the check compares bytes with the source and writes only on a
                // difference, so the echo costs a comparison and nothing more.
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
