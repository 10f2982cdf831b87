package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.agent.shutdown.StandInCluster;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static io.cnichain.testkit.PluginList.patched;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An uninstall in a cluster takes the agent's credentials away while its pods are still stopping. Each order an
 * uninstall really has, played on the stand-in API server (which, as the real one, refuses requests with 401 once the
 * ServiceAccount is gone and 403 once the RBAC is): every agent removes what it added, deciding from what it finds at
 * SIGTERM. The cluster suite plays both orders on the real API server. A node shutting down (the API server out of reach) keeps it; a rolling update is {@link AgentUpgradeTest}'s.
 */
@ExtendWith(TempNodeExtension.class)
class AgentUninstallTest
{
    @Test
    void everyUninstallOrderRemovesEverything(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        Map<String, Consumer<StandInCluster>> orders = new java.util.LinkedHashMap<>();
        orders.put("helm uninstall (DaemonSet, then RBAC and ServiceAccount)", StandInCluster::helmUninstall);
        orders.put("kubectl delete -k (Namespace with ServiceAccount and RBAC, then the DaemonSet)", StandInCluster::kubectlDeleteK);
        orders.put("credentials gone, DaemonSet still there at SIGTERM", cluster -> {
            cluster.deleteServiceAccount();
            cluster.deleteRbac();
        });
        for (Map.Entry<String, Consumer<StandInCluster>> order : orders.entrySet()) {
            try (StandInCluster cluster = StandInCluster.start(node.serviceAccountDir());
                 AgentProcess agent = AgentProcess.launch(node, List.of(), List.of(), cluster.environment())) {
                awaitPatched(agent, file);
                assertThat(cluster.server().requests()).as("nothing asked while it runs: the decision at SIGTERM looks at the present").isEmpty();
                order.getValue().accept(cluster);
                assertThat(agent.terminate(Duration.ofSeconds(25))).as(agent.log()).isZero();
                assertThat(agent.log()).as(order.getKey()).contains("SIGTERM: removing our CNI entries, kubeconfig and binaries: ");
            }
            assertThat(patched(file)).as(order.getKey()).isFalse();
            assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).as(order.getKey()).doesNotExist();
            assertThat(node.binDir().resolve("linkerd-cni")).as(order.getKey()).doesNotExist();
        }
    }

    @Test
    void aNodeShutdownWithTheApiServerOutOfReachKeepsEverything(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        StandInCluster cluster = StandInCluster.start(node.serviceAccountDir());
        try (AgentProcess agent = AgentProcess.launch(node, List.of(), List.of(), cluster.environment())) {
            awaitPatched(agent, file);
            cluster.close();
            assertThat(agent.terminate(Duration.ofSeconds(25))).as(agent.log()).isZero();
            assertThat(agent.log()).contains("SIGTERM: leaving our CNI entries, kubeconfig and binaries in place: ").contains("cannot connect");
        }
        assertThat(patched(file)).isTrue();
        assertThat(node.binDir().resolve("linkerd-cni")).exists();
    }
}
