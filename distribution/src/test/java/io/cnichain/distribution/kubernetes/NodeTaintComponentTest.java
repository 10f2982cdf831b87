package io.cnichain.distribution.kubernetes;

import io.cnichain.core.config.AgentConfig;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up taint's component ({@code components/node-taint}) added to the base and to the linkerd overlay, as an
 * operator adds it: the agent's configuration turns the feature on for its own node, the node's taint is tolerated,
 * and the ClusterRole that comes with it grants exactly get and patch on nodes. Rendered by kubectl kustomize from a
 * kustomization written under target/ (kustomize only takes relative paths to other kustomizations).
 */
class NodeTaintComponentTest
{
    @TempDir
    Path scratch;

    @ParameterizedTest(name = "{0} + components/node-taint")
    @ValueSource(strings = {"base", "overlays/linkerd"})
    void theComponentEnablesTheTaintForTheAgentsOwnNode(String kustomization)
            throws IOException
    {
        Path dir = Path.of("target", "kustomize-node-taint", kustomization.replace('/', '-'));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                  - ../../../kubernetes/%s
                components:
                  - ../../../kubernetes/components/node-taint
                """.formatted(kustomization));
        Rendered rendered = Rendered.of(dir.toAbsolutePath());

        List<EnvVar> env = rendered.agent().getEnv();
        assertThat(env).filteredOn(v -> v.getName().equals("NODE_NAME")).singleElement()
                .satisfies(v -> assertThat(v.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName"));
        AgentConfig config = rendered.agentConfig(scratch);
        assertThat(config.nodeTaint().enabled()).isTrue();
        assertThat(config.nodeTaint().key()).isEqualTo("cni-chain.io/not-ready");
        assertThat(config.nodeTaint().nodeName()).contains(Rendered.NODE_NAME);

        assertThat(rendered.pod().getTolerations()).anySatisfy(t -> {
            assertThat(t.getKey()).isEqualTo("cni-chain.io/not-ready");
            assertThat(t.getOperator()).isEqualTo("Exists");
        });
        ClusterRole taintRole = rendered.all(ClusterRole.class).stream().filter(r -> r.getMetadata().getName().equals("cni-chain-node-taint"))
                .findFirst().orElseThrow();
        assertThat(taintRole.getRules()).singleElement().satisfies(rule -> {
            assertThat(rule.getResources()).containsExactly("nodes");
            assertThat(rule.getVerbs()).containsExactlyInAnyOrder("get", "patch");
        });
        // The fence applies to the accounts the remover's binding names, this one (NodeTaintAdmissionPolicyTest evaluates it).
        var policy = rendered.one(io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy.class);
        assertThat(policy.getSpec().getParamKind().getKind()).isEqualTo("ClusterRoleBinding");
        assertThat(policy.getSpec().getMatchConditions()).singleElement().satisfies(condition -> assertThat(condition.getExpression())
                .contains("params.subjects.exists(s, s.kind == 'ServiceAccount'"));
        assertThat(policy.getSpec().getVariables()).filteredOn(v -> v.getName().equals("taintKey")).singleElement()
                .satisfies(v -> assertThat(v.getExpression()).isEqualTo("'" + config.nodeTaint().key() + "'"));
        ClusterRoleBinding binding = rendered.all(ClusterRoleBinding.class).stream()
                .filter(b -> b.getRoleRef().getName().equals("cni-chain-node-taint")).findFirst().orElseThrow();
        assertThat(binding.getSubjects()).singleElement().satisfies(subject -> {
            assertThat(subject.getName()).isEqualTo(rendered.pod().getServiceAccountName());
            assertThat(subject.getNamespace()).isEqualTo(rendered.namespace().getMetadata().getName());
        });
    }
}
