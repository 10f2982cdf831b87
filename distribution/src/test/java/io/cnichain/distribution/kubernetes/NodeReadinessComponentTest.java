package io.cnichain.distribution.kubernetes;

import io.cnichain.core.config.AgentConfig;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * components/node-readiness added to the base and to the linkerd overlay, and the chart's cniChain.nodeReadiness: the
 * NodeReadinessRule lifts the agent's start-up taint once the node condition the reporter writes is True, and the
 * reporter reads exactly the agent's /readyz, on loopback, at the agent's health port. The agent itself does not
 * remove the taint (SecuritySurfaceTest: nor may it change a Node).
 */
class NodeReadinessComponentTest
{
    @TempDir
    Path scratch;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"base", "overlays/linkerd", "chart"})
    void theRuleLiftsTheAgentsTaintWhenTheReporterSeesItsReadiness(String source)
            throws IOException
    {
        Rendered rendered = source.equals("chart") ? HelmChart.render(Map.of("cniChain.nodeReadiness.enabled", true)) : kustomize(source);
        AgentConfig config = rendered.agentConfig(scratch);
        assertThat(config.nodeTaint().enabled()).as("the agent leaves the taint to the controller").isFalse();

        NodeReadinessRule rule = rendered.one(NodeReadinessRule.class);
        assertThat(rule.getMetadata().getNamespace()).as("cluster-scoped").isNull();
        assertThat(rule.getSpec().taint().getKey()).as("the taint the nodes are registered with (the CRD's rules: NodeReadinessRuleCrdTest)")
                .isEqualTo(NodeReadinessRuleCrdTest.TAINT_KEY);
        assertThat(rule.getSpec().taint().getEffect()).isEqualTo("NoSchedule");
        assertThat(rule.getSpec().enforcementMode()).as("lifted once, as the built-in remover does").isEqualTo("bootstrap-only");
        assertThat(rule.getSpec().dryRun()).isNull();
        assertThat(rule.getSpec().nodeSelector().getMatchLabels()).as("the nodes the agent runs on")
                .isEqualTo(rendered.pod().getNodeSelector());
        assertThat(rule.getSpec().conditions()).singleElement().satisfies(condition -> {
            assertThat(condition.type()).startsWith("cni-chain.io/");
            assertThat(condition.requiredStatus()).isEqualTo("True");
        });
        assertThat(rendered.pod().getTolerations()).as("the agent starts on tainted nodes, should the base's tolerations be narrowed too")
                .anySatisfy(t -> {
                    assertThat(t.getKey()).isEqualTo(NodeReadinessRuleCrdTest.TAINT_KEY);
                    assertThat(t.getOperator()).isEqualTo("Exists");
                });

        DaemonSet reporter = rendered.named(DaemonSet.class, "cni-chain-readiness-reporter");
        PodSpec pod = reporter.getSpec().getTemplate().getSpec();
        assertThat(pod.getHostNetwork()).as("the agent's listener is on the node's loopback").isTrue();
        assertThat(pod.getServiceAccountName()).isEqualTo("cni-chain-readiness-reporter");
        assertThat(pod.getTolerations()).anySatisfy(t -> {
            assertThat(t.getOperator()).isEqualTo("Exists");
            assertThat(t.getKey()).isNull();
        });
        assertThat(pod.getNodeSelector()).isEqualTo(rendered.pod().getNodeSelector());
        Container container = pod.getContainers().get(0);
        assertThat(container.getImage()).contains("/node-readiness-reporter:");
        Map<String, String> env = container.getEnv().stream().filter(e -> e.getValue() != null).collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
        assertThat(container.getEnv()).filteredOn(e -> e.getName().equals("NODE_NAME")).singleElement()
                .satisfies(e -> assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName"));
        URI endpoint = URI.create(env.get("CHECK_ENDPOINT"));
        assertThat(endpoint.getScheme()).isEqualTo("http");
        assertThat(endpoint.getHost()).isEqualTo("127.0.0.1");
        assertThat(endpoint.getPort()).as("the agent's healthPort").isEqualTo(config.run().healthPort());
        assertThat(endpoint.getPath()).isEqualTo("/readyz");
        assertThat(env.get("CONDITION_TYPE")).as("the rule's condition").isEqualTo(rule.getSpec().conditions().get(0).type());
        assertThat(env.get("CHECK_INTERVAL")).isEqualTo("5s");
        assertThat(env.get("METRICS_BIND_ADDRESS")).as("its own metrics on loopback too").startsWith("127.0.0.1:");
    }

    @org.junit.jupiter.api.Test
    void theChartsReporterFollowsTheHealthPortAndTheRuleItsValues()
            throws IOException
    {
        Rendered chart = HelmChart.render(Map.of("cniChain.nodeReadiness.enabled", true, "cniChain.healthPort", 9555,
                "cniChain.nodeReadiness.enforcementMode", "continuous", "cniChain.nodeReadiness.conditionType", "cni-chain.io/MeshReady"));
        Container reporter = chart.named(DaemonSet.class, "cni-chain-readiness-reporter").getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(reporter.getEnv()).extracting(EnvVar::getName, EnvVar::getValue)
                .contains(org.assertj.core.groups.Tuple.tuple("CHECK_ENDPOINT", "http://127.0.0.1:9555/readyz"),
                        org.assertj.core.groups.Tuple.tuple("CONDITION_TYPE", "cni-chain.io/MeshReady"));
        NodeReadinessRule rule = chart.one(NodeReadinessRule.class);
        assertThat(rule.getSpec().enforcementMode()).isEqualTo("continuous");
        assertThat(rule.getSpec().conditions()).extracting(NodeReadinessRule.Condition::type).containsExactly("cni-chain.io/MeshReady");
    }

    private static Rendered kustomize(String kustomization)
            throws IOException
    {
        Path dir = Path.of("target", "kustomize-node-readiness", kustomization.replace('/', '-'));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                  - ../../../kubernetes/%s
                components:
                  - ../../../kubernetes/components/node-readiness
                """.formatted(kustomization));
        return Rendered.of(dir.toAbsolutePath());
    }
}
