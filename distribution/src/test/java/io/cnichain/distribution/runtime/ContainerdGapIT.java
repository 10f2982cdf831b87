package io.cnichain.distribution.runtime;

import io.cnichain.agent.shutdown.StandInCluster;
import io.cnichain.distribution.runtime.Layout.Primary;
import io.cnichain.distribution.runtime.StandInLog.Call;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rolling update's gap, judged by containerd: the old agent gets SIGTERM and exits, and before the new one starts,
 * the runtime sets up a pod's network ({@code ctr run --cni}). With {@code cleanupOnShutdown: auto} and the DaemonSet
 * still placing a pod on the node (the API server is a stand-in, none can run here), that pod runs linkerd-cni after
 * the primary's plugins; with {@code always}, as every SIGTERM did before, it runs the primary's alone.
 */
@RealRuntime
class ContainerdGapIT
{
    private RuntimeNode node;
    private Process agent;

    @AfterEach
    void tearDown()
            throws InterruptedException
    {
        AgentWaits.tearDown(agent, node);
    }

    @ParameterizedTest(name = "cleanupOnShutdown {0}")
    @ValueSource(strings = {"auto", "always"})
    void aPodSetUpBetweenTheOldAgentAndTheNewRunsThePluginOnlyWhenItWasKept(String cleanup, Sandbox sandbox)
            throws Exception
    {
        node = sandbox.node("gap-" + cleanup);
        Primary primary = Layout.PLAIN_CONFLIST.lay(node);
        node.yaml(node.yaml().map(RuntimeNode::read).orElse("") + "healthPort: 0\ncleanupOnShutdown: " + cleanup + "\n");
        Containerd containerd = sandbox.containerd();
        try (StandInCluster cluster = StandInCluster.start(node.serviceAccountDir())) {
            Path oldLog = node.root().resolve("old-agent.log");
            agent = Launcher.start(node, "run", oldLog, cluster.environment());
            AgentWaits.awaitPatched(agent, primary.installedFile(), oldLog);
            agent.destroy();
            assertThat(agent.waitFor(40, TimeUnit.SECONDS)).as("the old agent stops on SIGTERM").isTrue();
            assertThat(agent.exitValue()).as(RuntimeNode.read(oldLog)).isZero();

            // The gap: no agent runs on the node.
            Commands.Result pod = containerd.run(node, "ip", "-4", "addr", "show", "eth0");
            assertThat(pod.code()).as("containerd set up the pod's network: " + pod).isZero();
            List<Call> calls = node.standIn().calls();
            if (cleanup.equals("auto")) {
                assertThat(RuntimeNode.read(oldLog)).contains("leaving our CNI entries, kubeconfig and binaries in place");
                assertThat(calls).as("linkerd-cni ran for the pod set up in the gap").extracting(Call::command).containsExactly("ADD", "DEL");
                assertThat(calls.get(0).prevAddresses()).as("after the primary, with its result").hasSize(1);
            }
            else {
                assertThat(RuntimeNode.read(oldLog)).contains("removing our CNI entries, kubeconfig and binaries: cleanupOnShutdown is always");
                assertThat(calls).as("the pod set up in the gap ran the primary alone").isEmpty();
            }
            Steps.say("cleanupOnShutdown " + cleanup + ": a pod containerd set up between the agents ran "
                    + (calls.isEmpty() ? "the primary's plugins alone" : "linkerd-cni after the primary (" + calls.size() + " calls: ADD, DEL)"));

            Path newLog = node.root().resolve("new-agent.log");
            agent = Launcher.start(node, "run", newLog, cluster.environment());
            AgentWaits.awaitPatched(agent, primary.installedFile(), newLog);
            Commands.Result next = containerd.run(node, "ip", "-4", "addr", "show", "eth0");
            assertThat(next.code()).as(next.toString()).isZero();
            assertThat(node.standIn().calls()).as("a pod after the new agent's start runs linkerd-cni").hasSize(calls.size() + 2);
            cluster.deleteDaemonSet();
            agent.destroy();
            assertThat(agent.waitFor(40, TimeUnit.SECONDS)).isTrue();
            assertThat(agent.exitValue()).as(RuntimeNode.read(newLog)).isZero();
            assertThat(RuntimeNode.json(primary.restoredFile())).as("an uninstall cleans up").isEqualTo(primary.original());
        }
    }
}
