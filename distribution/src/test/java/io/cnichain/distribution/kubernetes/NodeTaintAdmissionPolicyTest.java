package io.cnichain.distribution.kubernetes;

import io.cnichain.distribution.kubernetes.AdmissionPolicy.Decision;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.NamedRuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fence around the start-up taint's remover: the ValidatingAdmissionPolicy that components/node-taint and the
 * chart's cniChain.nodeTaint render, its CEL evaluated by a real CEL evaluator ({@link AdmissionPolicy}) against node
 * updates as the API server hands them to it (the JSON patch already applied to {@code object}). The agent's own
 * patch passes; everything else that token could be used for is denied. Rendered from both sources, which must
 * agree (ChartKustomizeAgreementTest compares the objects too).
 */
class NodeTaintAdmissionPolicyTest
{
    private static final String AGENT = "system:serviceaccount:cni-chain:cni-chain";
    private static final String KEY = "cni-chain.io/not-ready";
    private static final String NODE = """
            metadata:
              name: node-a
              labels: {kubernetes.io/os: linux, kubernetes.io/hostname: node-a}
              annotations: {node.alpha.kubernetes.io/ttl: "0"}
            spec:
              podCIDR: 10.244.1.0/24
              podCIDRs: [10.244.1.0/24]
              providerID: kind://docker/kind/node-a
              taints:
                - {key: node.kubernetes.io/not-ready, effect: NoSchedule}
                - {key: cni-chain.io/not-ready, value: "true", effect: NoSchedule}
                - {key: dedicated, value: mesh, effect: NoExecute}
            """;

    private static AdmissionPolicy fromKustomize;
    private static AdmissionPolicy fromChart;

