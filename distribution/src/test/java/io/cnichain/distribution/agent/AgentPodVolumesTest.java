package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.KubeletVolume;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent started by the launcher as a DaemonSet's pod starts it: {@code run --config} on a ConfigMap the kubelet
 * projected (the file a link through {@code ..data}), the service account's token and CA a projected volume of the
 * same shape. Then both change as the kubelet changes them while the pod runs: a new {@code ..data}, the old files
 * deleted.
 */
@ExtendWith(TempNodeExtension.class)
class AgentPodVolumesTest
{
    private static final String CHANGED = "holds another configuration since this agent started; it keeps its start-up configuration until restarted";

    @Test
    void runOnAKubeletProjectedConfigMapPatchesAndLivesThroughItsUpdate(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        KubeletVolume config = KubeletVolume.project(node.root().resolve("pod/config"), Map.of("cni-chain.yaml", "cleanupOnShutdown: always\n"));
        Path yaml = config.file("cni-chain.yaml");
        assertThat(Files.isSymbolicLink(yaml)).isTrue();
        Path kubeconfig = node.conf("ZZZ-linkerd-cni-kubeconfig");
        try (AgentProcess agent = AgentProcess.launch(node, List.of(), List.of("--config", yaml.toString()))) {
            awaitPatched(agent, file);
            Await.until(Duration.ofSeconds(20), () -> agent.poll("/readyz").status() == 200, agent::log);

            // kubectl edit configmap: the kubelet's update, the old payload deleted.
            Path started = config.dataDirectory();
            config.update("cni-chain.yaml", "cleanupOnShutdown: never\n");
            assertThat(started).doesNotExist();
            agent.awaitLog(CHANGED, Duration.ofSeconds(10));
            assertThat(agent.get("/metrics").body()).contains("cnichain_config_changed_since_start 1");
            assertThat(agent.get("/readyz").body()).contains("configuration: " + yaml + " holds another configuration since start; a restart applies it");

            // Still watching, still patching, still rotating the token.
            node.write("10-calico.conflist", TestNode.CALICO);
            awaitPatched(agent, file);
            node.serviceAccount().update("token", "token-after-the-edit\n");
            Await.until(Duration.ofSeconds(10), () -> Files2.read(kubeconfig).contains("token-after-the-edit"), agent::log);
            assertThat(agent.get("/readyz").status()).isEqualTo(200);
            assertThat(agent.count(CHANGED)).as("said once").isEqualTo(1);

            // The start-up configuration holds until the restart: cleanupOnShutdown always, not the edit's never.
            assertThat(agent.terminate(Duration.ofSeconds(25))).as(agent.log()).isZero();
            assertThat(agent.log()).contains("removing our CNI entries, kubeconfig and binaries");
        }
        assertThat(PluginList.plugins(file)).doesNotContain("linkerd-cni");
    }

    @Test
    void aConfigFileLinkOutOfItsVolumeIsRefusedNamingIt(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Path elsewhere = Files.writeString(node.root().resolve("elsewhere.yaml"), "logLevel: debug\n");
        Path volume = Files.createDirectories(node.root().resolve("pod/config"));
        Path yaml = Files.createSymbolicLink(volume.resolve("cni-chain.yaml"), elsewhere);
        try (AgentProcess agent = AgentProcess.launch(node, List.of(), List.of("--config", yaml.toString()))) {
            assertThat(agent.exitCode(Duration.ofSeconds(20))).as(agent.log()).isEqualTo(2);
            assertThat(agent.log()).contains(yaml + ": leads through " + yaml + " to " + elsewhere + ", outside " + volume);
        }
        assertThat(node.read("10-calico.conflist")).doesNotContain("linkerd-cni");
    }
}
