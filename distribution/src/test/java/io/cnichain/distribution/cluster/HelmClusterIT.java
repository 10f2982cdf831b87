package io.cnichain.distribution.cluster;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chart's whole life on the real cluster, with pods created every 2 s throughout: install, a rollout restart, an
 * upgrade that changes the entry (and so the ConfigMap, which rolls the pods), and an uninstall after which the node
 * is clean and new pods start without the plugin.
 */
@RealCluster
class HelmClusterIT
{
    private static final String AGENTS = "app.kubernetes.io/name=cni-chain";

    @Test
    void installRollUpgradeAndUninstallWithEveryPodMeshed(Cluster cluster, ChartRelease release)
    {
        Map<String, Object> values = cluster.nodeValues();
        release.install(values);
        cluster.awaitRollout(ChartRelease.NAMESPACE, "cni-chain");

        assertThat(cluster.primaryChain()).as("the list containerd loads").endsWith(Cluster.PLUGIN);
        List<String> agents = cluster.pods(ChartRelease.NAMESPACE, AGENTS);
        assertThat(agents).hasSize(1);
        assertThat(cluster.agentLog(ChartRelease.NAMESPACE, agents.get(0)))
                .as("the pod's seccomp profile and read-only root leave the native file calls working")
                .contains("File calls: kernel calls").doesNotContain("Java fallback");

        // The token on the node's disk is the plugin's: what linkerd-cni reads, nothing of the agent's rights.
        Kubectl disk = cluster.kubectl().as(cluster.kubeconfigToken());
        for (String allowed : List.of("get pods -n mesh-anything", "get namespaces")) {
            assertThat(disk.run(("auth can-i " + allowed).split(" ")).out().strip()).as("the plugin may " + allowed).isEqualTo("yes");
        }
        for (String denied : List.of("get nodes", "patch nodes", "get daemonsets -n cni-chain", "list pods", "delete pods -n mesh-anything",
                "create serviceaccounts/token -n cni-chain")) {
            assertThat(disk.run(("auth can-i " + denied).split(" ")).out().strip()).as("the token on the disk may not " + denied).isEqualTo("no");
        }

        PodStream.Report report;
        try (PodStream pods = PodStream.start(cluster, "mesh-helm", Duration.ofSeconds(2), "installed")) {
            io.cnichain.testkit.Await.until(Duration.ofSeconds(30), () -> pods.count() >= 3, () -> "no pods created");

            pods.step("rollout restart");
            cluster.kubectl().ok("-n", ChartRelease.NAMESPACE, "rollout", "restart", "daemonset/cni-chain");
            cluster.awaitRollout(ChartRelease.NAMESPACE, "cni-chain");
            List<String> restarted = cluster.pods(ChartRelease.NAMESPACE, AGENTS);
            assertThat(restarted).as("a new pod").doesNotContainAnyElementsOf(agents);

            pods.step("helm upgrade (logLevel debug)");
            values.put("logLevel", "debug");
            release.upgrade(values);
            cluster.awaitRollout(ChartRelease.NAMESPACE, "cni-chain");
            assertThat(cluster.pods(ChartRelease.NAMESPACE, AGENTS)).as("the ConfigMap's change rolls the pods").doesNotContainAnyElementsOf(restarted);
            assertThat(cluster.primary().path("plugins").get(cluster.primaryChain().size() - 1).path("log_level").asText())
                    .as("the entry the upgrade rendered").isEqualTo("debug");

            pods.step("after");
            int upgraded = pods.count();
            io.cnichain.testkit.Await.until(Duration.ofSeconds(30), () -> pods.count() >= upgraded + 2, () -> "no pods created");
            report = pods.finish();
        }
        Say.step("pods through install, rollout restart and upgrade:\n" + report.table());
        assertThat(report.failures()).isEmpty();
        assertThat(report.unmeshed()).as("pods whose sandbox did not run linkerd-cni to its end").isEmpty();

        release.uninstall();
        cluster.awaitClean(Duration.ofSeconds(60));
        cluster.createNamespace("after-helm");
        cluster.createPod("after-helm", "plain");
        cluster.awaitRunning("after-helm", "plain", Duration.ofSeconds(60));
        assertThat(cluster.calls().of("after-helm", "plain")).as("a pod after the uninstall runs without the plugin").isEmpty();
    }
}
