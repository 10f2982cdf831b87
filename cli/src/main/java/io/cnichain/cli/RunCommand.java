package io.cnichain.cli;

import io.cnichain.agent.loop.Agent;
import io.cnichain.core.config.AgentConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.LinkedHashMap;
import java.util.Map;

@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        header = "The node agent: install, watch, re-patch, clean up on SIGTERM.",
        description = "Watches the CNI configuration directory, the directories of the files its links resolve to, the "
                + "service account and the bin dir, and keeps the plugin's entry in every authoritative configuration: "
                + "re-patched at once whenever the primary rewrites its file, kubeconfig rewritten when the token "
                + "rotates, binary re-installed when it is removed. Creates nothing until a primary configuration exists. "
                + "On SIGTERM, SIGINT or SIGHUP it stops watching and decides (cleanupOnShutdown auto): in a cluster it "
                + "asks the API server, and keeps everything while its DaemonSet still places a pod on this node (an "
                + "update, a restart, a node shutdown), or when the API server does not answer; it uninstalls when the "
                + "DaemonSet is gone, being deleted or no longer selects the node, and always outside a cluster. All "
                + "within the shutdown timeout; a second signal exits at once.",
        footer = {"", "Health: /healthz, /readyz, /metrics on the health port.",
                "Exit 0 after a clean shutdown, 1 when cleanup failed or the agent could not run, 2 on bad configuration."})
final class RunCommand
        extends AgentCommand
{
    @Option(names = "--health-port", paramLabel = "PORT", description = "Port of /healthz, /readyz and /metrics; 0 disables (YAML healthPort, default 9470).")
    Integer healthPort;

    @Option(names = "--health-address", paramLabel = "IP", description = "Address the health port listens on (YAML healthAddress, default 127.0.0.1: loopback, as the probes' host: 127.0.0.1).")
    String healthAddress;

    @Option(names = "--metrics-address", paramLabel = "IP:PORT", description = "A listener of its own for /metrics alone, for a scraper elsewhere (YAML metricsAddress, default none).")
    String metricsAddress;

    @Option(names = "--no-cleanup", description = "Never remove the configuration, kubeconfig and binaries on shutdown; `cni-chain uninstall` does (YAML cleanupOnShutdown: never; default auto).")
    boolean noCleanup;

    @Option(names = "--shutdown-timeout", paramLabel = "SECONDS", description = "Bound on cleanup at shutdown (YAML shutdownTimeoutSeconds, default 20).")
    Integer shutdownTimeout;

    @Override
    public Integer call()
            throws Exception
    {
        AgentConfig config = options.load(context(), runFlags());
        requireApiServerForKubeconfig(config);
        return new Agent(engine(config)).run();
    }

    /** The run flags given, by name, for the configuration loader. */
    Map<String, String> runFlags()
    {
        Map<String, String> flags = new LinkedHashMap<>();
        CommonOptions.put(flags, "--health-port", healthPort);
        CommonOptions.put(flags, "--health-address", healthAddress);
        CommonOptions.put(flags, "--metrics-address", metricsAddress);
        CommonOptions.put(flags, "--no-cleanup", noCleanup ? true : null);
        CommonOptions.put(flags, "--shutdown-timeout", shutdownTimeout);
        return flags;
    }
}
