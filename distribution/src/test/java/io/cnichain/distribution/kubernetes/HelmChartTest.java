package io.cnichain.distribution.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.marcnuri.helm.LintResult;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.CleanupMode;
import io.cnichain.core.json.CniJson;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Helm chart, linted and rendered by Helm's own library, parsed into the Kubernetes object model (unknown fields
 * fail): with its defaults, with a linkerd2-cni values file that sets every key of that chart to a value other than
 * its default ({@code src/test/resources/helm/linkerd2-cni-values.yaml}), and with cni-chain's own settings. Each
 * test says which keys it checks, and where each one lands is asserted, down to the configuration the agent's own
 * loader reads from the rendered ConfigMaps and environment.
 */
class HelmChartTest
{
    private static final String VERSION = System.getProperty("cnichain.version", "0.1.0");

    @TempDir
    Path scratch;

    @Test
    void helmLintFindsNothingToWarnAbout()
    {
        LintResult lint = HelmChart.lint();
        assertThat(lint.isFailed()).as("%s", lint.getMessages()).isFalse();
        assertThat(lint.getMessages()).as("only the icon's INFO, no WARNING or ERROR")
                .allSatisfy(message -> assertThat(message).startsWith("[INFO]"));
    }

    @Test
    void chartVersionIsTheProjectsSoTheBuildPackagesThisChart()
            throws IOException
    {
        String chart = Files.readString(HelmChart.DIR.resolve("Chart.yaml"));
        assertThat(chart).containsPattern("(?m)^version: " + VERSION.replace(".", "\\.") + "$")
                .containsPattern("(?m)^appVersion: \"" + VERSION.replace(".", "\\.") + "\"$");
    }

