package io.cnichain.distribution.kubernetes;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a platform team reviews before a DaemonSet runs on every node, checked on every rendering: each kustomization,
 * the base with each component, and the chart with its defaults and each way of lifting the start-up taint. The
 * pods run with the runtime's default seccomp profile; no container gets a token unless it calls the API server (the
 * agent, and Linkerd's repair controller when enabled), and that token is a projected one of 3607 s; the init
 * container is not root; the probes stay on loopback; and each service account has exactly the rights listed here,
 * one per call (base/rbac.yaml and the components name the calls).
 */
class SecuritySurfaceTest
{
    private static final Path SERVICE_ACCOUNT_DIR = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");
    private static final String NS = "cni-chain";

    /** The agent's: its node, its pod and its DaemonSet read on SIGTERM, and the plugin's token requested. */
    private static final Set<String> AGENT_RIGHTS = Set.of("cluster: nodes get", "cni-chain: pods get", "cni-chain: apps/daemonsets/cni-chain get",
            "cni-chain: serviceaccounts/token/cni-chain-plugin create");
    /** linkerd-cni's GETs, with the token on the node's disk: nothing of the agent's. */
    private static final List<String> PLUGIN_RIGHTS = List.of("cluster: namespaces get", "cluster: pods get", "cluster: services/kubernetes get");

