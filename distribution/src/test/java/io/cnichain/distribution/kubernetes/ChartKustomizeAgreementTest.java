package io.cnichain.distribution.kubernetes;

import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.json.CniJson;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chart and the kustomize tree are two sources kept in step by this test, which renders both and compares the
 * objects: the chart (with the overlay's one non-default value, {@code iptablesMode: legacy}) against
 * {@code overlays/linkerd}, which is the chart's counterpart (the same ConfigMap, environment and entry), alone and
 * with {@code components/node-taint}; and for every platform kustomization, the chart with that platform's
 * directories and adapter, on what the platform changes (volumes, mounts, the agent's configuration).
 *
 * <p>What may differ, and only that, is taken out before comparing: Helm's own labels ({@code helm.sh/chart},
 * {@code app.kubernetes.io/managed-by}); the hash kustomize appends to the agent's ConfigMap name and the checksum
 * annotation the chart puts on the pod template instead (both roll the pods when the file changes); the Namespace,
 * which Helm's {@code --create-namespace} makes; the text of {@code cni-chain.yaml}, compared as the configuration the
 * agent's own loader reads from it; the entry's JSON, compared as JSON; the order of environment variables.
 */
class ChartKustomizeAgreementTest
{
    @TempDir
    Path scratch;

    @Test
    void chartRendersTheLinkerdOverlaysObjects()
    {
        Rendered chart = HelmChart.render(Map.of("iptablesMode", "legacy"));
        Rendered kustomize = kustomize(Overlay.LINKERD.dir());
        assertSameObjects(chart, kustomize);
    }

    @Test
    void chartWithTheNodeTaintRendersTheOverlayWithTheComponent()
            throws IOException
    {
        Rendered chart = HelmChart.render(Map.of("iptablesMode", "legacy", "cniChain.nodeTaint.enabled", true));
        Path dir = Path.of("target", "kustomize-agreement", "linkerd-node-taint");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                  - ../../../kubernetes/overlays/linkerd
                components:
                  - ../../../kubernetes/components/node-taint
                """);
        assertSameObjects(chart, kustomize(dir.toAbsolutePath()));
    }

    @Test
    void chartWithTheNodeReadinessControllerRendersTheOverlayWithTheComponent()
            throws IOException
    {
        Rendered chart = HelmChart.render(Map.of("iptablesMode", "legacy", "cniChain.nodeReadiness.enabled", true));
        Path dir = Path.of("target", "kustomize-agreement", "linkerd-node-readiness");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                  - ../../../kubernetes/overlays/linkerd
                components:
                  - ../../../kubernetes/components/node-readiness
                """);
        assertSameObjects(chart, kustomize(dir.toAbsolutePath()));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Overlay.class)
    void chartWithAPlatformsDirectoriesMountsAndConfiguresWhatItsKustomizationDoes(Overlay overlay)
    {
        Rendered chart = HelmChart.render(Map.of("destCNINetDir", overlay.confDir().toString(), "destCNIBinDir", overlay.binDir().toString(),
                "cniChain.adapter", overlay.adapter(), "iptablesMode", overlay == Overlay.LINKERD ? "legacy" : "nft"));
        Rendered kustomize = kustomize(overlay.dir());
        assertThat(chart.pod().getVolumes()).as("volumes").isEqualTo(kustomize.pod().getVolumes());
        assertThat(chart.agent().getVolumeMounts()).as("the agent's mounts").isEqualTo(kustomize.agent().getVolumeMounts());
        AgentConfig fromChart = chart.agentConfig(scratch);
        AgentConfig fromKustomize = kustomize.agentConfig(scratch);
        assertThat(fromChart.paths()).isEqualTo(fromKustomize.paths());
        assertThat(fromChart.adapters()).isEqualTo(fromKustomize.adapters());
        assertThat(fromChart.run()).isEqualTo(fromKustomize.run());
        assertThat(fromChart.log()).isEqualTo(fromKustomize.log());
        assertThat(fromChart.nodeTaint()).isEqualTo(fromKustomize.nodeTaint());
        assertThat(fromChart.kubeconfig()).isEqualTo(fromKustomize.kubeconfig());
        assertThat(fromChart.plugin().template()).as("the entry (the base's from the file's defaults, the chart's from linkerd2-cni's)")
                .isEqualTo(fromKustomize.plugin().template());
    }

    /** The settings alone: not the file's bytes (its digest), which differ in comments and layout. */
    private static AgentConfig loaded(AgentConfig config)
    {
        return new AgentConfig(config.configFile(), config.paths(), config.adapters(), config.plugin(), config.placement(), config.kubeconfig(), config.apiServer(),
                config.run(), config.nodeTaint(), config.log(), java.util.Optional.empty());
    }

    private void assertSameObjects(Rendered chart, Rendered kustomize)
    {
        assertThat(loaded(chart.agentConfig(scratch))).as("the agent's configuration, as its loader reads it").isEqualTo(loaded(kustomize.agentConfig(scratch)));
        Map<String, HasMetadata> fromChart = normalized(chart);
        Map<String, HasMetadata> fromKustomize = normalized(kustomize);
        assertThat(fromChart.keySet()).as("the same objects").isEqualTo(fromKustomize.keySet());
        for (String key : fromChart.keySet()) {
            assertThat(fromChart.get(key)).as(key).isEqualTo(fromKustomize.get(key));
        }
    }

    private static Rendered kustomize(Path dir)
    {
        String yaml = Kustomize.render(dir).replaceAll("\\b(cni-chain-config|linkerd-cni-config)-[a-z0-9]{10}\\b", "$1");
        return new Rendered(KubernetesObjects.parse(yaml));
    }

    /** The objects by kind and name, with what may differ taken out (the objects are changed: each test renders its own). */
    private static Map<String, HasMetadata> normalized(Rendered rendered)
    {
        Map<String, HasMetadata> objects = new TreeMap<>();
        for (HasMetadata object : rendered.objects()) {
            if (object instanceof Namespace) {
                continue;
            }
            Map<String, String> labels = object.getMetadata().getLabels();
            if (labels != null) {
                labels.remove("helm.sh/chart");
                labels.remove("app.kubernetes.io/managed-by");
            }
            if (object instanceof ConfigMap configMap) {
                Map<String, String> data = new TreeMap<>(configMap.getData());
                data.remove("cni-chain.yaml");
                // The entry's JSON, rewritten in one form.
                data.computeIfPresent("cni_network_config", (key, json) -> CniJson.compact(CniJson.parse(json.getBytes(StandardCharsets.UTF_8))));
                configMap.setData(data);
            }
            if (object instanceof DaemonSet daemonSet) {
                var template = daemonSet.getSpec().getTemplate();
                template.getMetadata().getAnnotations().remove("checksum/config");
                template.getMetadata().getAnnotations().remove("checksum/linkerd-cni-config");
                for (Container container : template.getSpec().getContainers()) {
                    container.setEnv(container.getEnv().stream().sorted(Comparator.comparing(EnvVar::getName)).toList());
                }
            }
            objects.put(object.getKind() + "/" + object.getMetadata().getName(), object);
        }
        return objects;
    }
}
