package io.cnichain.cli;

import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ConfigLoader;
import io.cnichain.cli.logging.ConsoleLogging;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    /** The flags given, by name, for the configuration loader. */
    Map<String, String> flags()
    {
        Map<String, String> flags = new LinkedHashMap<>();
        put(flags, "--host-root", hostRoot);
        put(flags, "--conf-dir", confDir);
        put(flags, "--bin-dir", binDir);
        put(flags, "--adapter", adapter == null ? null : String.join(",", adapter));
        put(flags, "--service-account-dir", serviceAccountDir);
        put(flags, "--plugins-dir", pluginsDir);
        put(flags, "--log-level", logLevel);
        put(flags, "--log-format", logFormat);
        return flags;
    }

    static void put(Map<String, String> flags, String name, Object value)
    {
        if (value != null) {
            flags.put(name, value.toString());
        }
    }

    /**
     * Loads the configuration and applies its logging settings.
     *
     * @param extra flags of the command itself
     */
    AgentConfig load(CliContext context, Map<String, String> extra)
    {
        Map<String, String> all = flags();
        all.putAll(extra);
        AgentConfig loaded = ConfigLoader.load(Optional.ofNullable(config), context.env(), all);
        ConsoleLogging.configure(loaded.log().level(), loaded.log().format());
        return loaded;
    }
}
