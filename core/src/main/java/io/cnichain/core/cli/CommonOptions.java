package io.cnichain.core.cli;

import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ConfigLoader;
import io.cnichain.core.config.ConfigOverrides;
import io.cnichain.core.logging.ConsoleLogging;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Flags every command takes; they win over the environment and the YAML file. */
public final class CommonOptions
{
    @Option(names = "--config", paramLabel = "FILE", description = "YAML configuration file (see conf/cni-chain.yaml for every key).")
    Path config;

    @Option(names = "--host-root", paramLabel = "DIR", description = "Where the host's filesystem is mounted (env CONTAINER_MOUNT_PREFIX, default /host; use / on the host itself).")
    Path hostRoot;

    @Option(names = "--conf-dir", paramLabel = "DIR", description = "Host path of the CNI configuration directory (env DEST_CNI_NET_DIR, default /etc/cni/net.d).")
    Path confDir;

    @Option(names = "--bin-dir", paramLabel = "DIR", description = "Host path of the CNI binary directory (env DEST_CNI_BIN_DIR, default /opt/cni/bin).")
    Path binDir;

    @Option(names = "--adapter", paramLabel = "NAME", split = ",", description = "auto, an adapter name, or a comma-separated list tried in order (default auto).")
    List<String> adapter;

    @Option(names = "--service-account-dir", paramLabel = "DIR", description = "Token and CA for the plugin's kubeconfig (default /var/run/secrets/kubernetes.io/serviceaccount).")
    Path serviceAccountDir;

    @Option(names = "--plugins-dir", paramLabel = "DIR", description = "Directory of third-party adapter jars (default /opt/cni-chain/plugins).")
    Path pluginsDir;

    @Option(names = "--log-level", paramLabel = "LEVEL", description = "trace, debug, info, warn or error (default info).")
    String logLevel;

    @Option(names = "--log-format", paramLabel = "FORMAT", description = "text or json (default text).")
    String logFormat;

    @Option(names = "--stacktrace", description = "Print the stack trace of an error.")
    boolean stacktrace;

    ConfigOverrides overrides()
    {
        return new ConfigOverrides(Optional.ofNullable(hostRoot), Optional.ofNullable(confDir), Optional.ofNullable(binDir),
                Optional.ofNullable(adapter), Optional.ofNullable(serviceAccountDir), Optional.ofNullable(pluginsDir),
                Optional.ofNullable(logLevel), Optional.ofNullable(logFormat));
    }

    /**
     * Loads the configuration and applies its logging settings.
     */
    AgentConfig load(CliContext context)
    {
        AgentConfig loaded = ConfigLoader.load(Optional.ofNullable(config), context.env(), overrides());
        ConsoleLogging.configure(loaded.logLevel(), loaded.logFormat());
        return loaded;
    }
}
