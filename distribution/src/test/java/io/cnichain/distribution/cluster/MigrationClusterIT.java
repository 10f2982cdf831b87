package io.cnichain.distribution.cluster;

import io.cnichain.testkit.Await;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The switch from linkerd2-cni to cni-chain that docs/install.md describes, with pods created every 2 s through all of
 * it: Linkerd's own (Go) installer running as linkerd2-cni's DaemonSet, then cni-chain installed beside it with the
 * chart's defaults, then linkerd2-cni deleted, whose installer removes its binary, its kubeconfig and the entry on the
 * way out, and cni-chain puts them back.
 */
@RealCluster
class MigrationClusterIT
{
    @Test
    void fromLinkerd2CniWithNoPodUnmeshed(Cluster cluster, ChartRelease release)
    {
        String linkerd = linkerd2Cni(cluster);
        cluster.kubectl().apply(linkerd).ok();
        cluster.awaitRollout("linkerd-cni", "linkerd-cni");
        Await.until(Duration.ofSeconds(60), () -> cluster.primaryChain().contains(Cluster.PLUGIN), () -> "linkerd2-cni did not patch the primary: "
                + cluster.primaryChain());

        PodStream.Report report;
        try (PodStream pods = PodStream.start(cluster, "mesh-migration", Duration.ofSeconds(2), "linkerd2-cni alone")) {
            Await.until(Duration.ofSeconds(30), () -> pods.count() >= 3, () -> "no pods created");

            pods.step("cni-chain installed beside it");
            release.install(cluster.nodeValues());
            cluster.awaitRollout(ChartRelease.NAMESPACE, "cni-chain");
            int installed = pods.count();
            Await.until(Duration.ofSeconds(30), () -> pods.count() >= installed + 3, () -> "no pods created");

            pods.step("linkerd2-cni deleted");
            Say.step("kubectl delete linkerd2-cni");
            cluster.kubectl().run(java.util.Optional.of(linkerd), "delete", "-f", "-", "--wait=true", "--timeout=120s").ok();
            Await.until(Duration.ofSeconds(60), () -> cluster.pods("linkerd-cni", "k8s-app=linkerd-cni").isEmpty(), () -> "linkerd2-cni's pods remain");
            Await.until(Duration.ofSeconds(30), () -> cluster.primaryChain().contains(Cluster.PLUGIN)
                    && Files.exists(cluster.kit().binDir().resolve(Cluster.PLUGIN))
                    && Files.exists(cluster.kit().confDir().resolve(Cluster.KUBECONFIG_NAME)), () -> "cni-chain did not put everything back: chain "
                    + cluster.primaryChain() + ", conf dir " + list(cluster.kit().confDir()) + ", bin dir has linkerd-cni: "
                    + Files.exists(cluster.kit().binDir().resolve(Cluster.PLUGIN)));

            pods.step("cni-chain alone");
            int deleted = pods.count();
            Await.until(Duration.ofSeconds(30), () -> pods.count() >= deleted + 3, () -> "no pods created");
            report = pods.finish();
        }
        Say.step("pods through the switch from linkerd2-cni:\n" + report.table());
        String agent = cluster.pods(ChartRelease.NAMESPACE, "app.kubernetes.io/name=cni-chain").get(0);
        String log = cluster.agentLog(ChartRelease.NAMESPACE, agent);
        Say.step("cni-chain's log:\n" + log);
        assertThat(report.failures()).isEmpty();
        assertThat(report.unmeshed()).as("pods whose sandbox did not run linkerd-cni to its end").isEmpty();

        release.uninstall();
        // Linkerd's installer wrote the primary in its own layout (keys sorted), which our uninstall keeps.
        cluster.awaitCleanAsJson(Duration.ofSeconds(60));
    }

    /**
     * linkerd2-cni's objects for the kit's node, from the stand-in of its chart, with the entry that chart renders from
     * the same values: cni-chain's chart renders its ConfigMap linkerd-cni-config as linkerd2-cni's does (HelmChartTest),
     * so the ConfigMap is taken from a {@code helm template} of it.
     */
    private static String linkerd2Cni(Cluster cluster)
    {
        String entry = null;
        for (Object document : new org.yaml.snakeyaml.Yaml().loadAll(ChartRelease.template(cluster.nodeValues()))) {
            if (document instanceof java.util.Map<?, ?> object && "ConfigMap".equals(object.get("kind"))
                    && "linkerd-cni-config".equals(((java.util.Map<?, ?>) object.get("metadata")).get("name"))) {
                entry = (String) ((java.util.Map<?, ?>) object.get("data")).get("cni_network_config");
            }
        }
        assertThat(entry).as("the chart's ConfigMap linkerd-cni-config").isNotNull();
        String indented = entry.lines().map(line -> "    " + line).collect(Collectors.joining("\n"));
        return StandInImages.resource("cluster/linkerd2-cni.yaml")
                .replace("@CONF_DIR@", cluster.kit().confDir().toString())
                .replace("@BIN_DIR@", cluster.kit().binDir().toString())
                .replace("@IMAGE@", StandInImages.PLUGIN_IMAGE + ":" + StandInImages.PLUGIN_TAG)
                .replace("@CNI_NETWORK_CONFIG@", indented);
    }

    private static List<String> list(Path dir)
    {
        try (var files = Files.list(dir)) {
            return files.map(path -> path.getFileName().toString()).sorted().toList();
        }
        catch (IOException e) {
            return List.of(e.toString());
        }
    }
}
