package io.cnichain.core.plugins;

import io.cnichain.core.adapters.AdapterCalls;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.spi.AdapterException;
import io.cnichain.spi.CniPlatformAdapter;
import org.pf4j.InvalidPluginDescriptorException;
import org.pf4j.PluginDescriptor;
import org.pf4j.PluginRuntimeException;
import org.pf4j.PluginWrapper;
import org.pf4j.util.Unzip;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipFile;

import static java.util.Objects.requireNonNull;

/**
 * Loads the adapters of the jars (and pf4j zips) in the plugins directory with pf4j, one class loader per
 * file. Every file is reported once: loaded (one info line naming its adapters) or refused (one line naming the
 * file and the reason: unsafe permissions, no descriptor, not a readable jar, built for another SPI, a class
 * that does not load, a constructor that throws or hangs). A refused file never stops the others.
 */
public final class PluginJarLoader
{
    private static final Logger log = LoggerFactory.getLogger(PluginJarLoader.class);
    private static final String SPI_PATH = CniPlatformAdapter.class.getPackageName().replace('.', '/') + "/";

    private final Duration limit;
    private final PluginPermissions permissions;

    /**
     * @param limit how long an adapter's constructor (and, later, each call) may take
     */
    public PluginJarLoader(Duration limit)
    {
        this(limit, PluginPermissions.forThisProcess());
    }

    PluginJarLoader(Duration limit, PluginPermissions permissions)
    {
        this.limit = requireNonNull(limit, "limit is null");
        this.permissions = requireNonNull(permissions, "permissions is null");
    }

    /**
     * What came of a plugins directory.
     *
     * @param adapters the adapters loaded, each behind a guard
     * @param problems one line per file or class refused, each naming the file
     */
    public record Result(List<LoadedAdapter> adapters, List<String> problems)
    {
        public Result
        {
            adapters = List.copyOf(adapters);
            problems = List.copyOf(problems);
        }
    }

    /**
     * @param directory the plugins directory (a container path); a missing directory means no plugins
     * @return the adapters and the problems
     */
    public Result load(Path directory)
    {
        List<LoadedAdapter> adapters = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        if (!Files.exists(directory)) {
            log.debug("No plugins directory {}: no plugin adapters", directory);
            return new Result(adapters, problems);
        }
        if (!Files.isDirectory(directory)) {
            problems.add(report(directory + ": the plugins directory is not a directory; no plugin adapters loaded"));
            return new Result(adapters, problems);
        }
        List<Path> files;
        try {
            files = candidates(directory);
        }
        catch (IOException | UncheckedIOException e) {
            problems.add(report(directory + ": the plugins directory cannot be listed: " + e.getMessage()));
            return new Result(adapters, problems);
        }
        if (files.isEmpty()) {
            log.debug("No plugin jars in {}", directory);
            return new Result(adapters, problems);
        }
        Optional<String> unsafeDirectory = permissions.checkDirectory(directory);
        AdapterPluginManager manager = new AdapterPluginManager(directory);
        for (Path file : files) {
            Optional<String> unsafe = unsafeDirectory.or(() -> permissions.checkFile(file));
            if (unsafe.isPresent()) {
                problems.add(report(file + ": refused: " + unsafe.get()));
                continue;
            }
            load(manager, file, adapters, problems);
        }
        return new Result(adapters, problems);
    }

