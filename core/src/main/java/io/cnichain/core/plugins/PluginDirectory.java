package io.cnichain.core.plugins;

import org.pf4j.PluginRepository;
import org.pf4j.util.Unzip;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * The plugins directory as pf4j's {@link PluginRepository}: the plugin files in it (regular files, links
 * followed, named {@code *.jar} or {@code *.zip}, not hidden, in name order) that pass the
 * {@link PluginPermissions permission gate}. A jar is copied, and a pf4j zip expanded, into a private temp directory
 * (mode 0700, deleted when the agent exits), and loaded from there once its source is seen unchanged since the check;
 * never beside the zip as pf4j's own repository does:
 * the plugins directory may be read-only and stays as the operator made it. The directory is read once; every
 * file refused here is in {@link #problems()}, once, with the reason.
 */
final class PluginDirectory
        implements PluginRepository
{
    private static final Logger log = LoggerFactory.getLogger(PluginDirectory.class);

    private final Path directory;
    private final PluginPermissions permissions;
    private final List<String> problems = new ArrayList<>();
    /** The zip each expanded directory came from. */
    private final Map<Path, Path> sources = new ConcurrentHashMap<>();
    private List<Path> paths;

    PluginDirectory(Path directory, PluginPermissions permissions)
    {
        this.directory = requireNonNull(directory, "directory is null");
        this.permissions = requireNonNull(permissions, "permissions is null");
    }

    Path root()
    {
        return directory;
    }

    /**
     * @return the jars and expanded zips to load, in name order (read on the first call)
     */
    @Override
    public synchronized List<Path> getPluginPaths()
    {
        if (paths == null) {
            paths = List.copyOf(read());
        }
        return paths;
    }

    /** Never: the plugins directory is the operator's; the agent removes nothing from it. */
    @Override
    public boolean deletePluginPath(Path pluginPath)
    {
        return false;
    }

    /**
     * @return one line per file refused while reading the directory (or about the directory), each naming the file
     */
    synchronized List<String> problems()
    {
        getPluginPaths();
        return List.copyOf(problems);
    }

    /**
     * @param loaded a path from {@link #getPluginPaths()}
     * @return the file in the plugins directory it stands for: the zip of an expanded zip, else itself
     */
    Path sourceOf(Path loaded)
    {
        return sources.getOrDefault(loaded, loaded);
    }

    private List<Path> read()
    {
        List<Path> result = new ArrayList<>();
        if (!Files.exists(directory)) {
            log.debug("No plugins directory {}: no plugin adapters", directory);
            return result;
        }
        if (!Files.isDirectory(directory)) {
            problems.add(directory + ": the plugins directory is not a directory; no plugin adapters loaded");
            return result;
        }
        List<Path> files;
        try {
            files = candidates(directory);
        }
        catch (IOException | UncheckedIOException e) {
            problems.add(directory + ": the plugins directory cannot be listed: " + e.getMessage());
            return result;
        }
        if (files.isEmpty()) {
            log.debug("No plugin jars in {}", directory);
            return result;
        }
        Optional<String> unsafeDirectory = permissions.checkDirectory(directory);
        for (Path file : files) {
            Optional<String> unsafe = unsafeDirectory.or(() -> permissions.checkFile(file));
            if (unsafe.isPresent()) {
                problems.add(file + ": refused: " + unsafe.get());
            }
            else if (isZip(file)) {
                expand(file).ifPresent(result::add);
            }
            else {
                privateCopy(file).ifPresent(result::add);
            }
        }
        return result;
    }

    /** Regular files (links followed) named *.jar or *.zip, not hidden, in name order; any other entry of such a name is a problem. */
    private List<Path> candidates(Path directory)
            throws IOException
    {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
            for (Path path : stream) {
                String name = path.getFileName().toString();
                String lower = name.toLowerCase(Locale.ROOT);
                if (name.startsWith(".") || !(lower.endsWith(".jar") || lower.endsWith(".zip"))) {
                    log.debug("Ignoring {} in the plugins directory: not a .jar or .zip", path);
                    continue;
                }
                if (!Files.isRegularFile(path)) {
                    problems.add(path + ": refused: " + (Files.isDirectory(path) ? "a directory" : Files.isSymbolicLink(path)
                            ? "a link that leads to no regular file" : "not a regular file (a FIFO, a socket or a device)"));
                    continue;
                }
                files.add(path);
            }
        }
        files.sort(Comparator.comparing(p -> p.getFileName().toString()));
        return files;
    }

    private static boolean isZip(Path file)
    {
        return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".zip");
    }

    /**
     * What was checked is what is loaded: the jar is copied into the private directory, and the copy is loaded only
     * when the file it came from is still the one checked (same file, same owner and mode) once the copy is made.
     */
    private Optional<Path> privateCopy(Path jar)
    {
        try {
            Path real = jar.toRealPath();
            Object before = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            Path copy = WorkDirectory.get().resolve(System.nanoTime() + "-" + jar.getFileName());
            Files.copy(real, copy, LinkOption.NOFOLLOW_LINKS);
            Object after = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            Optional<String> unsafe = permissions.checkFile(jar);
            if (before == null || !before.equals(after) || !jar.toRealPath().equals(real) || unsafe.isPresent()) {
                Files.deleteIfExists(copy);
                problems.add(jar + ": refused: it changed while it was checked" + unsafe.map(reason -> " (" + reason + ")").orElse(""));
                return Optional.empty();
            }
            sources.put(copy, jar);
            return Optional.of(copy);
        }
        catch (IOException e) {
            problems.add(jar + ": refused: cannot be copied for loading: " + e.getMessage());
            return Optional.empty();
        }
    }

    /** A plugin zip holds a jar or two and their libraries; more than this expanded is not one (a zip bomb). */
    static final long MAX_EXPANDED_BYTES = 64L * 1024 * 1024;
    static final int MAX_ENTRIES = 10_000;

    /**
     * pf4j's Unzip (which refuses entries that would land outside the target), into the private directory, once the
     * zip's own directory says it expands to at most {@value #MAX_EXPANDED_BYTES} bytes in at most {@value #MAX_ENTRIES}
     * entries (an entry that holds more than it says fails as it is read).
     */
    private Optional<Path> expand(Path zip)
    {
        try (java.util.zip.ZipFile file = new java.util.zip.ZipFile(zip.toFile())) {
            long total = 0;
            int entries = 0;
            for (var each = file.entries(); each.hasMoreElements(); ) {
                java.util.zip.ZipEntry entry = each.nextElement();
                total += Math.max(0, entry.getSize());
                if (++entries > MAX_ENTRIES || entry.getSize() < 0 || total > MAX_EXPANDED_BYTES) {
                    problems.add(zip + ": refused: it expands to more than " + MAX_EXPANDED_BYTES / (1024 * 1024) + " MiB or "
                            + MAX_ENTRIES + " entries (or does not say how much); a plugin is a jar or two");
                    return Optional.empty();
                }
            }
        }
        catch (IOException e) {
            problems.add(zip + ": refused: not a readable zip: " + e.toString().lines().findFirst().orElse("").strip());
            return Optional.empty();
        }
        try {
            Path target = WorkDirectory.get().resolve(zip.getFileName().toString() + "-" + System.nanoTime());
            new Unzip(zip.toFile(), target.toFile()).extract();
            sources.put(target, zip);
            return Optional.of(target);
        }
        catch (IOException e) {
            problems.add(zip + ": refused: not a readable zip: " + e.toString().lines().findFirst().orElse("").strip());
            return Optional.empty();
        }
    }

    /**
     * Where jars are copied and zips expanded: one private temp directory per process, deleted when it exits. An exit
     * that skips the shutdown hooks (kill -9, a second signal, the shutdown watchdog) leaves it behind, and the pod's
     * small {@code /tmp} (an emptyDir that outlives container restarts) fills up: so each directory holds a lock its
     * process keeps while it lives, and the first to need one deletes those whose lock is free (their process is gone).
     */
    private static final class WorkDirectory
    {
        private static final String PREFIX = "cni-chain-plugins-";
        private static final String LOCK = ".lock";
        private static Path directory;
        /** Held until the process ends; the kernel releases it then, however it ends. */
        private static java.nio.channels.FileLock lock;

        static synchronized Path get()
                throws IOException
        {
            if (directory == null) {
                Path created = Files.createTempDirectory(PREFIX);
                lock = java.nio.channels.FileChannel.open(created.resolve(LOCK), java.nio.file.StandardOpenOption.CREATE_NEW,
                        java.nio.file.StandardOpenOption.WRITE).lock();
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(created), "delete-expanded-plugins"));
                directory = created;
                deleteAbandoned(created.getParent(), created);
            }
            return directory;
        }

        /** Deletes the directories of processes that are gone: their lock can be taken. */
        private static void deleteAbandoned(Path temp, Path ours)
        {
            try (Stream<Path> entries = Files.list(temp)) {
                for (Path dir : entries.filter(path -> path.getFileName().toString().startsWith(PREFIX) && !path.equals(ours)).toList()) {
                    try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(dir.resolve(LOCK),
                            java.nio.file.StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                        java.nio.channels.FileLock free = channel.tryLock();
                        if (free != null) {
                            free.release();
                            delete(dir);
                        }
                    }
                    catch (IOException | java.nio.channels.OverlappingFileLockException e) {
                        // No lock file (being made, or not ours to judge), or held: left alone.
                    }
                }
            }
            catch (IOException | UncheckedIOException e) {
                // The temp directory cannot be listed: nothing to clean, nothing lost.
            }
        }

        private static void delete(Path root)
        {
            try (Stream<Path> walk = Files.walk(root)) {
                walk.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
            catch (IOException | UncheckedIOException e) {
                // Best effort at exit; it is a temp directory.
            }
        }
    }
}
