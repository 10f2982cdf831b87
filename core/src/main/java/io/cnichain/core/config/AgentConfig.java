package io.cnichain.core.config;

import io.cnichain.core.discovery.NodeLayout;
import io.cnichain.core.host.HostPaths;

import java.nio.file.Path;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The agent's whole configuration, after the defaults, the YAML file, the environment and the flags were merged
 * (see {@link ConfigLoader}), grouped by what uses it.
 *
 * @param configFile the YAML file read, if any
 * @param paths      where things are on the node
 * @param adapters   which adapter decides, and the adapters' settings
 * @param plugin     the chained plugin's entry
 * @param placement  where the entry goes: the primary's list, a drop-in file, or decided from the node's runtime
 * @param kubeconfig the plugin's kubeconfig file
 * @param apiServer  how to reach the Kubernetes API (for the kubeconfig)
 * @param run        the long-running agent's options
 * @param nodeTaint  the start-up taint the agent removes from its node once ready
 * @param log        logging
 * @param configDigest the SHA-256 of the YAML file's bytes as read ({@link ConfigDigest}), if a file was read
 */
public record AgentConfig(
        Optional<Path> configFile,
        NodePaths paths,
        AdapterConfig adapters,
        PluginEntry plugin,
        Placement placement,
        KubeconfigSettings kubeconfig,
        ApiServerSettings apiServer,
        RunSettings run,
        NodeTaintSettings nodeTaint,
        LogSettings log,
        Optional<String> configDigest)
{
    public AgentConfig
    {
        requireNonNull(configFile, "configFile is null");
        requireNonNull(paths, "paths is null");
        requireNonNull(adapters, "adapters is null");
        requireNonNull(plugin, "plugin is null");
        requireNonNull(placement, "placement is null");
        requireNonNull(kubeconfig, "kubeconfig is null");
        requireNonNull(apiServer, "apiServer is null");
        requireNonNull(run, "run is null");
        requireNonNull(nodeTaint, "nodeTaint is null");
        requireNonNull(log, "log is null");
        requireNonNull(configDigest, "configDigest is null");
    }

    /**
     * @param run the long-running agent's options
     * @return this configuration with other run options (the {@code run} command's flags)
     */
    public AgentConfig withRun(RunSettings run)
    {
        return new AgentConfig(configFile, paths, adapters, plugin, placement, kubeconfig, apiServer, run, nodeTaint, log, configDigest);
    }

    public HostPaths host()
    {
        return new HostPaths(paths.hostRoot());
    }

    public NodeLayout layout()
    {
        return new NodeLayout(host(), paths.confDir(), paths.binDir(), paths.allowedRoots(), paths.maxConfigBytes());
    }

    /** Host path of the plugin's kubeconfig. */
    public Path kubeconfigHostPath()
    {
        return paths.confDir().resolve(kubeconfig.fileName());
    }

    /** Where the YAML came from, for messages: the file, or "configuration". */
    public String source()
    {
        return configFile.map(Path::toString).orElse("configuration");
    }
}
