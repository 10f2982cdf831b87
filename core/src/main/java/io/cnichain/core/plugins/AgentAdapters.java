package io.cnichain.core.plugins;

import io.cnichain.core.adapters.AdapterCalls;
import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.core.config.AgentConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one place the agent's adapters are assembled: the built-in ones ({@link java.util.ServiceLoader} on the
 * agent's class loader) and those of the plugin jars, names settled by {@code adapterOverrides}.
 */
public final class AgentAdapters
{
    private AgentAdapters() {}

    /**
     * @param config the agent's configuration (plugins directory, adapter overrides)
     * @return the registry
     */
    public static AdapterRegistry load(AgentConfig config)
    {
        return load(AgentAdapters.class.getClassLoader(), config.adapters().pluginsDir(), config.adapters().overrides(), config.configFile(), AdapterCalls.DEFAULT_LIMIT);
    }

    /**
     * @param agentLoader the class loader holding the built-in adapters
     * @param pluginsDir  the plugins directory
     * @param overrides   adapterOverrides from the configuration
     * @param configFile  where the overrides came from, for messages
     * @param limit       how long one adapter call may take
     * @return the registry
     */
    public static AdapterRegistry load(ClassLoader agentLoader, Path pluginsDir, Map<String, String> overrides, Optional<Path> configFile, Duration limit)
    {
        List<String> problems = new ArrayList<>();
        List<LoadedAdapter> all = new ArrayList<>(AdapterRegistry.scan(agentLoader, limit, problems));
        PluginJarLoader.Result plugins = new PluginJarLoader(limit).load(pluginsDir);
        all.addAll(plugins.adapters());
        problems.addAll(plugins.problems());
        return new AdapterRegistry(AdapterRegistry.settleNames(all, overrides, configFile), problems, limit);
    }
}
