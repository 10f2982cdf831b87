package io.cnichain.cli;

import io.cnichain.agent.loop.Agent;
import io.cnichain.core.config.AgentConfig;
import picocli.CommandLine.Command;


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
    @Override
    public Integer call()
            throws Exception
    {
        AgentConfig config = loadConfig();
        requireApiServerForKubeconfig(config);
        return new Agent(agentEngine(config)).run();
    }
}