    @BeforeAll
    static void render()
            throws IOException
    {
        Path dir = Path.of("target", "kustomize-admission-policy");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                  - ../../kubernetes/base
                components:
                  - ../../kubernetes/components/node-taint
                """);
        Rendered kustomize = new Rendered(KubernetesObjects.parse(Kustomize.render(dir.toAbsolutePath())));
        fromKustomize = fenced(kustomize);
        fromChart = fenced(HelmChart.render(Map.of("cniChain.nodeTaint.enabled", true)));
    }

    /** The rendered policy, with the param its binding names: the rendered ClusterRoleBinding, as the API server reads it. */
    static AdmissionPolicy fenced(Rendered rendered)
    {
        ValidatingAdmissionPolicy policy = checkedPolicy(rendered);
        String paramName = rendered.one(ValidatingAdmissionPolicyBinding.class).getSpec().getParamRef().getName();
        ClusterRoleBinding binding = rendered.named(ClusterRoleBinding.class, paramName);
        return new AdmissionPolicy(policy, new com.fasterxml.jackson.databind.ObjectMapper().convertValue(binding, Map.class));
    }

    /** The policy applies to Node updates, fails closed, and is bound with Deny. */
    static ValidatingAdmissionPolicy checkedPolicy(Rendered rendered)
    {
        ValidatingAdmissionPolicy policy = rendered.one(ValidatingAdmissionPolicy.class);
        assertThat(policy.getSpec().getFailurePolicy()).isEqualTo("Fail");
        assertThat(policy.getSpec().getMatchConstraints().getResourceRules()).singleElement().satisfies((NamedRuleWithOperations rule) -> {
            assertThat(rule.getApiGroups()).containsExactly("");
            assertThat(rule.getResources()).as("the remover's Node updates, or the reporter's status updates").containsAnyOf("nodes", "nodes/status")
                    .hasSize(1);
            assertThat(rule.getOperations()).containsExactly("UPDATE");
        });
        ValidatingAdmissionPolicyBinding binding = rendered.one(ValidatingAdmissionPolicyBinding.class);
        assertThat(binding.getSpec().getPolicyName()).isEqualTo(policy.getMetadata().getName());
        assertThat(binding.getSpec().getValidationActions()).containsExactly("Deny");
        assertThat(binding.getSpec().getMatchResources()).as("every node").isNull();
        assertThat(policy.getSpec().getParamKind().getKind()).isEqualTo("ClusterRoleBinding");
        assertThat(binding.getSpec().getParamRef().getName()).as("the binding that grants the fenced account's rights, named as the policy")
                .isEqualTo(policy.getMetadata().getName());
        assertThat(rendered.named(ClusterRoleBinding.class, binding.getSpec().getParamRef().getName()).getRoleRef().getName())
                .isEqualTo(policy.getMetadata().getName());
        assertThat(binding.getSpec().getParamRef().getParameterNotFoundAction()).as("gone: the account has no rights left to fence").isEqualTo("Allow");
        return policy;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"kustomize", "chart"})
    void theAgentRemovingTheTaintFromItsOwnNodeIsAllowed(String source)
    {
        Map<String, Object> old = node();
        Map<String, Object> patched = withTaints(old, List.of(taint(old, 0), taint(old, 2)));
        assertThat(policy(source).evaluate(agentOn("node-a"), old, patched)).isEqualTo(new Decision.Allowed());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"kustomize", "chart"})
    void everyTaintWithTheKeyMayGoAndAnUpdateThatChangesNothingPasses(String source)
    {
        Map<String, Object> old = withTaints(node(), List.of(taint(node(), 1), Map.of("key", KEY, "effect", "NoExecute")));
        assertThat(policy(source).evaluate(agentOn("node-a"), old, withTaints(old, List.of()))).isEqualTo(new Decision.Allowed());
        assertThat(policy(source).evaluate(agentOn("node-a"), node(), node())).isEqualTo(new Decision.Allowed());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"kustomize", "chart"})
    void theTokenOfAnotherNodeIsDeniedWhoeverHoldsIt(String source)
    {
        Map<String, Object> old = node();
        Map<String, Object> patched = withTaints(old, List.of(taint(old, 0), taint(old, 2)));
        assertThat(policy(source).evaluate(agentOn("node-b"), old, patched)).isInstanceOfSatisfying(Decision.Denied.class,
                denied -> assertThat(denied.message()).isEqualTo("cni-chain may change only the node its token is bound to (node-b), not node-a"));
        Map<String, Object> noClaim = request(AGENT, Map.of());
        assertThat(policy(source).evaluate(noClaim, old, patched)).as("a token without the node-name claim (a legacy Secret's, or Kubernetes < 1.30)")
                .isInstanceOfSatisfying(Decision.Denied.class, denied -> assertThat(denied.message()).contains("(none)"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"kustomize", "chart"})
    void anyOtherChangeToItsOwnNodeIsDenied(String source)
    {
        Map<String, Object> old = node();
        Map<String, Object> request = agentOn("node-a");
        Map<String, Decision> decisions = new LinkedHashMap<>();
        decisions.put("remove another taint", policy(source).evaluate(request, old, withTaints(old, List.of(taint(old, 1), taint(old, 2)))));
        decisions.put("add a taint", policy(source).evaluate(request, old,
                withTaints(old, List.of(taint(old, 0), taint(old, 1), taint(old, 2), Map.of("key", "evil", "effect", "NoExecute")))));
        decisions.put("change the taint's effect", policy(source).evaluate(request, old,
                withTaints(old, List.of(taint(old, 0), Map.of("key", KEY, "value", "true", "effect", "NoExecute"), taint(old, 2)))));
        decisions.put("label", policy(source).evaluate(request, old, with(old, "metadata", "labels", Map.of("kubernetes.io/os", "linux"))));
        decisions.put("annotate", policy(source).evaluate(request, old, with(old, "metadata", "annotations", Map.of("a", "b"))));
        decisions.put("add a finalizer", policy(source).evaluate(request, old, with(old, "metadata", "finalizers", List.of("x/y"))));
        decisions.put("add an owner", policy(source).evaluate(request, old, with(old, "metadata", "ownerReferences",
                List.of(Map.of("apiVersion", "v1", "kind", "Pod", "name", "p", "uid", "1")))));
        decisions.put("cordon", policy(source).evaluate(request, old, with(old, "spec", "unschedulable", true)));
        decisions.put("change the pod CIDR", policy(source).evaluate(request, old, with(old, "spec", "podCIDR", "10.0.0.0/8")));
        decisions.put("change the pod CIDRs", policy(source).evaluate(request, old, with(old, "spec", "podCIDRs", List.of("10.0.0.0/8"))));
        decisions.put("change the provider ID", policy(source).evaluate(request, old, with(old, "spec", "providerID", "aws:///x")));
        decisions.put("remove the taint and label in one patch", policy(source).evaluate(request, old,
                with(withTaints(old, List.of(taint(old, 0), taint(old, 2))), "metadata", "labels", Map.of())));
        assertThat(decisions).allSatisfy((change, decision) -> assertThat(decision).as(change).isInstanceOf(Decision.Denied.class));
        assertThat(((Decision.Denied) decisions.get("remove another taint")).message()).isEqualTo("cni-chain may remove only the start-up taint");
        assertThat(((Decision.Denied) decisions.get("add a taint")).message()).isEqualTo("cni-chain may not add or change a taint");
        assertThat(((Decision.Denied) decisions.get("cordon")).reason()).isEqualTo("Forbidden");
    }

    @Test
    void otherUsersAreNotFencedByThisPolicy()
    {
        Map<String, Object> old = node();
        Map<String, Object> kubelet = request("system:node:node-a", Map.of());
        assertThat(fromKustomize.evaluate(kubelet, old, with(old, "spec", "unschedulable", true))).isInstanceOf(Decision.NotApplicable.class);
        Map<String, Object> otherAccount = request("system:serviceaccount:kube-system:cni-chain-readiness-reporter", Map.of());
        assertThat(fromChart.evaluate(otherAccount, old, old)).isInstanceOf(Decision.NotApplicable.class);
        Map<String, Object> lookalike = request("system:cni-chain", Map.of());
        assertThat(fromChart.evaluate(lookalike, old, old)).as("not a service account").isInstanceOf(Decision.NotApplicable.class);
    }

    /**
     * Renamed: a kustomization with {@code namePrefix: prod-} and {@code namespace: mesh-system} over the component, and
     * a Helm release in mesh-system. The fence follows the account exactly as rendered: prod-cni-chain (kustomize) and
     * cni-chain (the chart) in mesh-system, and no one else, an account of the old name included.
     */
    @Test
    void theFenceNamesTheRenderedAccountExactly()
            throws IOException
    {
        Path dir = Path.of("target", "kustomize-admission-policy-renamed");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                namePrefix: prod-
                namespace: mesh-system
                resources:
                  - ../../kubernetes/base
                components:
                  - ../../kubernetes/components/node-taint
                """);
        Rendered kustomized = new Rendered(KubernetesObjects.parse(Kustomize.render(dir.toAbsolutePath())));
        Rendered released = HelmChart.render("mesh-system", Map.of("cniChain.nodeTaint.enabled", true));
        // The names the Role and the agent's environment give the plugin's account and the DaemonSet follow the prefix.
        assertThat(kustomized.environment(kustomized.agent())).containsEntry("CNI_CHAIN_PLUGIN_SERVICE_ACCOUNT", "prod-cni-chain-plugin");
        assertThat(kustomized.named(io.fabric8.kubernetes.api.model.rbac.Role.class, "prod-cni-chain").getRules())
                .flatExtracting(io.fabric8.kubernetes.api.model.rbac.PolicyRule::getResourceNames).containsExactlyInAnyOrder("prod-cni-chain", "prod-cni-chain-plugin");
        Map<String, Object> old = node();
        Map<String, Object> removeAnotherTaint = withTaints(old, List.of(taint(old, 0), taint(old, 2)));
        Map<String, Object> removeOurs = withTaints(old, List.of(taint(old, 0), taint(old, 2)));
        for (Map.Entry<String, Rendered> rendering : Map.of("system:serviceaccount:mesh-system:prod-cni-chain", kustomized,
                "system:serviceaccount:mesh-system:cni-chain", released).entrySet()) {
            AdmissionPolicy policy = fenced(rendering.getValue());
            String account = rendering.getKey();
            ServiceAccount agentAccount = rendering.getValue().named(ServiceAccount.class, rendering.getValue().pod().getServiceAccountName());
            assertThat(agentAccount.getMetadata().getNamespace() + ":" + agentAccount.getMetadata().getName()).isEqualTo(account.substring("system:serviceaccount:".length()));
            Map<String, Object> onNodeA = request(account, Map.of("authentication.kubernetes.io/node-name", List.of("node-a")));
            Map<String, Object> onNodeB = request(account, Map.of("authentication.kubernetes.io/node-name", List.of("node-b")));
            assertThat(policy.evaluate(onNodeB, old, removeOurs)).as(account + " on another node").isInstanceOf(Decision.Denied.class);
            assertThat(policy.evaluate(onNodeA, old, with(old, "spec", "unschedulable", true))).as(account + " cordoning").isInstanceOf(Decision.Denied.class);
            assertThat(policy.evaluate(request("system:serviceaccount:cni-chain:cni-chain", Map.of()), old, removeAnotherTaint))
                    .as("the default name, not rendered here").isInstanceOf(Decision.NotApplicable.class);
        }
    }

    @Test
    void theChartFencesItsOwnNamespaceAndKey()
    {
        Rendered rendered = HelmChart.render(List.of(), Map.of("cniChain.nodeTaint.enabled", true, "cniChain.nodeTaint.key", "example.com/mesh"));
        AdmissionPolicy policy = fenced(rendered);
        Map<String, Object> old = withTaints(node(), List.of(Map.of("key", "example.com/mesh", "effect", "NoSchedule"), taint(node(), 1)));
        assertThat(policy.evaluate(agentOn("node-a"), old, withTaints(old, List.of(taint(node(), 1))))).isEqualTo(new Decision.Allowed());
        assertThat(policy.evaluate(agentOn("node-a"), old, withTaints(old, List.of(taint(old, 0))))).isInstanceOf(Decision.Denied.class);
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> HelmChart.render(Map.of("cniChain.nodeTaint.enabled", true,
                "cniChain.nodeTaint.admissionPolicy", false)))).as("the right to patch Nodes never goes without its fence")
                .hasMessageContaining("without cniChain.nodeTaint.admissionPolicy");
    }

    private static AdmissionPolicy policy(String source)
    {
        return source.equals("chart") ? fromChart : fromKustomize;
    }

    /** The request as the API server builds it for the agent's bound token on a node. */
    private static Map<String, Object> agentOn(String node)
    {
        return request(AGENT, Map.of("authentication.kubernetes.io/node-name", List.of(node),
                "authentication.kubernetes.io/pod-name", List.of("cni-chain-x7k2p"),
                "authentication.kubernetes.io/credential-id", List.of("JTI=3f2a")));
    }

    static Map<String, Object> request(String user, Map<String, Object> extra)
    {
        Map<String, Object> userInfo = new LinkedHashMap<>();
        userInfo.put("username", user);
        userInfo.put("groups", List.of("system:serviceaccounts", "system:authenticated"));
        if (!extra.isEmpty()) {
            userInfo.put("extra", extra);
        }
        return Map.of("operation", "UPDATE", "userInfo", userInfo);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> node()
    {
        return (Map<String, Object>) new Yaml(new SafeConstructor(new LoaderOptions())).load(NODE);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> taint(Map<String, Object> node, int index)
    {
        return ((List<Map<String, Object>>) ((Map<String, Object>) node.get("spec")).get("taints")).get(index);
    }

    private static Map<String, Object> withTaints(Map<String, Object> node, List<Map<String, Object>> taints)
    {
        return with(node, "spec", "taints", taints);
    }

    /** A copy of the node with one field of metadata or spec set. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> with(Map<String, Object> node, String part, String field, Object value)
    {
        Map<String, Object> copy = new LinkedHashMap<>(node);
        Map<String, Object> section = new LinkedHashMap<>((Map<String, Object>) node.get(part));
        section.put(field, value);
        copy.put(part, section);
        return copy;
    }
}