    static Stream<Arguments> renderings()
    {
        List<Arguments> all = new ArrayList<>();
        for (Overlay overlay : Overlay.values()) {
            all.add(rendering("kustomize " + overlay.relative(), () -> Rendered.of(overlay.dir()), AGENT_RIGHTS, false));
        }
        all.add(rendering("kustomize base + components/node-taint", () -> withComponent("node-taint"), plus(AGENT_RIGHTS, "cluster: nodes patch"), false));
        all.add(rendering("kustomize base + components/node-readiness", () -> withComponent("node-readiness"), AGENT_RIGHTS, true));
        all.add(rendering("chart defaults", () -> HelmChart.render(Map.of()), AGENT_RIGHTS, false));
        all.add(rendering("chart cniChain.nodeTaint", () -> HelmChart.render(Map.of("cniChain.nodeTaint.enabled", true)),
                plus(AGENT_RIGHTS, "cluster: nodes patch"), false));
        all.add(rendering("chart cniChain.nodeReadiness", () -> HelmChart.render(Map.of("cniChain.nodeReadiness.enabled", true)), AGENT_RIGHTS, true));
        all.add(rendering("chart repairController", () -> HelmChart.render(Map.of("repairController.enabled", true)),
                plus(AGENT_RIGHTS, "cluster: pods list", "cluster: pods watch", "cluster: pods delete", "cluster: events.k8s.io/events create"), false));
        return all.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("renderings")
    void podsRunConfinedAndOnlyTheAgentHoldsAToken(String name, Supplier<Rendered> render, Set<String> agentRights, boolean reporter)
    {
        Rendered rendered = render.get();
        for (DaemonSet daemonSet : rendered.all(DaemonSet.class)) {
            PodSpec pod = daemonSet.getSpec().getTemplate().getSpec();
            assertThat(pod.getSecurityContext().getSeccompProfile().getType()).as("%s: seccomp", daemonSet.getMetadata().getName())
                    .isEqualTo("RuntimeDefault");
        }
        PodSpec pod = rendered.pod();
        assertThat(pod.getAutomountServiceAccountToken()).as("no token in every container").isFalse();
        List<Container> all = new ArrayList<>(pod.getInitContainers());
        all.addAll(pod.getContainers());
        for (Container container : all) {
            boolean callsTheApi = container.getName().equals("cni-chain") || container.getName().equals("repair-controller");
            var mount = Rendered.mountAt(container, SERVICE_ACCOUNT_DIR);
            assertThat(mount.isPresent()).as("%s has the token", container.getName()).isEqualTo(callsTheApi);
            mount.ifPresent(m -> {
                assertThat(m.getReadOnly()).isTrue();
                assertToken(rendered.volume(m.getName()));
            });
        }
        for (Container init : pod.getInitContainers()) {
            assertThat(init.getSecurityContext().getRunAsNonRoot()).as("%s not as root", init.getName()).isTrue();
            assertThat(init.getSecurityContext().getRunAsUser()).as(init.getName()).isPositive();
        }
        Container agent = rendered.agent();
        assertThat(List.of(agent.getLivenessProbe(), agent.getReadinessProbe()))
                .allSatisfy(probe -> assertThat(probe.getHttpGet().getHost()).as("probes on loopback").isEqualTo("127.0.0.1"));

        assertThat(rights(rendered, "cni-chain")).as("the agent's account: one right per call").containsExactlyElementsOf(new TreeSet<>(agentRights));
        assertThat(rights(rendered, "cni-chain-plugin")).as("the plugin's account, whose token lies on the node's disk").isEqualTo(PLUGIN_RIGHTS);
        assertThat(rendered.named(io.fabric8.kubernetes.api.model.ServiceAccount.class, "cni-chain-plugin").getAutomountServiceAccountToken())
                .as("never mounted").isFalse();
        assertThat(rights(rendered, "cni-chain")).as("nothing that writes a Node, unless the built-in remover is on")
                .filteredOn(right -> right.startsWith("cluster: nodes") && !right.endsWith(" get"))
                .isEqualTo(agentRights.contains("cluster: nodes patch") ? List.of("cluster: nodes patch") : List.of());
        if (reporter) {
            assertThat(rights(rendered, "cni-chain-readiness-reporter")).as("the reporter's: read its node, write its status")
                    .containsExactly("cluster: nodes get", "cluster: nodes/status update");
            DaemonSet reporterSet = rendered.named(DaemonSet.class, "cni-chain-readiness-reporter");
            Container container = reporterSet.getSpec().getTemplate().getSpec().getContainers().get(0);
            assertThat(container.getSecurityContext().getRunAsNonRoot()).isTrue();
            assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
            assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        }
        else {
            assertThat(rendered.all(DaemonSet.class)).hasSize(1);
        }
    }

    /** The projected token: 3607 s, with the CA and the namespace, as automount would give. */
    private static void assertToken(Volume volume)
    {
        assertThat(volume.getProjected()).as("%s is projected", volume.getName()).isNotNull();
        List<VolumeProjection> sources = volume.getProjected().getSources();
        assertThat(sources).hasSize(3);
        assertThat(sources.get(0).getServiceAccountToken().getPath()).isEqualTo("token");
        assertThat(sources.get(0).getServiceAccountToken().getExpirationSeconds()).as("the lifetime the API server extends").isEqualTo(3607L);
        assertThat(sources.get(0).getServiceAccountToken().getAudience()).as("the API server's own audience").isNull();
        assertThat(sources.get(1).getConfigMap().getName()).isEqualTo("kube-root-ca.crt");
        assertThat(sources.get(1).getConfigMap().getItems()).singleElement().satisfies(item -> {
            assertThat(item.getKey()).isEqualTo("ca.crt");
            assertThat(item.getPath()).isEqualTo("ca.crt");
        });
        assertThat(sources.get(2).getDownwardAPI().getItems()).singleElement().satisfies(item -> {
            assertThat(item.getPath()).isEqualTo("namespace");
            assertThat(item.getFieldRef().getFieldPath()).isEqualTo("metadata.namespace");
        });
    }

    /** Every right bound to a service account, as "cluster: [group/]resource[/name] verb" or "NAMESPACE: ...". */
    static List<String> rights(Rendered rendered, String serviceAccount)
    {
        Set<String> rights = new TreeSet<>();
        for (ClusterRoleBinding binding : rendered.all(ClusterRoleBinding.class)) {
            if (boundTo(binding.getSubjects(), serviceAccount)) {
                ClusterRole role = rendered.named(ClusterRole.class, binding.getRoleRef().getName());
                add(rights, "cluster", role.getRules());
            }
        }
        for (RoleBinding binding : rendered.all(RoleBinding.class)) {
            if (boundTo(binding.getSubjects(), serviceAccount)) {
                Role role = rendered.named(Role.class, binding.getRoleRef().getName());
                add(rights, role.getMetadata().getNamespace(), role.getRules());
            }
        }
        return List.copyOf(rights);
    }

    private static boolean boundTo(List<Subject> subjects, String serviceAccount)
    {
        return subjects.stream().anyMatch(s -> s.getKind().equals("ServiceAccount") && s.getName().equals(serviceAccount) && s.getNamespace().equals(NS));
    }

    private static void add(Set<String> rights, String scope, List<PolicyRule> rules)
    {
        for (PolicyRule rule : rules) {
            for (String group : rule.getApiGroups()) {
                for (String resource : rule.getResources()) {
                    List<String> names = rule.getResourceNames() == null || rule.getResourceNames().isEmpty() ? List.of("") : rule.getResourceNames();
                    for (String name : names) {
                        for (String verb : rule.getVerbs()) {
                            rights.add(scope + ": " + (group.isEmpty() ? "" : group + "/") + resource + (name.isEmpty() ? "" : "/" + name) + " " + verb);
                        }
                    }
                }
            }
        }
    }

    private static Rendered withComponent(String component)
    {
        try {
            Path dir = Path.of("target", "kustomize-surface", component);
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("kustomization.yaml"), """
                    apiVersion: kustomize.config.k8s.io/v1beta1
                    kind: Kustomization
                    resources:
                      - ../../../kubernetes/base
                    components:
                      - ../../../kubernetes/components/%s
                    """.formatted(component));
            return new Rendered(KubernetesObjects.parse(Kustomize.render(dir.toAbsolutePath())));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Arguments rendering(String name, Supplier<Rendered> render, Set<String> rights, boolean reporter)
    {
        return Arguments.of(name, render, rights, reporter);
    }

    private static Set<String> plus(Set<String> rights, String... more)
    {
        Set<String> all = new TreeSet<>(rights);
        all.addAll(List.of(more));
        return all;
    }
}
