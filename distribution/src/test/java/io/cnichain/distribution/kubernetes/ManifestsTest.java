package io.cnichain.distribution.kubernetes;

import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.CleanupMode;
import io.cnichain.core.config.PodIdentity;
import io.cnichain.core.json.CniJson;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every kustomization renders (through the real {@code kubectl kustomize}) into objects the Kubernetes object
 * model accepts field by field, and what the DaemonSet mounts, probes and passes is what the agent it runs is
 * configured to use: its configuration is loaded by the agent's own loader from the ConfigMap and the container's
 * environment. No API server is involved (none can run here): these checks stand in for {@code kubectl apply}.
 */
class ManifestsTest
{
    private static final String VERSION = System.getProperty("cnichain.version", "0.1.0");
    private static final Path SERVICE_ACCOUNT_DIR = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

    @TempDir
    Path scratch;

    @Test
    void everyKustomizationIsChecked()
            throws IOException
    {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Kustomize.MANIFESTS)) {
            files.filter(f -> f.getFileName().toString().equals("kustomization.yaml"))
                    .forEach(f -> found.add(Kustomize.MANIFESTS.relativize(f.getParent()).toString()));
        }
        // Components are added to a kustomization, not applied alone: NodeTaintComponentTest and
        // NodeReadinessComponentTest render each with one.
        assertThat(found).filteredOn(dir -> dir.startsWith("components/"))
                .containsExactlyInAnyOrder("components/node-taint", "components/node-readiness");
        assertThat(found).filteredOn(dir -> !dir.startsWith("components/"))
                .containsExactlyInAnyOrderElementsOf(Stream.of(Overlay.values()).map(Overlay::relative).toList());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Overlay.class)
    void agentConfigurationMatchesWhatTheDaemonSetMounts(Overlay overlay)
    {
        Rendered rendered = Rendered.of(overlay.dir());
        AgentConfig config = rendered.agentConfig(scratch);
        Container agent = rendered.agent();

        assertThat(config.paths().confDir()).as("confDir").isEqualTo(overlay.confDir());
        assertThat(config.paths().binDir()).as("binDir").isEqualTo(overlay.binDir());
        assertThat(config.adapters().choice()).as("adapter").hasToString(overlay.adapter());
        assertThat(config.paths().hostRoot()).isEqualTo(Path.of("/host"));
        assertThat(config.paths().allowedRoots()).as("links in the conf dir's own tree may be followed")
                .contains(overlay.confDir().getParent());

        for (Path hostDir : List.of(config.paths().confDir(), config.paths().binDir())) {
            Path inContainer = config.paths().hostRoot().resolve(Path.of("/").relativize(hostDir));
            VolumeMount mount = Rendered.mountAt(agent, inContainer)
                    .orElseThrow(() -> new AssertionError("the host dir " + hostDir + " is not mounted at " + inContainer));
            assertThat(mount.getReadOnly()).as("%s is written", inContainer).isNotEqualTo(Boolean.TRUE);
            // Kubernetes' volumes docs: with None (the default) the container sees no mount the host makes there after
            // it started; HostToContainer ("rslave") lets it see what the runtime, on the host, loads.
            assertThat(mount.getMountPropagation()).as("%s sees the host's later mounts", inContainer).isEqualTo("HostToContainer");
            Volume volume = rendered.volume(mount.getName());
            assertThat(volume.getHostPath()).as("volume %s", volume.getName()).isNotNull();
            assertThat(volume.getHostPath().getPath()).as("the hostPath behind %s", inContainer).isEqualTo(hostDir.toString());
        }

        assertThat(config.apiServer().serviceAccountDir()).isEqualTo(SERVICE_ACCOUNT_DIR);
        assertThat(Rendered.mountAt(agent, SERVICE_ACCOUNT_DIR)).as("the token the plugin's kubeconfig holds (SecuritySurfaceTest: which one)")
                .hasValueSatisfying(mount -> assertThat(rendered.volume(mount.getName()).getProjected()).isNotNull());
        assertThat(config.apiServer().host()).as("from the service Kubernetes sets").contains("10.96.0.1");

        assertThat(config.run().cleanupOnShutdown()).as("an update or a node shutdown keeps the plugin in place").isEqualTo(CleanupMode.AUTO);
        assertThat(config.run().pod()).as("who the agent is, for the decision on SIGTERM and the plugin's token")
                .contains(new PodIdentity(rendered.daemonSet().getMetadata().getNamespace(), Rendered.POD_NAME, Rendered.NODE_NAME));
        assertThat(config.kubeconfig().serviceAccount()).as("the kubeconfig holds the plugin's own token").contains("cni-chain-plugin");
        assertThat(rendered.pod().getTerminationGracePeriodSeconds()).as("grace period covers the cleanup")
                .isGreaterThanOrEqualTo(config.run().shutdownTimeout().toSeconds() + 5);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Overlay.class)
    void probesReachTheConfiguredHealthPort(Overlay overlay)
    {
        Rendered rendered = Rendered.of(overlay.dir());
        AgentConfig config = rendered.agentConfig(scratch);
        Container agent = rendered.agent();
        assertThat(config.run().healthPort()).isPositive();
        assertThat(port(agent, agent.getLivenessProbe())).as("liveness port").isEqualTo(config.run().healthPort());
        assertThat(port(agent, agent.getReadinessProbe())).as("readiness port").isEqualTo(config.run().healthPort());
        assertThat(port(agent, agent.getStartupProbe())).as("start-up port").isEqualTo(config.run().healthPort());
        assertThat(agent.getStartupProbe().getPeriodSeconds() * agent.getStartupProbe().getFailureThreshold())
                .as("seconds the first decision may take before liveness counts (it may wait 15 s for the node's runtime)").isGreaterThanOrEqualTo(30);
        assertThat(agent.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(agent.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(List.of(agent.getStartupProbe(), agent.getLivenessProbe(), agent.getReadinessProbe())).as("on loopback, where the health listener is")
                .allSatisfy(probe -> assertThat(probe.getHttpGet().getHost()).isEqualTo("127.0.0.1"));
        assertThat(rendered.pod().getHostNetwork()).as("probes reach the agent without the pod network").isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Overlay.class)
    void initContainerCopiesThePluginWhereTheAgentInstallsFrom(Overlay overlay)
    {
        Rendered rendered = Rendered.of(overlay.dir());
        AgentConfig config = rendered.agentConfig(scratch);
        VolumeMount source = Rendered.mountAt(rendered.agent(), config.paths().sourceBinDir())
                .orElseThrow(() -> new AssertionError("nothing mounted at sourceBinDir " + config.paths().sourceBinDir()));
        assertThat(rendered.volume(source.getName()).getEmptyDir()).as("an emptyDir").isNotNull();

        assertThat(rendered.pod().getInitContainers()).hasSize(1);
        Container init = rendered.pod().getInitContainers().get(0);
        VolumeMount target = init.getVolumeMounts().stream().filter(m -> m.getName().equals(source.getName())).findFirst()
                .orElseThrow(() -> new AssertionError("the init container does not mount " + source.getName()));
        List<String> command = init.getCommand();
        assertThat(command).hasSize(3);
        assertThat(command.get(0)).isEqualTo("cp");
        assertThat(Path.of(command.get(1)).getFileName()).as("the plugin's binary, named by its type")
                .hasToString(config.plugin().type());
        assertThat(Path.of(command.get(2))).isEqualTo(Path.of(target.getMountPath()).resolve(config.plugin().type()));
        assertThat(init.getImage()).startsWith("cr.l5d.io/linkerd/cni-plugin:");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Overlay.class)
    void daemonSetRunsTheBuiltImageOnEveryNodeWithNoMoreRightsThanNeeded(Overlay overlay)
    {
        Rendered rendered = Rendered.of(overlay.dir());
        DaemonSet daemonSet = rendered.daemonSet();
        PodSpec pod = rendered.pod();
        Container agent = rendered.agent();

        assertThat(pod.getContainers()).hasSize(1);
        assertThat(agent.getImage()).as("the image the build tags").isEqualTo("cni-chain:" + VERSION);
        assertThat(pod.getPriorityClassName()).isEqualTo("system-node-critical");
        // GKE admits such pods outside kube-system only where a ResourceQuota names the class.
        assertThat(rendered.all(io.fabric8.kubernetes.api.model.ResourceQuota.class)).as("a quota for the pods' class")
                .hasSize(overlay == Overlay.GKE ? 1 : 0)
                .allSatisfy(quota -> assertThat(quota.getSpec().getScopeSelector().getMatchExpressions().get(0).getValues())
                        .containsExactly(pod.getPriorityClassName()));
        assertThat(pod.getTolerations()).as("a toleration of every taint")
                .anySatisfy(t -> {
                    assertThat(t.getOperator()).isEqualTo("Exists");
                    assertThat(t.getKey()).isNull();
                    assertThat(t.getEffect()).isNull();
                });
        assertThat(daemonSet.getSpec().getUpdateStrategy().getType()).isEqualTo("RollingUpdate");
        assertThat(daemonSet.getSpec().getUpdateStrategy().getRollingUpdate().getMaxUnavailable()).isEqualTo(new IntOrString(1));
        assertThat(daemonSet.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(daemonSet.getSpec().getSelector().getMatchLabels())
                .as("Linkerd's proxy injector selects no pod with it (its webhook's objectSelector)").containsEntry("linkerd.io/cni-resource", "true");
        assertThat(rendered.environment(agent)).containsEntry("NODE_NAME", Rendered.NODE_NAME);
        assertThat(agent.getEnv()).filteredOn(e -> e.getName().equals("NODE_NAME"))
                .allSatisfy(e -> assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName"));

        VolumeMount tmp = Rendered.mountAt(agent, Path.of("/tmp")).orElseThrow(() -> new AssertionError("no /tmp"));
        assertThat(rendered.volume(tmp.getName()).getEmptyDir()).isNotNull();

        List<Container> containers = new ArrayList<>(pod.getInitContainers());
        containers.addAll(pod.getContainers());
        for (Container container : containers) {
            SecurityContext security = container.getSecurityContext();
            assertThat(security).as("%s's security context", container.getName()).isNotNull();
            assertThat(security.getReadOnlyRootFilesystem()).as("%s: read-only root", container.getName()).isTrue();
            assertThat(security.getAllowPrivilegeEscalation()).as(container.getName()).isFalse();
            assertThat(security.getPrivileged()).as(container.getName()).isNotEqualTo(Boolean.TRUE);
            if (container == agent) {
                assertThat(security.getRunAsUser()).as("the agent runs as root: the CNI dirs are root's").isZero();
            }
            else {
                assertThat(security.getRunAsNonRoot()).as("%s copies a file into an emptyDir: not as root", container.getName()).isTrue();
                assertThat(security.getRunAsUser()).as(container.getName()).isPositive();
            }
            assertThat(security.getCapabilities().getDrop()).as(container.getName()).containsExactly("ALL");
            List<String> added = security.getCapabilities().getAdd() == null ? List.of() : security.getCapabilities().getAdd();
            assertThat(added).as("%s's added capabilities", container.getName())
                    .isEqualTo(container == agent ? List.of("CHOWN") : List.of());
            for (String resource : List.of("cpu", "memory")) {
                Quantity request = container.getResources().getRequests().get(resource);
                Quantity limit = container.getResources().getLimits().get(resource);
                assertThat(request).as("%s requests %s", container.getName(), resource).isNotNull();
                assertThat(limit).as("%s limits %s", container.getName(), resource).isNotNull();
                assertThat(request.getNumericalAmount()).as("%s %s request <= limit", container.getName(), resource)
                        .isLessThanOrEqualTo(limit.getNumericalAmount());
            }
            for (VolumeMount mount : container.getVolumeMounts()) {
                rendered.volume(mount.getName());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Overlay.class)
    void namespaceAndRbacGiveThePluginWhatItReads(Overlay overlay)
    {
        Rendered rendered = Rendered.of(overlay.dir());
        String namespace = rendered.namespace().getMetadata().getName();
        assertThat(rendered.namespace().getMetadata().getLabels()).containsEntry("pod-security.kubernetes.io/enforce", "privileged");
        for (HasMetadata object : rendered.objects()) {
            boolean clusterScoped = object.getKind().equals("Namespace") || object.getKind().startsWith("Cluster");
            assertThat(object.getMetadata().getNamespace()).as("%s %s", object.getKind(), object.getMetadata().getName())
                    .isEqualTo(clusterScoped ? null : namespace);
        }
        String serviceAccount = rendered.serviceAccount().getMetadata().getName();
        assertThat(rendered.pod().getServiceAccountName()).isEqualTo(serviceAccount);

        ClusterRoleBinding binding = rendered.clusterRoleBinding();
        assertThat(binding.getRoleRef().getKind()).isEqualTo("ClusterRole");
        assertThat(binding.getRoleRef().getName()).isEqualTo(rendered.clusterRole().getMetadata().getName());
        assertThat(binding.getSubjects()).singleElement().satisfies(subject -> {
            assertThat(subject.getKind()).isEqualTo("ServiceAccount");
            assertThat(subject.getName()).isEqualTo(serviceAccount);
            assertThat(subject.getNamespace()).isEqualTo(namespace);
        });
        // The agent reads its node (on SIGTERM, and for placement auto), nothing else of the cluster.
        assertThat(rendered.clusterRole().getRules()).singleElement().satisfies(rule -> {
            assertThat(rule.getApiGroups()).containsExactly("");
            assertThat(rule.getResources()).containsExactly("nodes");
            assertThat(rule.getVerbs()).containsExactly("get");
        });
        // The plugin's account: linkerd-cni's GETs, which its token on the node's disk carries, and nothing more.
        ClusterRoleBinding plugin = rendered.named(ClusterRoleBinding.class, "cni-chain-plugin");
        assertThat(plugin.getSubjects()).singleElement().satisfies(subject -> {
            assertThat(subject.getName()).isEqualTo("cni-chain-plugin");
            assertThat(subject.getNamespace()).isEqualTo(namespace);
        });
        assertThat(rendered.named(io.fabric8.kubernetes.api.model.rbac.ClusterRole.class, plugin.getRoleRef().getName()).getRules())
                .satisfiesExactly((PolicyRule rule) -> {
                    assertThat(rule.getApiGroups()).containsExactly("");
                    assertThat(rule.getResources()).containsExactly("pods");
                    assertThat(rule.getVerbs()).containsExactly("get");
                }, (PolicyRule rule) -> {
                    assertThat(rule.getResources()).containsExactly("namespaces");
                    assertThat(rule.getVerbs()).containsExactly("get");
                }, (PolicyRule rule) -> {
                    assertThat(rule.getResources()).containsExactly("services");
                    assertThat(rule.getResourceNames()).containsExactly("kubernetes");
                    assertThat(rule.getVerbs()).containsExactly("get");
                });
        // And its own pod, its DaemonSet by name, and the plugin's token, in its own namespace only.
        assertThat(rendered.role().getMetadata().getNamespace()).isEqualTo(namespace);
        assertThat(rendered.role().getRules()).satisfiesExactlyInAnyOrder((PolicyRule rule) -> {
            assertThat(rule.getApiGroups()).containsExactly("");
            assertThat(rule.getResources()).containsExactly("pods");
            assertThat(rule.getVerbs()).containsExactly("get");
        }, (PolicyRule rule) -> {
            assertThat(rule.getApiGroups()).containsExactly("apps");
            assertThat(rule.getResources()).containsExactly("daemonsets");
            assertThat(rule.getResourceNames()).containsExactly(rendered.daemonSet().getMetadata().getName());
            assertThat(rule.getVerbs()).as("read on SIGTERM").containsExactly("get");
        }, (PolicyRule rule) -> {
            assertThat(rule.getResources()).containsExactly("serviceaccounts/token");
            assertThat(rule.getResourceNames()).containsExactly("cni-chain-plugin");
            assertThat(rule.getVerbs()).containsExactly("create");
        });
        assertThat(rendered.roleBinding().getRoleRef().getKind()).isEqualTo("Role");
        assertThat(rendered.roleBinding().getRoleRef().getName()).isEqualTo(rendered.role().getMetadata().getName());
        assertThat(rendered.roleBinding().getSubjects()).singleElement().satisfies(subject -> {
            assertThat(subject.getKind()).isEqualTo("ServiceAccount");
            assertThat(subject.getName()).isEqualTo(serviceAccount);
            assertThat(subject.getNamespace()).isEqualTo(namespace);
        });
    }

    @Test
    void linkerdOverlayTakesTheChartsConfigMapAndEnvironmentUnchanged()
            throws IOException
    {
        Rendered rendered = Rendered.of(Overlay.LINKERD.dir());
        String name = rendered.all(ConfigMap.class).stream().map(c -> c.getMetadata().getName()).filter(n -> n.startsWith("linkerd-cni-config"))
                .findFirst().orElseThrow();
        assertThat(name).as("kustomize's hash in the name: a changed entry rolls the pods").matches("linkerd-cni-config-[a-z0-9]{10}");
        Map<String, String> data = rendered.configMap(name).getData();
        assertThat(data).containsOnlyKeys("dest_cni_net_dir", "dest_cni_bin_dir", "cni_network_config");
        Map<String, String> refs = new java.util.HashMap<>();
        rendered.agent().getEnv().stream().filter(e -> e.getValueFrom() != null && e.getValueFrom().getConfigMapKeyRef() != null)
                .forEach(e -> refs.put(e.getName(), e.getValueFrom().getConfigMapKeyRef().getName() + "/" + e.getValueFrom().getConfigMapKeyRef().getKey()));
        assertThat(refs).containsExactlyInAnyOrderEntriesOf(Map.of(
                "DEST_CNI_NET_DIR", name + "/dest_cni_net_dir",
                "DEST_CNI_BIN_DIR", name + "/dest_cni_bin_dir",
                "CNI_NETWORK_CONFIG", name + "/cni_network_config"));
        assertThat(rendered.environment(rendered.agent())).containsEntry("KUBECONFIG_FILE_NAME", "ZZZ-linkerd-cni-kubeconfig")
                .containsEntry("KUBECONFIG_MODE", "600");

        AgentConfig config = rendered.agentConfig(scratch);
        assertThat(config.paths().confDir()).hasToString(data.get("dest_cni_net_dir"));
        assertThat(config.paths().binDir()).hasToString(data.get("dest_cni_bin_dir"));
        assertThat(config.plugin().template()).as("the entry comes from cni_network_config")
                .isEqualTo(CniJson.parse(data.get("cni_network_config").getBytes(StandardCharsets.UTF_8)));
        assertThat(config.plugin().source()).contains("CNI_NETWORK_CONFIG");
        assertThat(config.kubeconfig().fileName()).isEqualTo("ZZZ-linkerd-cni-kubeconfig");
        assertThat(config.kubeconfig().mode()).isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        assertThat(data.get("cni_network_config")).as("the file the drop-in test runs with")
                .isEqualTo(Files.readString(Overlay.LINKERD.dir().resolve("cni_network_config")));
    }

    private static int port(Container container, Probe probe)
    {
        IntOrString port = probe.getHttpGet().getPort();
        if (port.getIntVal() != null) {
            return port.getIntVal();
        }
        return container.getPorts().stream().filter(p -> port.getStrVal().equals(p.getName())).findFirst()
                .orElseThrow(() -> new AssertionError("no container port named " + port.getStrVal())).getContainerPort();
    }
}
