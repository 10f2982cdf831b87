package io.cnichain.core.plugins;

import io.cnichain.spi.CniPlatformAdapter;
import org.pf4j.PluginClassLoader;
import org.pf4j.PluginManager;
import org.pf4j.PluginWrapper;
import org.pf4j.ServiceProviderExtensionFinder;
import org.pf4j.processor.ExtensionStorage;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * pf4j's service-provider extension finder, narrowed to the one file that names adapters,
 * {@code META-INF/services/io.cnichain.spi.CniPlatformAdapter}: the same file {@link java.util.ServiceLoader}
 * reads for the built-in adapters, so no pf4j annotation-processor index is needed. Narrowed because pf4j's
 * finder reads every file under {@code META-INF/services} (a bundled library's services would be loaded as
 * candidate adapters) and finds that directory only in jars that hold directory entries. Classpath adapters
 * are {@link java.util.ServiceLoader}'s job; this finder reads plugins only.
 */
final class AdapterServiceFinder
        extends ServiceProviderExtensionFinder
{
    static final String SERVICES_FILE = "META-INF/services/" + CniPlatformAdapter.class.getName();
    /** The most a plugin's services file may hold. */
    static final int MAX_SERVICES_BYTES = 64 * 1024;

    private final Map<String, String> unreadable = new ConcurrentHashMap<>();

    AdapterServiceFinder(PluginManager pluginManager)
    {
        super(pluginManager);
    }

    @Override
    public Map<String, Set<String>> readClasspathStorages()
    {
        return Map.of();
    }

    @Override
    public Map<String, Set<String>> readPluginsStorages()
    {
        Map<String, Set<String>> result = new LinkedHashMap<>();
        for (PluginWrapper plugin : pluginManager.getPlugins()) {
            try {
                unreadable.remove(plugin.getPluginId());
                result.put(plugin.getPluginId(), read((PluginClassLoader) plugin.getPluginClassLoader()));
            }
            catch (IOException | RuntimeException e) {
                unreadable.put(plugin.getPluginId(), SERVICES_FILE + " cannot be read: " + e);
                result.put(plugin.getPluginId(), Set.of());
            }
        }
        return result;
    }

    /**
     * @param pluginId a plugin
     * @return why its services file could not be read, if it could not
     */
    Optional<String> unreadable(String pluginId)
    {
        findClassNames(pluginId);
        return Optional.ofNullable(unreadable.get(pluginId));
    }

    /** The class names the plugin's own services files list (not the agent's), in order. */
    private static Set<String> read(PluginClassLoader loader)
            throws IOException
    {
        Set<String> names = new LinkedHashSet<>();
        Enumeration<URL> files = loader.findResources(SERVICES_FILE);
        while (files.hasMoreElements()) {
            URL file = files.nextElement();
            // A services file lists a few class names; one padded to megabytes would hold start-up for as long as it reads.
            byte[] bytes;
            try (java.io.InputStream in = file.openStream()) {
                bytes = in.readNBytes(MAX_SERVICES_BYTES + 1);
            }
            if (bytes.length > MAX_SERVICES_BYTES) {
                throw new IOException(SERVICES_FILE + " is larger than " + MAX_SERVICES_BYTES + " bytes (a services file lists a few class names); not read");
            }
            try (Reader reader = new InputStreamReader(new java.io.ByteArrayInputStream(bytes), StandardCharsets.UTF_8)) {
                ExtensionStorage.read(reader, names);
            }
        }
        return names;
    }
}
