package io.cnichain.core.discovery;

import io.cnichain.core.fs.Resolution;
import io.cnichain.core.fs.SymlinkResolver;
import io.cnichain.core.fs.linux.FileSystemCalls;
import io.cnichain.core.fs.linux.PathNames;
import io.cnichain.spi.ConfigEntry;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every entry of the configuration directory, in the runtime's order, with its links resolved.
 *
 * @param entries      by name, in byte order
 * @param readableOnly files the runtime reads but we may not write, by entry path
 * @param problem      why the directory could not be listed, when it could not
 * @param unnameable   entries whose names the JVM cannot name (not valid in its path encoding)
 */
record ConfDirListing(Map<String, ConfigEntry> entries, Map<Path, Path> readableOnly, Optional<String> problem,
                      List<FileSystemCalls.EntryName> unnameable)
{
    /** The problems that say the directory holds nothing the runtime loads; any other leaves what it holds unknown. */
    static final String ABSENT = ": does not exist";
    static final String NOT_A_DIRECTORY = ": is not a directory";

    static ConfDirListing list(NodeLayout layout, SymlinkResolver resolver)
    {
        Path directory = layout.containerConfDir();
        List<String> names = new ArrayList<>();
        List<FileSystemCalls.EntryName> unnameable = new ArrayList<>();
        Optional<String> problem = Optional.empty();
        try {
            // Names are bytes: listed as the kernel has them, and kept only where the JVM can name those very bytes.
            for (FileSystemCalls.EntryName name : FileSystemCalls.get().listNames(directory)) {
                Optional<Path> path = name.exact() ? PathNames.toPath(directory, name.bytes()) : Optional.empty();
                if (path.isPresent()) {
                    names.add(path.get().getFileName().toString());
                }
                else {
                    unnameable.add(name);
                }
            }
        }
        catch (NoSuchFileException e) {
            problem = Optional.of(layout.confDir() + ABSENT);
        }
        catch (NotDirectoryException e) {
            problem = Optional.of(layout.confDir() + NOT_A_DIRECTORY);
        }
        catch (IOException e) {
            problem = Optional.of(layout.confDir() + ": cannot be listed: " + io.cnichain.core.fs.AtomicFileWriter.describe(e));
        }
        names.sort(NodeSnapshot.BYTE_ORDER);
        Map<String, ConfigEntry> entries = new LinkedHashMap<>();
        Map<Path, Path> readableOnly = new ConcurrentHashMap<>();
        for (String name : names) {
            entries.put(name, toEntry(resolver, layout.confDir().resolve(name), readableOnly));
        }
        return new ConfDirListing(entries, readableOnly, problem, List.copyOf(unnameable));
    }

    static ConfigEntry toEntry(SymlinkResolver resolver, Path hostPath, Map<Path, Path> readableOnly)
    {
        return toEntry(resolver.resolve(hostPath), hostPath, readableOnly);
    }

    /** {@link #toEntry(SymlinkResolver, Path, Map)} from a resolution already made. */
    static ConfigEntry toEntry(Resolution resolution, Path hostPath, Map<Path, Path> readableOnly)
    {
        if (resolution.target().isEmpty()) {
            if (resolution.readable().isPresent()) {
                readableOnly.put(resolution.path(), resolution.readable().get());
            }
        }
        String name = hostPath.getFileName() == null ? "/" : hostPath.getFileName().toString();
        ConfigEntry.EntryKind kind = resolution.kind().orElse(ConfigEntry.EntryKind.OTHER);
        return new ConfigEntry(
                name,
                resolution.path(),
                kind,
                resolution.chain(),
                resolution.target(),
                resolution.problem(),
                // libcni skips directories; a link to one it tries to read, and fails on.
                ConfigNames.isRuntimeLoadable(name) && kind != ConfigEntry.EntryKind.DIRECTORY);
    }
}
