package io.cnichain.core.cli;

import io.cnichain.core.agent.Agent;
import io.cnichain.core.config.AgentConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.Optional;

@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        header = "The node agent: install, watch, re-patch, clean up on SIGTERM.",
        description = "Watches the CNI configuration directory, the directories of the files its links resolve to, the "
                + "service account and the bin dir, and keeps the plugin's entry in every authoritative configuration: "
                + "re-patched at once whenever the primary rewrites its file, kubeconfig rewritten when the token "
                + "rotates, binary re-installed when it is removed. Creates nothing until a primary configuration exists. "
                + "On SIGTERM, SIGINT or SIGHUP it stops watching and uninstalls, within the shutdown timeout; a second "
                + "signal exits at once.",
        footer = {"", "Health: /healthz, /readyz, /metrics on the health port.",
                "Exit 0 after a clean shutdown, 1 when cleanup failed or the agent could not run, 2 on bad configuration."})
final class RunCommand
        extends AgentCommand
{
    @Option(names = "--health-port", paramLabel = "PORT", description = "Port of /healthz, /readyz and /metrics; 0 disables (YAML healthPort, default 9470).")
    Integer healthPort;

    @Option(names = "--no-cleanup", description = "Leave the configuration, kubeconfig and binaries in place on shutdown, for upgrades (YAML cleanupOnShutdown: false).")
    boolean noCleanup;

    @Option(names = "--shutdown-timeout", paramLabel = "SECONDS", description = "Bound on cleanup at shutdown (YAML shutdownTimeoutSeconds, default 20).")
    Integer shutdownTimeout;

    @Override
    public Integer call()
            throws Exception
    {
        if (healthPort != null && (healthPort < 0 || healthPort > 65535)) {
            throw CniChainCli.usage("--health-port: " + healthPort + " is not a port number (0 disables)");
        }
        if (shutdownTimeout != null && (shutdownTimeout < 1 || shutdownTimeout > 3600)) {
            throw CniChainCli.usage("--shutdown-timeout: " + shutdownTimeout + " is outside 1..3600 seconds");
        }
        AgentConfig config = loadConfig().withAgentOptions(
                Optional.ofNullable(healthPort),
                noCleanup ? Optional.of(false) : Optional.empty(),
                Optional.ofNullable(shutdownTimeout).map(Duration::ofSeconds));
        return new Agent(engine(config)).run();
    }
}