    /** Regular files (links followed) named *.jar or *.zip, not hidden, in name order. */
    private static List<Path> candidates(Path directory)
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
                    log.warn("Ignoring {} in the plugins directory: not a regular file", path);
                    continue;
                }
                files.add(path);
            }
        }
        files.sort(Comparator.comparing(p -> p.getFileName().toString()));
        return files;
    }

    private void load(AdapterPluginManager manager, Path file, List<LoadedAdapter> adapters, List<String> problems)
    {
        boolean zip = file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".zip");
        Contents contents;
        try {
            contents = zip ? Contents.ofZip(file) : Contents.ofJar(file);
        }
        catch (IOException e) {
            problems.add(report(file + ": refused: not a readable " + (zip ? "zip" : "jar") + ": " + firstLine(e.toString())));
            return;
        }
        if (!contents.hasManifest()) {
            problems.add(report(file + ": refused: it has no plugin descriptor (" + (zip ? "classes/" : "") + "META-INF/MANIFEST.MF with Plugin-Id, "
                    + "Plugin-Version and Plugin-Requires); see adapters/README.md"));
            return;
        }
        if (contents.bundlesSpi()) {
            problems.add(report(file + ": bundles its own copy of the SPI (" + SPI_PATH + "); the agent's SPI is used instead; "
                    + "build it with cni-chain-spi in scope provided"));
        }
        String pluginId;
        try {
            Path loadPath = zip ? expand(file) : file;
            manager.expandedFrom(loadPath, file);
            pluginId = manager.loadPlugin(loadPath);
        }
        catch (IOException | RuntimeException | LinkageError e) {
            problems.add(report(file + ": refused: " + reason(e)));
            return;
        }
        PluginWrapper plugin = manager.getPlugin(pluginId);
        PluginDescriptor descriptor = plugin.getDescriptor();
        Optional<String> unreadable = manager.finder().unreadable(pluginId);
        Set<String> classNames = manager.finder().findClassNames(pluginId);
        if (unreadable.isPresent() || classNames.isEmpty()) {
            problems.add(report(file + ": refused: " + unreadable.orElse("it names no adapter: " + AdapterServiceFinder.SERVICES_FILE
                    + " is missing or empty")));
            manager.unloadPlugin(pluginId);
            return;
        }
        ClassLoader loader = plugin.getPluginClassLoader();
        List<String> loaded = new ArrayList<>();
        for (String className : classNames) {
            try {
                CniPlatformAdapter adapter = AdapterCalls.call(() -> instantiate(manager, loader, className), limit, loader);
                LoadedAdapter entry = new LoadedAdapter(adapter, descriptor.getVersion(), LoadedAdapter.Origin.PLUGIN, file.toString(),
                        Optional.of(pluginId)).guarded(limit);
                adapters.add(entry);
                loaded.add(entry.name() + (entry.disabledReason().isPresent() ? " (disabled)" : ""));
            }
            catch (AdapterCalls.CallFailure e) {
                problems.add(report(file + ": adapter class " + className + " failed to load: "
                        + (e.error() == null ? e.getMessage() : e.error() instanceof NotAnAdapter ? e.error().getMessage() : reason(e.error()))));
            }
            catch (AdapterException e) {
                problems.add(report(file + ": " + e.getMessage()));
            }
        }
        if (!loaded.isEmpty()) {
            log.info("Loaded plugin jar {}: {}@{} for SPI {}, adapters: {}", file, pluginId, descriptor.getVersion(), descriptor.getRequires(),
                    String.join(", ", loaded));
        }
    }

    private static CniPlatformAdapter instantiate(AdapterPluginManager manager, ClassLoader loader, String className)
            throws ClassNotFoundException
    {
        Class<?> type;
        try {
            type = Class.forName(className, false, loader);
        }
        catch (ClassNotFoundException e) {
            throw new NotAnAdapter("it is listed in " + AdapterServiceFinder.SERVICES_FILE + " but is not in the jar");
        }
        if (!CniPlatformAdapter.class.isAssignableFrom(type)) {
            throw new NotAnAdapter("it does not implement " + CniPlatformAdapter.class.getName());
        }
        if (Modifier.isAbstract(type.getModifiers())) {
            throw new NotAnAdapter("it is abstract");
        }
        try {
            type.getConstructor();
        }
        catch (NoSuchMethodException e) {
            throw new NotAnAdapter("it has no public constructor without arguments");
        }
        return (CniPlatformAdapter) manager.getExtensionFactory().create(type);
    }

    /** One line: what went wrong, down to the cause that says it. */
    private static String reason(Throwable error)
    {
        Throwable cause = error;
        while (cause.getCause() != null && !(cause instanceof InvalidPluginDescriptorException)
                && (cause instanceof PluginRuntimeException || cause instanceof InvocationTargetException || cause instanceof ExceptionInInitializerError)) {
            cause = cause.getCause();
        }
        if (cause instanceof NoClassDefFoundError) {
            return "it needs class " + cause.getMessage().replace('/', '.') + ", which is neither in the plugin nor shared by the agent "
                    + "(the agent shares only " + String.join(", ", PluginClassLoaders.SHARED_PACKAGES) + " and the JDK)";
        }
        if (cause instanceof UnsupportedClassVersionError) {
            return "it was compiled for a newer Java: " + firstLine(cause.getMessage());
        }
        if (cause instanceof PluginRuntimeException) {
            return firstLine(cause.getMessage());
        }
        StackTraceElement[] trace = cause.getStackTrace();
        return "threw " + firstLine(cause.toString()) + (trace.length == 0 ? "" : " (at " + trace[0] + ")");
    }

    private static String firstLine(String text)
    {
        return text == null ? "" : text.lines().findFirst().orElse("").strip();
    }

    private static String report(String problem)
    {
        log.error("{}", problem);
        return problem;
    }

    private static Path expand(Path zip)
            throws IOException
    {
        Path target = WorkDirectory.get().resolve(zip.getFileName().toString() + "-" + System.nanoTime());
        new Unzip(zip.toFile(), target.toFile()).extract();
        return target;
    }

    /** What a plugin file holds, read before pf4j sees it, for clear refusals. */
    private record Contents(boolean hasManifest, boolean bundlesSpi)
    {
        static Contents ofJar(Path jar)
                throws IOException
        {
            try (JarFile file = new JarFile(jar.toFile())) {
                boolean spi = file.stream().anyMatch(e -> e.getName().startsWith(SPI_PATH));
                return new Contents(file.getManifest() != null, spi);
            }
        }

        static Contents ofZip(Path zip)
                throws IOException
        {
            try (ZipFile file = new ZipFile(zip.toFile())) {
                boolean spi = file.stream().anyMatch(e -> e.getName().startsWith("classes/" + SPI_PATH)
                        || e.getName().matches("lib/cni-chain-spi[^/]*\\.jar"));
                return new Contents(file.getEntry("classes/META-INF/MANIFEST.MF") != null, spi);
            }
        }
    }

    /** A class listed as an adapter that cannot be one; the message says why. */
    private static final class NotAnAdapter
            extends RuntimeException
    {
        NotAnAdapter(String message)
        {
            super(message, null, false, false);
        }
    }

    /**
     * Where zip plugins are expanded: a private temp directory (mode 0700), deleted when the agent exits; never
     * the plugins directory, which may be read-only and must stay as the operator made it.
     */
    private static final class WorkDirectory
    {
        private static Path directory;

        static synchronized Path get()
                throws IOException
        {
            if (directory == null) {
                Path created = Files.createTempDirectory("cni-chain-plugins-");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(created), "delete-expanded-plugins"));
                directory = created;
            }
            return directory;
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
