package io.cnichain.distribution.kubernetes;

import io.cnichain.distribution.kubernetes.AdmissionPolicy.Decision;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.cnichain.distribution.kubernetes.NodeTaintAdmissionPolicyTest.fenced;
import static io.cnichain.distribution.kubernetes.NodeTaintAdmissionPolicyTest.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The readiness reporter's fence, evaluated with the CEL library as the API server would evaluate it (see
 * {@link AdmissionPolicy} for what that leaves out): the reporter's token may update only its own Node's status
 * ({@code nodes/status}, the token's node-name claim), and there only its own condition type; under renaming too.
 */
class ReporterAdmissionPolicyTest
{
    private static final String CONDITION = "cni-chain.io/PluginReady";
    private static final Map<String, Object> NODE_NAME_A = Map.of("authentication.kubernetes.io/node-name", List.of("node-a"));

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"kustomize", "chart"})
    void itsOwnConditionOnItsOwnNodeAndNothingElse(String source)
            throws IOException
    {
        Rendered rendered = source.equals("chart") ? HelmChart.render(Map.of("cniChain.nodeReadiness.enabled", true)) : kustomized("", "");
        AdmissionPolicy policy = fenced(rendered);
        Map<String, Object> reporterOnA = request("system:serviceaccount:cni-chain:cni-chain-readiness-reporter", NODE_NAME_A);
        Map<String, Object> old = node("node-a", List.of(condition("Ready", "True"), condition(CONDITION, "False")));

        assertThat(policy.evaluate(reporterOnA, old, node("node-a", List.of(condition("Ready", "True"), condition(CONDITION, "True")))))
                .isEqualTo(new Decision.Allowed());
        assertThat(policy.evaluate(reporterOnA, node("node-a", List.of(condition("Ready", "True"))),
                node("node-a", List.of(condition("Ready", "True"), condition(CONDITION, "True"))))).as("added the first time").isEqualTo(new Decision.Allowed());
        assertThat(policy.evaluate(reporterOnA, node("node-b", List.of(condition(CONDITION, "False"))), node("node-b", List.of(condition(CONDITION, "True")))))
                .as("another node").isInstanceOfSatisfying(Decision.Denied.class,
                        denied -> assertThat(denied.message()).contains("only the node its token is bound to (node-a), not node-b"));
        assertThat(policy.evaluate(reporterOnA, old, node("node-a", List.of(condition("Ready", "False"), condition(CONDITION, "True")))))
                .as("the kubelet's condition").isInstanceOfSatisfying(Decision.Denied.class,
                        denied -> assertThat(denied.message()).isEqualTo("the readiness reporter may change only the node condition " + CONDITION));
        assertThat(policy.evaluate(reporterOnA, old, node("node-a", List.of(condition("Ready", "True"), condition(CONDITION, "True"),
                condition("cni-chain.io/Other", "True"))))).as("another condition added").isInstanceOf(Decision.Denied.class);
        Map<String, Object> labelled = node("node-a", List.of(condition("Ready", "True"), condition(CONDITION, "True")));
        labelled.put("metadata", Map.of("name", "node-a", "labels", Map.of("node-restriction.kubernetes.io/pool", "sensitive")));
        assertThat(policy.evaluate(reporterOnA, old, labelled)).as("a label, which a status update keeps").isInstanceOfSatisfying(Decision.Denied.class,
                denied -> assertThat(denied.message()).contains("labels"));
        Map<String, Object> moved = node("node-a", List.of(condition("Ready", "True"), condition(CONDITION, "True")));
        moved.put("status", Map.of("conditions", List.of(condition("Ready", "True"), condition(CONDITION, "True")), "nodeInfo",
                Map.of("kubeletVersion", "v1.31.0"), "addresses", List.of(Map.of("type", "InternalIP", "address", "203.0.113.7"))));
        assertThat(policy.evaluate(reporterOnA, old, moved)).as("an address").isInstanceOfSatisfying(Decision.Denied.class,
                denied -> assertThat(denied.message()).contains("nothing of a node's status but its condition"));
        assertThat(policy.evaluate(request("system:serviceaccount:cni-chain:cni-chain-readiness-reporter", Map.of()), old, old))
                .as("a token without the node-name claim").isInstanceOf(Decision.Denied.class);
        assertThat(policy.evaluate(request("system:node:node-a", Map.of()), old, node("node-a", List.of())))
                .as("the kubelet is not fenced by this").isInstanceOf(Decision.NotApplicable.class);
    }

    @Test
    void theFenceNamesTheRenderedAccountExactly()
            throws IOException
    {
        Rendered kustomized = kustomized("namePrefix: prod-\n", "namespace: mesh-system\n");
        Rendered released = HelmChart.render("mesh-system", Map.of("cniChain.nodeReadiness.enabled", true));
        Map<String, Object> old = node("node-a", List.of(condition(CONDITION, "False")));
        Map<String, Object> otherNode = node("node-b", List.of(condition(CONDITION, "False")));
        for (Map.Entry<String, Rendered> rendering : Map.of("system:serviceaccount:mesh-system:prod-cni-chain-readiness-reporter", kustomized,
                "system:serviceaccount:mesh-system:cni-chain-readiness-reporter", released).entrySet()) {
            AdmissionPolicy policy = fenced(rendering.getValue());
            assertThat(policy.evaluate(request(rendering.getKey(), NODE_NAME_A), otherNode, node("node-b", List.of(condition(CONDITION, "True")))))
                    .as(rendering.getKey()).isInstanceOf(Decision.Denied.class);
            assertThat(policy.evaluate(request(rendering.getKey(), NODE_NAME_A), old, node("node-a", List.of(condition(CONDITION, "True")))))
                    .as(rendering.getKey()).isEqualTo(new Decision.Allowed());
        }
        assertThat(HelmChart.render(Map.of("cniChain.nodeReadiness.enabled", true, "cniChain.nodeReadiness.admissionPolicy", false))
                .all(io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy.class)).as("left out before 1.30").isEmpty();
    }

    private static Map<String, Object> node(String name, List<Map<String, Object>> conditions)
    {
        Map<String, Object> node = new LinkedHashMap<>();
        node.put("metadata", Map.of("name", name));
        node.put("status", Map.of("conditions", new ArrayList<>(conditions), "nodeInfo", Map.of("kubeletVersion", "v1.31.0")));
        return node;
    }

    private static Map<String, Object> condition(String type, String status)
    {
        return Map.of("type", type, "status", status, "reason", status.equals("True") ? "Ready" : "NotReady");
    }

    private static Rendered kustomized(String namePrefix, String namespace)
            throws IOException
    {
        Path dir = Path.of("target", "kustomize-reporter-policy" + (namePrefix.isEmpty() ? "" : "-renamed"));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                %s%sresources:
                  - ../../kubernetes/base
                components:
                  - ../../kubernetes/components/node-readiness
                """.formatted(namePrefix, namespace));
        return new Rendered(KubernetesObjects.parse(Kustomize.render(dir.toAbsolutePath())));
    }
}