    /** Defaults: linkerd2-cni's own for its keys (priorityClassName aside), and the kustomize base's for the rest. */
    @Test
    void defaultsRenderLinkerdsEntryAndTheBasesWorkload()
            throws IOException
    {
        Rendered rendered = HelmChart.render(Map.of());
        assertThat(rendered.objects()).extracting(HasMetadata::getKind).containsExactlyInAnyOrder(
                "ServiceAccount", "ServiceAccount", "ConfigMap", "ConfigMap", "ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding",
                "Role", "RoleBinding", "DaemonSet");
        for (HasMetadata object : rendered.objects()) {
            boolean clusterScoped = object.getKind().startsWith("Cluster");
            assertThat(object.getMetadata().getNamespace()).as("%s %s", object.getKind(), object.getMetadata().getName())
                    .isEqualTo(clusterScoped ? null : HelmChart.NAMESPACE);
        }

        Map<String, String> linkerdConfig = rendered.configMap("linkerd-cni-config").getData();
        assertThat(json(linkerdConfig.get("cni_network_config"))).as("linkerd2-cni's entry for its default values")
                .isEqualTo(resourceJson("helm/defaults.cni_network_config.json"));
        assertThat(linkerdConfig).containsEntry("dest_cni_net_dir", "/etc/cni/net.d").containsEntry("dest_cni_bin_dir", "/opt/cni/bin");

        AgentConfig config = rendered.agentConfig(scratch);
        assertThat(config.plugin().template()).as("the agent installs the entry from cni_network_config")
                .isEqualTo(json(linkerdConfig.get("cni_network_config")));
        assertThat(config.paths().confDir()).isEqualTo(Path.of("/etc/cni/net.d"));
        assertThat(config.paths().binDir()).isEqualTo(Path.of("/opt/cni/bin"));
        assertThat(config.adapters().choice()).hasToString("auto");
        assertThat(config.run().cleanupOnShutdown()).isEqualTo(CleanupMode.AUTO);
        assertThat(config.nodeTaint().enabled()).isFalse();

        Container init = rendered.pod().getInitContainers().get(0);
        assertThat(rendered.pod().getInitContainers()).hasSize(1);
        assertThat(init.getImage()).isEqualTo("cr.l5d.io/linkerd/cni-plugin:v1.6.2");
        assertThat(init.getImagePullPolicy()).isEqualTo("IfNotPresent");
        assertThat(rendered.pod().getContainers()).extracting(Container::getName).containsExactly("cni-chain");
        assertThat(rendered.agent().getImage()).isEqualTo("cni-chain:" + VERSION);
        assertThat(rendered.agent().getSecurityContext().getPrivileged()).isFalse();
        assertThat(rendered.agent().getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(rendered.agent().getResources().getRequests()).isEqualTo(Map.of("cpu", new Quantity("20m"), "memory", new Quantity("64Mi")));
        assertThat(rendered.agent().getResources().getLimits()).isEqualTo(Map.of("cpu", new Quantity("1"), "memory", new Quantity("192Mi")));
        assertThat(rendered.pod().getPriorityClassName()).isEqualTo("system-node-critical");
        assertThat(rendered.pod().getTolerations()).containsExactly(new Toleration(null, null, "Exists", null, null));
        assertThat(rendered.pod().getAffinity()).isNull();
        assertThat(rendered.daemonSet().getSpec().getRevisionHistoryLimit()).isEqualTo(10);
        assertThat(rendered.daemonSet().getSpec().getUpdateStrategy().getRollingUpdate().getMaxUnavailable()).isEqualTo(new IntOrString(1));
        assertThat(rendered.serviceAccount().getImagePullSecrets()).isNullOrEmpty();
        assertThat(rendered.clusterRole().getRules()).noneSatisfy(rule -> assertThat(rule.getVerbs()).contains("delete"));
    }

    /**
     * The plugin's entry: inboundProxyPort, outboundProxyPort, proxyUID, proxyGID, portsToRedirect, proxyAdminPort,
     * proxyControlPort, ignoreInboundPorts, ignoreOutboundPorts, useWaitFlag, iptablesMode, disableIPv6, logLevel.
     */
    @Test
    void everyEntryKeyLandsInTheEntryAsLinkerd2CniRendersIt()
            throws IOException
    {
        Rendered rendered = HelmChart.render(List.of(HelmChart.LINKERD_VALUES), Map.of());
        String entry = rendered.configMap("linkerd-cni-config").getData().get("cni_network_config");
        assertThat(json(entry)).isEqualTo(resourceJson("helm/linkerd2-cni-values.cni_network_config.json"));
        assertThat(rendered.agentConfig(scratch).plugin().template()).as("what the agent installs").isEqualTo(json(entry));
    }

    @Test
    void emptyPortListsAndANegativeGidAreLeftOutAsLinkerd2CniDoes()
    {
        Rendered rendered = HelmChart.render(Map.of("proxyGID", -1, "ignoreOutboundPorts", "", "ignoreInboundPorts", "", "portsToRedirect", ""));
        JsonNode linkerd = json(rendered.configMap("linkerd-cni-config").getData().get("cni_network_config")).get("linkerd");
        assertThat(linkerd.has("proxy-gid")).isFalse();
        assertThat(linkerd.has("outbound-ports-to-ignore")).isFalse();
        assertThat(linkerd.get("ports-to-redirect")).isEmpty();
        assertThat(linkerd.get("inbound-ports-to-ignore")).hasSize(2);
        Rendered gidZero = HelmChart.render(Map.of("proxyGID", 0));
        assertThat(json(gidZero.configMap("linkerd-cni-config").getData().get("cni_network_config")).at("/linkerd/proxy-gid").asInt(-1)).isZero();
    }

    /** destCNINetDir, destCNIBinDir: the ConfigMap, the environment, the agent's paths, the hostPath volumes. */
    @Test
    void hostDirectoriesLandInTheConfigMapTheEnvironmentAndTheVolumes()
    {
        Rendered rendered = HelmChart.render(List.of(HelmChart.LINKERD_VALUES), Map.of());
        String confDir = "/var/lib/rancher/k3s/agent/etc/cni/net.d";
        String binDir = "/var/lib/rancher/k3s/data/current/bin";
        assertThat(rendered.configMap("linkerd-cni-config").getData()).containsEntry("dest_cni_net_dir", confDir).containsEntry("dest_cni_bin_dir", binDir);
        assertThat(rendered.environment(rendered.agent())).containsEntry("DEST_CNI_NET_DIR", confDir).containsEntry("DEST_CNI_BIN_DIR", binDir);
        AgentConfig config = rendered.agentConfig(scratch);
        assertThat(config.paths().confDir()).isEqualTo(Path.of(confDir));
        assertThat(config.paths().binDir()).isEqualTo(Path.of(binDir));
        for (String dir : List.of(confDir, binDir)) {
            var mount = Rendered.mountAt(rendered.agent(), Path.of("/host" + dir)).orElseThrow(() -> new AssertionError("no mount at /host" + dir));
            assertThat(rendered.volume(mount.getName()).getHostPath().getPath()).isEqualTo(dir);
        }

        Rendered same = HelmChart.render(Map.of("destCNINetDir", "/etc/cni/net.d", "destCNIBinDir", "/etc/cni/net.d"));
        assertThat(same.pod().getVolumes()).filteredOn(v -> v.getHostPath() != null).extracting(Volume::getName)
                .as("one volume when both are the same dir").containsExactly("cni-net-dir");
        assertThat(same.agent().getVolumeMounts()).filteredOn(m -> m.getMountPath().startsWith("/host")).singleElement()
                .satisfies(m -> assertThat(m.getMountPath()).isEqualTo("/host/etc/cni/net.d"));
        assertThat(same.agentConfig(scratch).paths().binDir()).isEqualTo(Path.of("/etc/cni/net.d"));
    }

    /**
     * image.*, imagePullSecrets, priorityClassName, tolerations, nodeAffinity, podLabels, commonLabels,
     * revisionHistoryLimit, updateStrategy, privileged, resources, extraInitContainers, enablePSP.
     */
    @Test
    void everyWorkloadKeyLandsWhereLinkerd2CniPutsIt()
    {
        Rendered rendered = HelmChart.render(List.of(HelmChart.LINKERD_VALUES), Map.of());
        var pod = rendered.pod();

        Container init = pod.getInitContainers().stream().filter(c -> c.getName().equals("plugin-binary")).findFirst().orElseThrow();
        assertThat(init.getImage()).as("image.name:image.version, the plugin's image").isEqualTo("registry.example/mirror/cni-plugin:v1.6.9");
        assertThat(init.getImagePullPolicy()).as("image.pullPolicy").isEqualTo("Always");
        assertThat(rendered.agent().getImage()).as("the agent's image is not Linkerd's").isEqualTo("cni-chain:" + VERSION);

        assertThat(rendered.serviceAccount().getImagePullSecrets()).containsExactly(new LocalObjectReference("mirror-credentials"));
        assertThat(pod.getPriorityClassName()).isEqualTo("mesh-critical");
        assertThat(pod.getTolerations()).containsExactly(new Toleration("NoSchedule", "dedicated", "Equal", null, "mesh"));
        var term = pod.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms();
        assertThat(term).singleElement().satisfies(t -> assertThat(t.getMatchExpressions()).singleElement().satisfies(e -> {
            assertThat(e.getKey()).isEqualTo("mesh");
            assertThat(e.getOperator()).isEqualTo("In");
            assertThat(e.getValues()).containsExactly("enabled");
        }));
        assertThat(rendered.daemonSet().getSpec().getTemplate().getMetadata().getLabels()).containsEntry("team", "mesh")
                .containsEntry("app.kubernetes.io/name", "cni-chain");
        assertThat(rendered.objects()).allSatisfy(object -> assertThat(object.getMetadata().getLabels())
                .as("%s %s", object.getKind(), object.getMetadata().getName()).containsEntry("owner", "platform"));
        assertThat(rendered.daemonSet().getSpec().getRevisionHistoryLimit()).isEqualTo(3);
        assertThat(rendered.daemonSet().getSpec().getUpdateStrategy().getRollingUpdate().getMaxUnavailable()).isEqualTo(new IntOrString("25%"));

        assertThat(rendered.agent().getSecurityContext().getPrivileged()).as("privileged: the installer's container is the agent").isTrue();
        assertThat(rendered.agent().getSecurityContext().getAllowPrivilegeEscalation())
                .as("the API server refuses privileged with allowPrivilegeEscalation false").isNull();
        assertThat(rendered.agent().getResources().getRequests()).isEqualTo(Map.of(
                "cpu", new Quantity("30m"), "memory", new Quantity("80Mi"), "ephemeral-storage", new Quantity("10Mi")));
        assertThat(rendered.agent().getResources().getLimits()).isEqualTo(Map.of(
                "cpu", new Quantity("2"), "memory", new Quantity("160Mi"), "ephemeral-storage", new Quantity("20Mi")));

        assertThat(pod.getInitContainers()).extracting(Container::getName).as("extraInitContainers, as given, before the plugin's copy")
                .containsExactly("wait-for-primary", "plugin-binary");
        assertThat(pod.getInitContainers().get(0).getImage()).isEqualTo("registry.example/tools/busybox:1.36");

        assertThat(rendered.objects()).extracting(HasMetadata::getKind).as("enablePSP: no PodSecurityPolicy after Kubernetes 1.25")
                .doesNotContain("PodSecurityPolicy");
    }

    @Test
    void oneResourceSetKeepsTheMeasuredDefaultsForTheRestAndAnEmptyPriorityClassIsLeftOut()
    {
        Rendered rendered = HelmChart.render(Map.of("resources.memory.limit", "256Mi", "priorityClassName", ""));
        assertThat(rendered.agent().getResources().getLimits()).isEqualTo(Map.of("cpu", new Quantity("1"), "memory", new Quantity("256Mi")));
        assertThat(rendered.agent().getResources().getRequests()).isEqualTo(Map.of("cpu", new Quantity("20m"), "memory", new Quantity("64Mi")));
        assertThat(rendered.pod().getPriorityClassName()).isNull();
    }

    /** A grace period shorter than the agent's shutdown would have the kubelet kill it in the middle of an uninstall. */
    @Test
    void aGracePeriodShorterThanTheShutdownIsAnError()
    {
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> HelmChart.render(Map.of("cniChain.shutdownTimeoutSeconds", 60))))
                .hasMessageContaining("cniChain.terminationGracePeriodSeconds 30 is shorter than the agent's shutdown (shutdownTimeoutSeconds 60)");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> HelmChart.render(Map.of("cniChain.config.shutdownTimeoutSeconds", 40))))
                .hasMessageContaining("shutdownTimeoutSeconds 40");
        assertThat(HelmChart.render(Map.of("cniChain.shutdownTimeoutSeconds", 60, "cniChain.terminationGracePeriodSeconds", 65)).pod()
                .getTerminationGracePeriodSeconds()).isEqualTo(65);
    }

    /** GKE admits pods of a system-critical class outside kube-system only where a ResourceQuota names that class. */
    @Test
    void priorityClassQuotaNamesThePodsClassWhereAsked()
    {
        assertThat(HelmChart.render(Map.of()).all(io.fabric8.kubernetes.api.model.ResourceQuota.class)).isEmpty();
        assertThat(HelmChart.render(Map.of("priorityClassQuota", true, "priorityClassName", "")).all(io.fabric8.kubernetes.api.model.ResourceQuota.class))
                .isEmpty();
        Rendered rendered = HelmChart.render(Map.of("priorityClassQuota", true));
        assertThat(rendered.all(io.fabric8.kubernetes.api.model.ResourceQuota.class)).singleElement().satisfies(quota -> {
            assertThat(quota.getMetadata().getNamespace()).isEqualTo(HelmChart.NAMESPACE);
            assertThat(quota.getSpec().getScopeSelector().getMatchExpressions()).singleElement().satisfies(scope -> {
                assertThat(scope.getScopeName()).isEqualTo("PriorityClass");
                assertThat(scope.getValues()).containsExactly(rendered.pod().getPriorityClassName());
            });
        });
    }

    /** repairController.enabled, .logLevel, .logFormat, .enableSecurityContext, .resources, with image.* and disableIPv6. */
    @Test
    void repairControllerRunsLinkerdsBinaryFromTheSameImageWithItsRights()
    {
        Rendered rendered = HelmChart.render(List.of(HelmChart.LINKERD_VALUES), Map.of());
        Container repair = rendered.pod().getContainers().stream().filter(c -> c.getName().equals("repair-controller")).findFirst()
                .orElseThrow(() -> new AssertionError("no repair-controller container"));
        assertThat(repair.getImage()).isEqualTo("registry.example/mirror/cni-plugin:v1.6.9");
        assertThat(repair.getImagePullPolicy()).isEqualTo("Always");
        assertThat(repair.getCommand()).containsExactly("/usr/lib/linkerd/linkerd-cni-repair-controller");
        assertThat(repair.getArgs()).containsExactly("--admin-addr", "[::1]:9990", "--log-format", "json", "--log-level", "debug");
        assertThat(rendered.environment(repair)).containsEntry("LINKERD_CNI_REPAIR_CONTROLLER_NODE_NAME", Rendered.NODE_NAME)
                .containsEntry("LINKERD_CNI_REPAIR_CONTROLLER_POD_NAME", Rendered.POD_NAME);
        assertThat(repair.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/live");
        assertThat(repair.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/ready");
        assertThat(List.of(repair.getLivenessProbe(), repair.getReadinessProbe())).allSatisfy(probe -> {
            assertThat(probe.getHttpGet().getHost()).as("the admin server listens on loopback only").isEqualTo("::1");
            assertThat(probe.getHttpGet().getPort()).isEqualTo(new IntOrString("admin-http"));
        });
        assertThat(repair.getPorts()).singleElement().satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(9990));
        assertThat(Rendered.mountAt(repair, Path.of("/var/run/secrets/kubernetes.io/serviceaccount"))).as("it calls the API server: the token")
                .hasValueSatisfying(m -> assertThat(m.getName()).isEqualTo("service-account"));
        assertThat(repair.getSecurityContext()).as("enableSecurityContext: false").isNull();
        assertThat(repair.getResources().getRequests()).isEqualTo(Map.of("cpu", new Quantity("5m"), "memory", new Quantity("10Mi")));
        assertThat(repair.getResources().getLimits()).isEqualTo(Map.of("cpu", new Quantity("50m"), "memory", new Quantity("40Mi")));
        ClusterRole role = rendered.clusterRole();
        assertThat(role.getRules()).anySatisfy((PolicyRule rule) -> {
            assertThat(rule.getResources()).containsExactly("pods");
            assertThat(rule.getVerbs()).as("its pod watch and the deletion").containsExactly("list", "watch", "delete");
        }).anySatisfy((PolicyRule rule) -> {
            assertThat(rule.getApiGroups()).containsExactly("events.k8s.io");
            assertThat(rule.getVerbs()).containsExactly("create");
        });

        Rendered ipv4 = HelmChart.render(Map.of("repairController.enabled", true));
        Container defaults = ipv4.pod().getContainers().get(1);
        assertThat(defaults.getArgs()).containsExactly("--admin-addr", "127.0.0.1:9990", "--log-format", "plain", "--log-level", "info");
        assertThat(defaults.getLivenessProbe().getHttpGet().getHost()).isEqualTo("127.0.0.1");
        assertThat(defaults.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(defaults.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(defaults.getResources()).isNull();
    }

    /** cniChain.*: the agent's image, adapter and its settings, logging, health port, shutdown, taint, kubeconfig, pass-through. */
    @Test
    void cniChainsOwnSettingsReachTheAgent()
    {
        Map<String, Object> sets = new LinkedHashMap<>();
        sets.put("cniChain.image.name", "registry.example/cni-chain");
        sets.put("cniChain.image.version", "0.2.0");
        sets.put("cniChain.image.pullPolicy", "Always");
        sets.put("cniChain.adapter", "cilium");
        sets.put("cniChain.adapters.cilium.confFile", "05-cilium.conflist");
        sets.put("cniChain.logLevel", "debug");
        sets.put("cniChain.logFormat", "json");
        sets.put("cniChain.healthPort", 9555);
        sets.put("cniChain.cleanupOnShutdown", "never");
        sets.put("cniChain.placement", "auto");
        sets.put("cniChain.shutdownTimeoutSeconds", 15);
        sets.put("cniChain.periodicCheckSeconds", 30);
        sets.put("cniChain.kubeconfig.fileName", "ZZZ-mesh-kubeconfig");
        sets.put("cniChain.kubeconfig.mode", "640");
        sets.put("cniChain.config.maxConfigBytes", 65536);
        Rendered rendered = HelmChart.render(sets);
        assertThat(rendered.agent().getImage()).isEqualTo("registry.example/cni-chain:0.2.0");
        assertThat(rendered.agent().getImagePullPolicy()).isEqualTo("Always");

        AgentConfig config = rendered.agentConfig(scratch);
        assertThat(config.adapters().choice()).hasToString("cilium");
        assertThat(config.adapters().settings()).isEqualTo(Map.of("cilium", Map.of("confFile", "05-cilium.conflist")));
        assertThat(config.log().level()).isEqualTo("debug");
        assertThat(config.log().format()).isEqualTo("json");
        assertThat(config.run().healthPort()).isEqualTo(9555);
        assertThat(rendered.agent().getPorts()).singleElement().satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(9555));
        assertThat(config.run().cleanupOnShutdown()).isEqualTo(CleanupMode.NEVER);
        assertThat(config.placement()).isEqualTo(io.cnichain.core.config.Placement.AUTO);
        assertThat(config.run().shutdownTimeout()).isEqualTo(Duration.ofSeconds(15));
        assertThat(config.run().periodicCheck()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.kubeconfig().fileName()).isEqualTo("ZZZ-mesh-kubeconfig");
        assertThat(config.kubeconfig().mode()).isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-r-----"));
        assertThat(config.paths().maxConfigBytes()).as("cniChain.config, passed through").isEqualTo(65536);

        // helm upgrade with new values rolls the pods when either ConfigMap changes, and only then.
        Map<String, String> defaults = annotations(HelmChart.render(Map.of()));
        assertThat(annotations(HelmChart.render(Map.of("cniChain.logLevel", "warn")))).as("a changed cni-chain.yaml")
                .containsEntry("checksum/linkerd-cni-config", defaults.get("checksum/linkerd-cni-config"))
                .doesNotContainEntry("checksum/config", defaults.get("checksum/config"));
        assertThat(annotations(HelmChart.render(Map.of("ignoreOutboundPorts", "3306")))).as("a changed entry in linkerd-cni-config")
                .containsEntry("checksum/config", defaults.get("checksum/config"))
                .doesNotContainEntry("checksum/linkerd-cni-config", defaults.get("checksum/linkerd-cni-config"));
        assertThat(annotations(HelmChart.render(Map.of("priorityClassName", "my-node-critical")))).as("a change outside the ConfigMaps")
                .containsEntry("checksum/config", defaults.get("checksum/config"))
                .containsEntry("checksum/linkerd-cni-config", defaults.get("checksum/linkerd-cni-config"));
    }

    private static Map<String, String> annotations(Rendered rendered)
    {
        return rendered.daemonSet().getSpec().getTemplate().getMetadata().getAnnotations();
    }

    /** cniChain.nodeTaint.*: the start-up taint, as components/node-taint adds it to the kustomize base. */
    @Test
    void nodeTaintTurnsOnTheRemoverWithItsTolerationAndRights()
    {
        Rendered rendered = HelmChart.render(Map.of("cniChain.nodeTaint.enabled", true, "cniChain.nodeTaint.key", "example.com/mesh-not-ready"));
        AgentConfig config = rendered.agentConfig(scratch);
        assertThat(config.nodeTaint().enabled()).isTrue();
        assertThat(config.nodeTaint().key()).isEqualTo("example.com/mesh-not-ready");
        assertThat(config.nodeTaint().nodeName()).isEqualTo(Optional.of(Rendered.NODE_NAME));
        assertThat(rendered.pod().getTolerations()).contains(new Toleration(null, "example.com/mesh-not-ready", "Exists", null, null));
        ClusterRole taint = rendered.all(ClusterRole.class).stream().filter(r -> r.getMetadata().getName().equals("cni-chain-node-taint")).findFirst()
                .orElseThrow();
        assertThat(taint.getRules()).singleElement().satisfies(rule -> assertThat(rule.getVerbs()).containsExactlyInAnyOrder("get", "patch"));
        assertThat(HelmChart.render(Map.of()).all(ClusterRole.class)).extracting(r -> r.getMetadata().getName())
                .containsExactlyInAnyOrder("cni-chain", "cni-chain-plugin");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> HelmChart.render(Map.of("cniChain.nodeTaint.enabled", true,
                "cniChain.nodeTaint.admissionPolicy", false)))).as("no right to patch Nodes without its fence")
                .hasMessageContaining("cniChain.nodeTaint.enabled without cniChain.nodeTaint.admissionPolicy");
    }

    /** cniChain.healthAddress, .metricsAddress: into cni-chain.yaml when set; the probes follow a specific address. */
    @Test
    void healthAndMetricsAddressesReachTheConfigurationAndTheProbes()
    {
        Map<String, Object> defaults = agentYaml(HelmChart.render(Map.of()));
        assertThat(defaults).as("left to the agent's defaults (127.0.0.1, none)").doesNotContainKeys("healthAddress", "metricsAddress");

        Rendered set = HelmChart.render(Map.of("cniChain.healthAddress", "10.0.0.7", "cniChain.metricsAddress", "10.0.0.7:9471"));
        assertThat(agentYaml(set)).containsEntry("healthAddress", "10.0.0.7").containsEntry("metricsAddress", "10.0.0.7:9471");
        assertThat(set.agent().getLivenessProbe().getHttpGet().getHost()).as("the probes go where the listener is").isEqualTo("10.0.0.7");
        assertThat(set.agent().getReadinessProbe().getHttpGet().getHost()).isEqualTo("10.0.0.7");

        Rendered wildcard = HelmChart.render(Map.of("cniChain.healthAddress", "0.0.0.0"));
        assertThat(agentYaml(wildcard)).containsEntry("healthAddress", "0.0.0.0");
        assertThat(wildcard.agent().getLivenessProbe().getHttpGet().getHost()).as("every address includes loopback").isEqualTo("127.0.0.1");
    }

    /** cniChain.nodeReadiness.* (the rule and the reporter: NodeReadinessComponentTest), never with nodeTaint. */
    @Test
    void nodeReadinessRendersTheRuleAndReporterAndRefusesASecondRemover()
            throws java.io.IOException
    {
        Rendered rendered = HelmChart.render(Map.of("cniChain.nodeReadiness.enabled", true,
                "cniChain.nodeReadiness.image.name", "registry.example/node-readiness-reporter", "cniChain.nodeReadiness.image.version", "v9.9.9",
                "cniChain.nodeReadiness.checkInterval", "2s", "cniChain.nodeReadiness.metricsBindAddress", "127.0.0.1:9555"));
        io.fabric8.kubernetes.api.model.PodTemplateSpec reporterPod = rendered.named(io.fabric8.kubernetes.api.model.apps.DaemonSet.class,
                "cni-chain-readiness-reporter").getSpec().getTemplate();
        assertThat(reporterPod.getMetadata().getLabels()).as("Linkerd's proxy injector selects no pod with it").containsEntry("linkerd.io/cni-resource", "true");
        assertThat(rendered.daemonSet().getSpec().getTemplate().getMetadata().getLabels()).containsEntry("linkerd.io/cni-resource", "true");
        Container reporter = reporterPod.getSpec().getContainers().get(0);
        assertThat(reporter.getImage()).isEqualTo("registry.example/node-readiness-reporter:v9.9.9");
        assertThat(rendered.environment(reporter)).containsEntry("CHECK_INTERVAL", "2s").containsEntry("METRICS_BIND_ADDRESS", "127.0.0.1:9555");
        assertThat(rendered.all(ClusterRole.class)).extracting(r -> r.getMetadata().getName())
                .containsExactlyInAnyOrder("cni-chain", "cni-chain-plugin", "cni-chain-readiness-reporter");
        // With tolerations narrowed, the agent must still start on a node that has the taint, or it is never lifted.
        Path values = java.nio.file.Files.writeString(scratch.resolve("narrowed.yaml"),
                "tolerations:\n  - {key: dedicated, operator: Equal, value: mesh, effect: NoSchedule}\n");
        Rendered narrowed = HelmChart.render(List.of(values), Map.of("cniChain.nodeReadiness.enabled", true));
        assertThat(narrowed.pod().getTolerations()).contains(new Toleration(null, "readiness.k8s.io/cni-chain-not-ready", "Exists", null, null));

        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> HelmChart.render(Map.of("cniChain.nodeReadiness.enabled", true,
                "cniChain.nodeTaint.enabled", true)))).as("one remover per taint").hasMessageContaining("one remover per taint");
    }

    @Test
    void aMisspeltCniChainKeyIsAnErrorWhileLinkerdsKeysStayOpen()
    {
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> HelmChart.render(Map.of("cniChain.nodeTiant.enabled", true))))
                .as("values.schema.json closes cniChain").hasMessageContaining("nodeTiant");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> HelmChart.render(Map.of("cniChain.cleanupOnShutdown", "sometimes"))))
                .hasMessageContaining("cleanupOnShutdown");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> HelmChart.render(Map.of("cniChain.placement", "dropin"))))
                .hasMessageContaining("placement");
        assertThat(HelmChart.render(Map.of("someFutureLinkerdKey", "x")).daemonSet()).as("a key of another linkerd2-cni version").isNotNull();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> agentYaml(Rendered rendered)
    {
        return (Map<String, Object>) new org.yaml.snakeyaml.Yaml(new org.yaml.snakeyaml.constructor.SafeConstructor(new org.yaml.snakeyaml.LoaderOptions()))
                .load(rendered.configMap("cni-chain-config").getData().get("cni-chain.yaml"));
    }

    private static JsonNode json(String text)
    {
        return CniJson.parse(text.getBytes(StandardCharsets.UTF_8));
    }

    private static JsonNode resourceJson(String name)
            throws IOException
    {
        try (var in = HelmChartTest.class.getClassLoader().getResourceAsStream(name)) {
            return CniJson.parse(in.readAllBytes());
        }
    }
}
