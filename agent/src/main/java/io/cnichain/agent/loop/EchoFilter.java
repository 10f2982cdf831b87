package io.cnichain.agent.loop;

import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.host.HostPaths;
import io.cnichain.spi.ConfigEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Tells our own write coming back from another writer's change, for every configuration file a wake-up reported. */
final class EchoFilter
{
    private static final Logger log = LoggerFactory.getLogger(EchoFilter.class);

    /** Changes to other files are summed up at most this often at INFO; each is at DEBUG. */
    private static final long SUMMARY_NANOS = 1_000_000_000L;

    private final HostPaths host;
    private final Path confDir;
    private final WrittenFiles files;
    private int quietChanges;
    private String quietExample;
    private long lastSummaryNanos;

    EchoFilter(HostPaths host, Path confDir, WrittenFiles files)
    {
        this.host = host;
        this.confDir = confDir;
        this.files = files;
    }

    boolean anyRealChange(Map<Path, EventKind> files, NodeSnapshot snapshot, long seenNanos)
    {
        boolean real = false;
        Set<Path> linkedTo = null;
        for (Map.Entry<Path, EventKind> file : files.entrySet()) {
            ConfigEntry entry = snapshot.inspect(file.getKey());
            boolean other = isOtherFile(file.getKey(), entry);
            if (other && linkedTo == null) {
                linkedTo = loadedThroughLinks(snapshot);
            }
            if (other && !linkedTo.contains(file.getKey())) {
                // Not a name the runtime loads, and nothing we wrote: an adapter may still claim it (a
                // .conflist-current before its link exists), so it is looked at, but a storm of them is not logged line by line.
                log.debug("Detected event: {} {}; not a configuration the runtime loads", file.getValue(), file.getKey());
                quietChanges++;
                quietExample = quietExample == null ? file.getKey().getFileName().toString() : quietExample;
                real = true;
                continue;
            }
            real |= isRealChange(file.getKey(), file.getValue(), entry, snapshot, seenNanos);
        }
        summarize(seenNanos);
        return real;
    }

    private boolean isOtherFile(Path path, ConfigEntry entry)
    {
        return confDir.equals(path.getParent()) && !entry.runtimeLoadable() && !entry.isSymlink()
                && entry.resolvedFile().filter(files::wrote).isEmpty();
    }

    /** Files the runtime loads through a link of the conf dir (OCI's {@code 10-oci.conflist-current}), not by their own name. */
    private static Set<Path> loadedThroughLinks(NodeSnapshot snapshot)
    {
        Set<Path> files = new HashSet<>();
        for (ConfigEntry entry : snapshot.entries()) {
            if (entry.runtimeLoadable() && entry.isSymlink()) {
                entry.resolvedFile().ifPresent(files::add);
            }
        }
        return files;
    }

    private void summarize(long nowNanos)
    {
        if (quietChanges > 0 && nowNanos - lastSummaryNanos >= SUMMARY_NANOS) {
            log.info("{} change(s) to files in {} that the runtime does not load as configurations (for example {}); details at debug level",
                    quietChanges, confDir, quietExample);
            quietChanges = 0;
            quietExample = null;
            lastSummaryNanos = nowNanos;
        }
    }

    private boolean isRealChange(Path path, EventKind kind, ConfigEntry entry, NodeSnapshot snapshot, long seenNanos)
    {
        Optional<Path> resolved = entry.resolvedFile();
        if (entry.isSymlink()) {
            // We never write links: this is someone else's doing, even when it leads to a file we wrote.
            if (resolved.isEmpty()) {
                log.info("Link {} {}; it does not resolve: {}", path, linkVerb(kind), entry.problem().orElse(""));
                return true;
            }
            log.info("Link {} {}; it resolves to {}", path, linkVerb(kind), resolved.get());
            log.info("New/changed file [{}] detected; re-installing", path);
            return true;
        }
        if (resolved.isPresent()) {
            if (files.isEcho(entry, snapshot)) {
                log.info("Ignoring event: {} {}; written by us", kind, path);
                return false;
            }
            files.changed(resolved.get(), seenNanos);
            if (!resolved.get().equals(path)) {
                log.info("File {} resolves to {}", path, resolved.get());
            }
            log.info("New/changed file [{}] detected; re-installing", path);
        }
        else if (!Files.exists(host.toContainer(path), LinkOption.NOFOLLOW_LINKS)) {
            if (files.deleted(path)) {
                // No undoing of our write: the conversion never hands the runtime another file (ConfigFileUpdater).
                log.info("Ignoring event: {} {}; deleted by our conversion", kind, path);
                return false;
            }
            log.info("Detected event: {} {}; the file is gone", kind, path);
            // A file we wrote deleted undoes our write too (our drop-in, deleted as soon as it appears).
            files.changed(path, seenNanos);
        }
        else {
            log.info("Detected event: {} {}: {}", kind, path, entry.problem().orElse(""));
        }
        return true;
    }

    private static String linkVerb(EventKind kind)
    {
        return kind == EventKind.CREATE ? "created" : "changed";
    }
}
