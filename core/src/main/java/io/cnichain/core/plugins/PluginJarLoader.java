package io.cnichain.core.plugins;

import io.cnichain.core.adapters.AdapterCalls;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.spi.AdapterException;
import io.cnichain.spi.CniPlatformAdapter;
import org.pf4j.InvalidPluginDescriptorException;
import org.pf4j.PluginClassLoader;
import org.pf4j.PluginDescriptor;
import org.pf4j.PluginRuntimeException;
import org.pf4j.PluginState;
import org.pf4j.PluginWrapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Loads the adapters of the jars (and pf4j zips) in the plugins directory with pf4j, one class loader per
 * file: {@link PluginDirectory} lists the directory and applies the permission gate, {@link AdapterPluginManager}
 * (pf4j's manager) reads and checks each descriptor and builds the class loader, {@link AdapterServiceFinder} names
 * the adapter classes, and each adapter is instantiated here under the time limit of {@link AdapterCalls} and
 * handed out behind a {@link io.cnichain.core.adapters.GuardedAdapter}. Every file is reported once: loaded (one
 * info line naming its adapters) or refused (one line naming the file and the reason: unsafe permissions, no
 * descriptor, not a readable jar, built for another SPI, a class that does not load, a constructor that throws or
 * hangs). A refused file never stops the others.
 */
public final class PluginJarLoader
{
    private static final Logger log = LoggerFactory.getLogger(PluginJarLoader.class);
    private static final String SPI_PATH = CniPlatformAdapter.class.getPackageName().replace('.', '/') + "/";
    private static final String SPI_CLASS_FILE = CniPlatformAdapter.class.getName().replace('.', '/') + ".class";

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
        PluginDirectory repository = new PluginDirectory(directory, permissions);
        List<Path> paths = repository.getPluginPaths();
        for (String problem : repository.problems()) {
            problems.add(report(problem));
        }
        if (paths.isEmpty()) {
            return new Result(adapters, problems);
        }
        AdapterPluginManager manager = new AdapterPluginManager(repository);
        // pf4j's loadPlugins() runs this same loop, but reports a failure only in a log line of its own, and a
        // failure other than a PluginRuntimeException would end it for every file after.
        for (Path path : paths) {
            load(manager, path, repository.sourceOf(path), adapters, problems);
        }
        return new Result(adapters, problems);
    }

    private void load(AdapterPluginManager manager, Path path, Path file, List<LoadedAdapter> adapters, List<String> problems)
    {
        String pluginId;
        try {
            pluginId = manager.loadPlugin(path);
        }
        catch (RuntimeException | LinkageError e) {
            problems.add(report(file + ": refused: " + reason(e)));
            return;
        }
        PluginWrapper plugin = manager.getPlugin(pluginId);
        if (plugin.getPluginState() != PluginState.RESOLVED) {
            problems.add(report(file + ": refused: pf4j left it " + plugin.getPluginState()
                    + (plugin.getFailedException() == null ? "" : ": " + reason(plugin.getFailedException()))));
            manager.unloadPlugin(pluginId);
            return;
        }
        PluginDescriptor descriptor = plugin.getDescriptor();
        ClassLoader loader = plugin.getPluginClassLoader();
        if (((PluginClassLoader) loader).findResource(SPI_CLASS_FILE) != null) {
            problems.add(report(file + ": bundles its own copy of the SPI (" + SPI_PATH + "); the agent's SPI is used instead; "
                    + "build it with cni-chain-spi in scope provided"));
        }
        Optional<String> unreadable = manager.finder().unreadable(pluginId);
        Set<String> classNames = manager.finder().findClassNames(pluginId);
        if (unreadable.isPresent() || classNames.isEmpty()) {
            problems.add(report(file + ": refused: " + unreadable.orElse("it names no adapter: " + AdapterServiceFinder.SERVICES_FILE
                    + " is missing or empty")));
            manager.unloadPlugin(pluginId);
            return;
        }
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
            return "it needs class " + cause.getMessage().replace('/', '.') + ", which is neither in the plugin nor shared by the agent ("
                    + PluginClassLoaders.describeShared() + ")";
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

    /** A class listed as an adapter that cannot be one; the message says why. */
    private static final class NotAnAdapter
            extends RuntimeException
    {
        NotAnAdapter(String message)
        {
            super(message, null, false, false);
        }
    }
}
