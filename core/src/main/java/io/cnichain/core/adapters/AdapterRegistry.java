package io.cnichain.core.adapters;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.spi.CniPlatformAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URL;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;

/**
 * The adapters the agent knows, found with {@link ServiceLoader} on the agent's classpath. An adapter that
 * fails to load is reported and left out; it never stops the others.
 */
public final class AdapterRegistry
{
    private static final Logger log = LoggerFactory.getLogger(AdapterRegistry.class);
    private static final String BUILT_IN_PACKAGE = "io.cnichain.adapter.";

    private final Map<String, LoadedAdapter> adapters;
    private final List<String> problems;

    public AdapterRegistry(List<LoadedAdapter> adapters, List<String> problems)
    {
        Map<String, LoadedAdapter> byName = new LinkedHashMap<>();
        adapters.stream().sorted(Comparator.comparing(LoadedAdapter::name)).forEach(a -> {
            LoadedAdapter previous = byName.putIfAbsent(a.name(), a);
            if (previous != null) {
                throw new CniChainException(ErrorCode.ADAPTER, "two adapters are named '" + a.name() + "': "
                        + previous.location() + " and " + a.location());
            }
        });
        this.adapters = byName;
        this.problems = List.copyOf(problems);
    }

    /**
     * @param classLoader the class loader to search
     * @return the adapters found on it
     */
    public static AdapterRegistry fromClassLoader(ClassLoader classLoader)
    {
        List<LoadedAdapter> found = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        Iterator<CniPlatformAdapter> iterator = ServiceLoader.load(CniPlatformAdapter.class, classLoader).iterator();
        while (true) {
            try {
                if (!iterator.hasNext()) {
                    break;
                }
                CniPlatformAdapter adapter = iterator.next();
                found.add(describe(adapter));
            }
            catch (ServiceConfigurationError | LinkageError e) {
                String problem = "an adapter on the classpath failed to load: " + e.getMessage();
                log.warn(problem);
                problems.add(problem);
            }
        }
        return new AdapterRegistry(found, problems);
    }

    static LoadedAdapter describe(CniPlatformAdapter adapter)
    {
        Class<?> type = adapter.getClass();
        String version = Optional.ofNullable(type.getPackage()).map(Package::getImplementationVersion).orElse("unknown");
        String location = Optional.ofNullable(type.getProtectionDomain().getCodeSource())
                .map(CodeSource::getLocation)
                .map(AdapterRegistry::toDisplay)
                .orElse(type.getName());
        LoadedAdapter.Origin origin = type.getName().startsWith(BUILT_IN_PACKAGE) ? LoadedAdapter.Origin.BUILT_IN : LoadedAdapter.Origin.CLASSPATH;
        return new LoadedAdapter(adapter, version, origin, location);
    }

    private static String toDisplay(URL url)
    {
        try {
            return Path.of(url.toURI()).toString();
        }
        catch (Exception e) {
            return url.toString();
        }
    }

    public List<LoadedAdapter> all()
    {
        return List.copyOf(adapters.values());
    }

    public Optional<LoadedAdapter> find(String name)
    {
        return Optional.ofNullable(adapters.get(name));
    }

    /** Adapters that failed to load, one line each. */
    public List<String> problems()
    {
        return problems;
    }

    public Set<String> names()
    {
        return new TreeSet<>(adapters.keySet());
    }

    /**
     * @param name an adapter name from the configuration
     * @param source where the name was given, for the message
     * @return the adapter
     * @throws CniChainException {@link ErrorCode#BAD_CONFIG} when no adapter has that name
     */
    public LoadedAdapter require(String name, String source)
    {
        return find(name).orElseThrow(() -> new CniChainException(ErrorCode.BAD_CONFIG,
                source + ": no adapter named '" + name + "' is installed (installed: " + String.join(", ", names()) + ")"));
    }

    /**
     * Checks every adapter's settings against the keys it declares.
     *
     * @param settings   settings by adapter name
     * @param configFile the file they came from, for messages
     * @throws CniChainException {@link ErrorCode#BAD_CONFIG} naming the adapter and the key
     */
    public void validateSettings(Map<String, Map<String, String>> settings, Optional<Path> configFile)
    {
        String source = configFile.map(Path::toString).orElse("configuration");
        for (Map.Entry<String, Map<String, String>> entry : settings.entrySet()) {
            LoadedAdapter adapter = require(entry.getKey(), source + ": key 'adapters." + entry.getKey() + "'");
            Set<String> known = adapter.adapter().settingNames();
            for (String key : entry.getValue().keySet()) {
                if (!known.contains(key)) {
                    throw new CniChainException(ErrorCode.BAD_CONFIG, source + ": key 'adapters." + entry.getKey() + "." + key
                            + "': adapter " + entry.getKey() + " has no setting '" + key + "'"
                            + (known.isEmpty() ? " (it takes no settings)" : " (its settings: " + String.join(", ", new TreeSet<>(known)) + ")"));
                }
            }
        }
    }
}
