package io.cnichain.core.adapters;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.spi.AdapterException;
import io.cnichain.spi.CniPlatformAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URL;
import java.nio.file.Path;
import java.security.CodeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The adapters the agent knows: found with {@link ServiceLoader} on the agent's classpath and, through
 * {@code io.cnichain.core.plugins}, in plugin jars. Every adapter is held behind a {@link GuardedAdapter}. An
 * adapter that fails to load is reported and left out; it never stops the others.
 */
public final class AdapterRegistry
{
    private static final Logger log = LoggerFactory.getLogger(AdapterRegistry.class);
    private static final String BUILT_IN_PACKAGE = "io.cnichain.adapter.";

    /** The {@code adapterOverrides} value that keeps the adapter on the agent's own classpath. */
    public static final String BUILT_IN_WINS = "built-in";

    private final Map<String, LoadedAdapter> adapters;
    private final List<String> problems;
    private final boolean onlyBuiltIn;

    /**
     * @param adapters the adapters, each name once (each is put behind a {@link GuardedAdapter} if it is not yet)
     * @param problems jars and classes that did not load, one line each
     */
    public AdapterRegistry(List<LoadedAdapter> adapters, List<String> problems)
    {
        this(adapters, problems, AdapterCalls.DEFAULT_LIMIT);
    }

    /**
     * @param adapters the adapters, each name once
     * @param problems jars and classes that did not load, one line each
     * @param limit    how long one adapter call may take
     */
    public AdapterRegistry(List<LoadedAdapter> adapters, List<String> problems, Duration limit)
    {
        Map<String, LoadedAdapter> byName = new TreeMap<>();
        for (LoadedAdapter a : adapters) {
            LoadedAdapter previous = byName.putIfAbsent(a.name(), a);
            if (previous != null) {
                throw new CniChainException(ErrorCode.ADAPTER, "two adapters are named '" + a.name() + "': "
                        + previous.describeOrigin() + " and " + a.describeOrigin());
            }
        }
        for (Map.Entry<String, LoadedAdapter> entry : byName.entrySet()) {
            entry.setValue(entry.getValue().guarded(limit));
        }
        this.adapters = byName;
        this.problems = List.copyOf(problems);
        boolean builtIn = true;
        for (LoadedAdapter adapter : byName.values()) {
            builtIn &= adapter.origin() == LoadedAdapter.Origin.BUILT_IN;
        }
        this.onlyBuiltIn = builtIn;
    }

    /**
     * @param classLoader the class loader to search
     * @return the adapters found on it
     */
    public static AdapterRegistry fromClassLoader(ClassLoader classLoader)
    {
        return fromClassLoader(classLoader, AdapterCalls.DEFAULT_LIMIT);
    }

    /**
     * @param classLoader the class loader to search
     * @param limit       how long one adapter call may take
     * @return the adapters found on it, each behind a {@link GuardedAdapter}
     */
    public static AdapterRegistry fromClassLoader(ClassLoader classLoader, Duration limit)
    {
        List<String> problems = new ArrayList<>();
        List<LoadedAdapter> found = scan(classLoader, limit, problems);
        return new AdapterRegistry(found, problems, limit);
    }

    /**
     * Finds the adapters on a class loader with {@link ServiceLoader}, each guarded; what fails to load is
     * reported in {@code problems} and left out.
     *
     * @param classLoader the class loader to search
     * @param limit       how long one adapter call may take
     * @param problems    where failures are added, one line each
     * @return the adapters found
     */
    public static List<LoadedAdapter> scan(ClassLoader classLoader, Duration limit, List<String> problems)
    {
        List<LoadedAdapter> found = new ArrayList<>();
        Iterator<CniPlatformAdapter> iterator = ServiceLoader.load(CniPlatformAdapter.class, classLoader).iterator();
        while (true) {
            try {
                if (!iterator.hasNext()) {
                    break;
                }
                CniPlatformAdapter adapter = iterator.next();
                found.add(describe(adapter).guarded(limit));
            }
            catch (ServiceConfigurationError | LinkageError | AdapterException e) {
                String problem = "an adapter on the classpath failed to load: " + e.getMessage();
                log.error("{}", problem);
                problems.add(problem);
            }
        }
        return found;
    }

    static LoadedAdapter describe(CniPlatformAdapter adapter)
    {
        Class<?> type = adapter.getClass();
        Package pkg = type.getPackage();
        String version = pkg == null || pkg.getImplementationVersion() == null ? "unknown" : pkg.getImplementationVersion();
        CodeSource code = type.getProtectionDomain().getCodeSource();
        String location = code == null || code.getLocation() == null ? type.getName() : toDisplay(code.getLocation());
        LoadedAdapter.Origin origin = type.getName().startsWith(BUILT_IN_PACKAGE) ? LoadedAdapter.Origin.BUILT_IN : LoadedAdapter.Origin.CLASSPATH;
        return new LoadedAdapter(adapter, version, origin, location);
    }

