package io.cnichain.core.config;

import io.cnichain.core.discovery.NodeLayout;
import io.cnichain.core.host.HostPaths;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The agent's whole configuration, after YAML, environment and flags were merged (flags win over the
 * environment, which wins over the file, which wins over the defaults). Host paths are paths on the node;
 * container paths are paths the agent sees.
 *
 * @param configFile        the YAML file read, if any
 * @param adapter           which adapter decides
 * @param hostRoot          container path where the host's root is mounted
 * @param confDir           host path of the CNI configuration directory
 * @param binDir            host path of the CNI binary directory
 * @param sourceBinDir      container path of the binaries to install
 * @param pluginsDir        container path of third-party adapter jars
 * @param serviceAccountDir container path of the service-account token and CA
 * @param allowedRoots      host directories symlinks may resolve into
 * @param maxConfigBytes    the largest configuration file read
 * @param plugin            the chained plugin's entry
 * @param kubeconfig        how the plugin's kubeconfig is written
 * @param adapterSettings   per-adapter settings, by adapter name
 * @param logLevel          trace, debug, info, warn or error
 * @param logFormat         text or json
 * @param healthPort        the agent's health and metrics port, 0 for none
 * @param cleanupOnShutdown whether the agent uninstalls when it is stopped
 * @param shutdownTimeout   how long cleanup on shutdown may take
 * @param adapterOverrides  for an adapter name provided twice (built-in and plugin, or two plugins), which
 *                          provider wins: "built-in" or a plugin's Plugin-Id
 */
public record AgentConfig(
        Optional<Path> configFile,
        AdapterChoice adapter,
        Path hostRoot,
        Path confDir,
        Path binDir,
        Path sourceBinDir,
        Path pluginsDir,
        Path serviceAccountDir,
        List<Path> allowedRoots,
        long maxConfigBytes,
        PluginEntry plugin,
        KubeconfigSettings kubeconfig,
        Map<String, Map<String, String>> adapterSettings,
        String logLevel,
        String logFormat,
        int healthPort,
        boolean cleanupOnShutdown,
        Duration shutdownTimeout,
        Map<String, String> adapterOverrides)
{
    public AgentConfig
    {
        requireNonNull(configFile, "configFile is null");
        requireNonNull(adapter, "adapter is null");
        requireNonNull(hostRoot, "hostRoot is null");
        requireNonNull(confDir, "confDir is null");
        requireNonNull(binDir, "binDir is null");
        requireNonNull(sourceBinDir, "sourceBinDir is null");
        requireNonNull(pluginsDir, "pluginsDir is null");
        requireNonNull(serviceAccountDir, "serviceAccountDir is null");
        allowedRoots = List.copyOf(allowedRoots);
        requireNonNull(plugin, "plugin is null");
        requireNonNull(kubeconfig, "kubeconfig is null");
        adapterSettings = Map.copyOf(adapterSettings);
        requireNonNull(logLevel, "logLevel is null");
        requireNonNull(logFormat, "logFormat is null");
        requireNonNull(shutdownTimeout, "shutdownTimeout is null");
        adapterOverrides = Map.copyOf(adapterOverrides);
    }

    /**
     * @return this configuration with the agent's command-line options applied
     */
    public AgentConfig withAgentOptions(Optional<Integer> port, Optional<Boolean> cleanup, Optional<Duration> timeout)
    {
        return new AgentConfig(configFile, adapter, hostRoot, confDir, binDir, sourceBinDir, pluginsDir, serviceAccountDir, allowedRoots,
                maxConfigBytes, plugin, kubeconfig, adapterSettings, logLevel, logFormat, port.orElse(healthPort),
                cleanup.orElse(cleanupOnShutdown), timeout.orElse(shutdownTimeout), adapterOverrides);
    }

    public HostPaths host()
    {
        return new HostPaths(hostRoot);
    }

    public NodeLayout layout()
    {
        return new NodeLayout(host(), confDir, binDir, allowedRoots, maxConfigBytes);
    }

    /** Host path of the plugin's kubeconfig. */
    public Path kubeconfigHostPath()
    {
        return confDir.resolve(kubeconfig.fileName());
    }

    public Map<String, String> settingsFor(String adapterName)
    {
        return adapterSettings.getOrDefault(adapterName, Map.of());
    }
}