    /**
     * Settles adapter names provided more than once (a plugin's adapter named like a built-in one, or two
     * plugins with one name): an error naming both origins, unless {@code adapterOverrides} says which wins.
     *
     * @param adapters   every adapter found, built-in and from plugin jars
     * @param overrides  adapter name to the winner: {@link #BUILT_IN_WINS} or a plugin's {@code Plugin-Id}
     * @param configFile the file the overrides came from, for messages
     * @return the adapters, each name once
     * @throws CniChainException {@link ErrorCode#BAD_CONFIG} for an unsettled clash or an override that names
     *                           no provider of that adapter
     */
    public static List<LoadedAdapter> settleNames(List<LoadedAdapter> adapters, Map<String, String> overrides, Optional<Path> configFile)
    {
        String source = source(configFile);
        Map<String, List<LoadedAdapter>> byName = new TreeMap<>();
        for (LoadedAdapter a : adapters) {
            List<LoadedAdapter> providers = byName.get(a.name());
            if (providers == null) {
                providers = new ArrayList<>();
                byName.put(a.name(), providers);
            }
            providers.add(a);
        }
        for (String name : overrides.keySet()) {
            if (!byName.containsKey(name)) {
                throw new CniChainException(ErrorCode.BAD_CONFIG, source + ": key 'adapterOverrides." + name + "': no adapter named '" + name
                        + "' is installed (installed: " + String.join(", ", byName.keySet()) + ")");
            }
        }
        List<LoadedAdapter> settled = new ArrayList<>();
        for (Map.Entry<String, List<LoadedAdapter>> entry : byName.entrySet()) {
            String name = entry.getKey();
            List<LoadedAdapter> providers = entry.getValue();
            String winner = overrides.get(name);
            if (winner == null) {
                if (providers.size() > 1) {
                    throw new CniChainException(ErrorCode.BAD_CONFIG, "adapter name '" + name + "' is provided by "
                            + providers.stream().map(AdapterRegistry::provider).collect(Collectors.joining(" and by "))
                            + "; say which wins in the YAML configuration: adapterOverrides: { " + name + ": "
                            + providers.stream().map(AdapterRegistry::overrideValue).distinct().collect(Collectors.joining(" } or { " + name + ": ")) + " }");
                }
                settled.add(providers.get(0));
                continue;
            }
            List<LoadedAdapter> chosen = providers.stream().filter(p -> overrideValue(p).equals(winner)).toList();
            if (chosen.size() != 1) {
                throw new CniChainException(ErrorCode.BAD_CONFIG, source + ": key 'adapterOverrides." + name + "': "
                        + (chosen.isEmpty() ? "'" + winner + "' provides no adapter named '" + name + "'" : "'" + winner + "' provides '" + name + "' twice")
                        + " (providers: " + providers.stream().map(AdapterRegistry::provider).collect(Collectors.joining(", ")) + ")");
            }
            for (LoadedAdapter loser : providers) {
                if (loser != chosen.get(0)) {
                    log.info("Adapter {}: using {} rather than {} (adapterOverrides in {})", name, provider(chosen.get(0)), provider(loser), source);
                }
            }
            settled.add(chosen.get(0));
        }
        return settled;
    }

    /** The value of {@code adapterOverrides.<name>} that picks this adapter. */
    private static String overrideValue(LoadedAdapter adapter)
    {
        return adapter.pluginId().orElse(BUILT_IN_WINS);
    }

    private static String provider(LoadedAdapter adapter)
    {
        return adapter.pluginId().map(id -> "plugin " + id + " (" + adapter.location() + ")")
                .orElse(adapter.origin().label() + " (" + adapter.location() + ")");
    }

    private static String source(Optional<Path> configFile)
    {
        return configFile.isPresent() ? configFile.get().toString() : "configuration";
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

    /** @return whether every adapter is one of the agent's own ({@link LoadedAdapter.Origin#BUILT_IN}): none from a plugin jar or elsewhere on the class path */
    public boolean onlyBuiltIn()
    {
        return onlyBuiltIn;
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
        LoadedAdapter adapter = adapters.get(name);
        if (adapter == null) {
            throw new CniChainException(ErrorCode.BAD_CONFIG, source + ": no adapter named '" + name + "' is installed (installed: " + String.join(", ", names()) + ")");
        }
        return adapter;
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
        String source = source(configFile);
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
