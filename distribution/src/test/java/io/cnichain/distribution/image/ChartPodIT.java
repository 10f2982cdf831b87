package io.cnichain.distribution.image;

import io.cnichain.distribution.image.DropInLayout.Primary;
import io.cnichain.agent.shutdown.StandInCluster;
import io.cnichain.distribution.kubernetes.ChartDaemonSet;
import io.cnichain.distribution.runtime.Commands;
import io.cnichain.distribution.runtime.RealRuntime;
import io.cnichain.distribution.runtime.RuntimeNode;
import io.cnichain.distribution.runtime.Sandbox;
import io.cnichain.distribution.runtime.StandInLog.Call;
import io.cnichain.distribution.runtime.Steps;
import io.cnichain.testkit.Await;
import io.cnichain.testkit.KubeletVolume;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Helm chart's DaemonSet, run by podman as a kubelet would run its pod, with nothing taken from anywhere but the
 * rendered objects: the init container (its image, command, mounts and security context) copies the plugin's binary
 * out of the plugin's image (image.name and image.version) into the emptyDir, then the agent's container runs with
 * its rendered image, arguments, environment (ConfigMap keys and the downward API resolved), mounts (hostPath,
 * ConfigMap files, emptyDirs, the service account's token where the pod spec puts it), capabilities, read-only root
 * and no privilege escalation; the init container as the non-root user it names. The node: the OCI link layout. A podman container on the patched network then runs
 * linkerd-cni last with the entry the chart rendered from linkerd2-cni's values; SIGTERM removes everything.
 */
@RealRuntime
class ChartPodIT
{
    private static final Path SERVICE_ACCOUNT = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");
    private static final String CONFIG_CHANGED = "cnichain_config_changed_since_start";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private RuntimeNode node;
    private StandInCluster cluster;
    private final List<String> containers = new ArrayList<>();
    /** The ConfigMap volumes, by ConfigMap name, as the kubelet projected them. */
    private final Map<String, KubeletVolume> configMaps = new LinkedHashMap<>();

    @AfterEach
    void tearDown()
    {
        if (cluster != null) {
            cluster.close();
        }
        if (node != null) {
            containers.forEach(name -> node.podman().podman("rm", "--force", "--time", "0", name));
            node.close();
        }
    }

    @Test
    void chartsPodInstallsTheEntryRenderedFromLinkerdValuesAndCleansUp(Sandbox sandbox)
            throws Exception
    {
        node = sandbox.node("chart");
        Primary primary = DropInLayout.OCI_LINK.lay(node);
        String agentImage = ImageUnderTest.load(sandbox, node);
        String pluginImage = PluginImage.build(sandbox, node);
        int healthPort = freePort();

        Map<String, Object> values = new LinkedHashMap<>();
        values.put("destCNINetDir", node.confDir().toString());
        values.put("destCNIBinDir", node.binDir().toString());
        values.put("iptablesMode", "legacy");
        values.put("ignoreOutboundPorts", "3306");
        values.put("image.name", repository(pluginImage));
        values.put("image.version", tag(pluginImage));
        values.put("cniChain.image.name", repository(agentImage));
        values.put("cniChain.image.version", tag(agentImage));
        values.put("cniChain.healthPort", healthPort);
        // The stand-in plays no uninstall to tell from an update: the test asks for the cleanup outright.
        values.put("cniChain.cleanupOnShutdown", "always");
        ChartDaemonSet daemonSet = ChartDaemonSet.render(values);
        // The API server the agent requests the plugin's token from: a stand-in on the host's loopback (the agent's
        // container shares the host's network), its CA and the agent's token in the projected service-account volume.
        cluster = StandInCluster.start(node.serviceAccountDir());
        Map<String, String> apiService = Map.of("KUBERNETES_SERVICE_HOST", "127.0.0.1", "KUBERNETES_SERVICE_PORT", cluster.server().port());

        Map<String, Path> emptyDirs = new LinkedHashMap<>();
        for (Container init : daemonSet.pod().getInitContainers()) {
            List<String> args = runArgs(daemonSet, init, emptyDirs, Map.of(), "--rm");
            args.addAll(init.getCommand());
            node.podman().podman(args.toArray(String[]::new)).ok();
        }
        Container agent = daemonSet.agent();
        String name = node.network("chart-agent");
        containers.add(name);
        List<String> args = runArgs(daemonSet, agent, emptyDirs, apiService, "--detach", "--name", name, "--log-driver", "k8s-file", "--network", "host");
        if (agent.getArgs() != null) {
            args.addAll(agent.getArgs());
        }
        node.podman().podman(args.toArray(String[]::new)).ok();

        awaitReady(name, healthPort, Duration.ofSeconds(60));
        Steps.say("the chart's pod is ready: " + agent.getImage() + " with " + daemonSet.pod().getInitContainers().get(0).getImage() + "'s binary");

        assertThat(RuntimeNode.pluginTypes(RuntimeNode.json(primary.installedFile()))).last().isEqualTo(RuntimeNode.PLUGIN);
        assertThat(Files.readSymbolicLink(primary.installedEntry())).hasToString(primary.linkText().orElseThrow());
        assertThat(node.installedPlugin()).isExecutable();
        assertThat(Files.readString(node.kubeconfig())).as("the plugin's own token, not the agent's").containsPattern("token: \\S+\\.plugin-token-1\n");

        String workload = primary.network() + "-pod";
        node.podman().start(primary.network(), workload);
        List<Call> calls = node.standIn().calls();
        assertThat(calls).extracting(Call::command).containsExactly("ADD");
        assertThat(calls.get(0).config().at("/linkerd/iptables-mode").asText()).as("iptablesMode, from the chart").isEqualTo("legacy");
        assertThat(calls.get(0).config().at("/linkerd/outbound-ports-to-ignore/0").asText()).as("ignoreOutboundPorts").isEqualTo("3306");
        assertThat(calls.get(0).config().at("/kubernetes/kubeconfig").asText()).isEqualTo(node.kubeconfig().toString());
        node.podman().remove(workload);

        // A ConfigMap edit reaches the running pod as the kubelet's update: a new ..data, the old files deleted. The
        // agent keeps its start-up configuration, says once that a restart applies the change, and goes on patching.
        KubeletVolume config = configMaps.get("cni-chain-config");
        Path replacedData = config.dataDirectory();
        config.update("cni-chain.yaml", daemonSet.configMapData("cni-chain-config").get("cni-chain.yaml") + "# edited after the pod started\n");
        assertThat(replacedData).as("the old payload, deleted").doesNotExist();
        String notice = awaitLog(name, Duration.ofSeconds(20), "holds another configuration since this agent started");
        assertThat(notice).contains("/etc/cni-chain/cni-chain.yaml");
        assertThat(body(healthPort, "/metrics")).contains(CONFIG_CHANGED + " 1");
        Path rewritten = primary.installedFile().resolveSibling(".primary-rewrite");
        Files.writeString(rewritten, primary.originalText());
        Files.move(rewritten, primary.installedFile(), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        awaitPatched(name, primary.installedFile(), Duration.ofSeconds(20));
        assertThat(status(healthPort)).as("still ready after the swap").isEqualTo(200);
        assertThat(logs(name)).as("said once").containsOnlyOnce("since this agent started");

        node.podman().podman("stop", "--time", Long.toString(daemonSet.pod().getTerminationGracePeriodSeconds()), name).ok();
        assertThat(node.podman().podman("wait", name).ok().out().trim()).isEqualTo("0");
        assertThat(RuntimeNode.json(primary.installedFile())).as("the primary as it was").isEqualTo(primary.original());
        assertThat(node.installedPlugin()).doesNotExist();
        assertThat(node.kubeconfig()).doesNotExist();
    }

    /** podman run's options for a container of the pod: its image, mounts, environment and security context. */
    private List<String> runArgs(ChartDaemonSet daemonSet, Container container, Map<String, Path> emptyDirs, Map<String, String> service,
            String... options)
            throws IOException
    {
        List<String> args = new ArrayList<>(List.of("run", "--pull", "never"));
        args.addAll(List.of(options));
        if (!List.of(options).contains("--network")) {
            args.addAll(List.of("--network", "none"));
        }
        for (VolumeMount mount : container.getVolumeMounts()) {
            args.addAll(List.of("--volume", source(daemonSet, mount.getName(), emptyDirs) + ":" + mount.getMountPath()
                    + (Boolean.TRUE.equals(mount.getReadOnly()) ? ":ro" : "")));
        }
        if (automounted(daemonSet)) {
            args.addAll(List.of("--volume", node.serviceAccountDir() + ":" + SERVICE_ACCOUNT + ":ro"));
        }
        if (container.getEnv() != null) {
            Map<String, String> environment = new LinkedHashMap<>(daemonSet.environment(container));
            environment.putAll(service);
            environment.forEach((key, value) -> args.addAll(List.of("--env", key + "=" + value)));
        }
        SecurityContext security = container.getSecurityContext();
        if (Boolean.TRUE.equals(security.getReadOnlyRootFilesystem())) {
            args.add("--read-only");
            args.add("--read-only-tmpfs=false");
        }
        if (Boolean.FALSE.equals(security.getAllowPrivilegeEscalation())) {
            args.addAll(List.of("--security-opt", "no-new-privileges"));
        }
        if (security.getRunAsUser() != null) {
            args.addAll(List.of("--user", security.getRunAsUser() + (security.getRunAsGroup() != null ? ":" + security.getRunAsGroup() : "")));
        }
        if (security.getCapabilities() != null) {
            List.copyOf(security.getCapabilities().getDrop() == null ? List.of() : security.getCapabilities().getDrop())
                    .forEach(cap -> args.addAll(List.of("--cap-drop", cap.toLowerCase(java.util.Locale.ROOT))));
            List.copyOf(security.getCapabilities().getAdd() == null ? List.of() : security.getCapabilities().getAdd())
                    .forEach(cap -> args.addAll(List.of("--cap-add", cap)));
        }
        args.add(container.getImage());
        return args;
    }

    /** Where a pod volume is on this node. */
    private Path source(ChartDaemonSet daemonSet, String volumeName, Map<String, Path> emptyDirs)
            throws IOException
    {
        Volume volume = daemonSet.pod().getVolumes().stream().filter(v -> v.getName().equals(volumeName)).findFirst()
                .orElseThrow(() -> new AssertionError("no volume " + volumeName));
        if (volume.getHostPath() != null) {
            return Path.of(volume.getHostPath().getPath());
        }
        if (volume.getEmptyDir() != null) {
            // Writable by any user (the init container is not root).
            return emptyDirs.computeIfAbsent(volumeName, n -> KubeletVolume.emptyDir(node.root().resolve("pod-volumes").resolve(n)));
        }
        if (volume.getProjected() != null && volume.getProjected().getSources().stream().anyMatch(s -> s.getServiceAccountToken() != null)) {
            // The projected token, CA and namespace: the node's stand-in service account, laid out by the kubelet's rules.
            return node.serviceAccountDir();
        }
        if (volume.getConfigMap() != null) {
            Path dir = node.root().resolve("pod-volumes").resolve(volumeName);
            configMaps.put(volume.getConfigMap().getName(), KubeletVolume.project(dir, daemonSet.configMapData(volume.getConfigMap().getName())));
            return dir;
        }
        throw new AssertionError("a volume this test does not lay out: " + volume);
    }

    /** The token in every container, as automountServiceAccountToken would put it (the chart says false). */
    private static boolean automounted(ChartDaemonSet daemonSet)
    {
        return !Boolean.FALSE.equals(daemonSet.pod().getAutomountServiceAccountToken());
    }

    private void awaitReady(String name, int port, Duration timeout)
            throws InterruptedException
    {
        Await.until(timeout, () -> status(port) == 200, () -> "the chart's pod is not ready:\n" + logs(name));
    }

    private String awaitLog(String name, Duration timeout, String text)
    {
        return Await.value(timeout, () -> logs(name).lines().filter(line -> line.contains(text)).findFirst(),
                () -> "no log line with " + text + ":\n" + logs(name));
    }

    private void awaitPatched(String name, Path file, Duration timeout)
    {
        Await.until(timeout, () -> RuntimeNode.PLUGIN.equals(lastType(file)), () -> file + " was not patched again:\n" + logs(name));
    }

    private String logs(String name)
    {
        Commands.Result logs = node.podman().podman("logs", name);
        return logs.out() + logs.err();
    }

    private static String lastType(Path file)
    {
        List<String> types = RuntimeNode.pluginTypes(RuntimeNode.json(file));
        return types.isEmpty() ? "" : types.get(types.size() - 1);
    }

    private static String body(int port, String path)
            throws IOException, InterruptedException
    {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(2)).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body();
    }

    private static int status(int port)
    {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).timeout(Duration.ofSeconds(2)).build();
            return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        }
        catch (IOException e) {
            return -1;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String repository(String image)
    {
        return image.substring(0, image.lastIndexOf(':'));
    }

    private static String tag(String image)
    {
        return image.substring(image.lastIndexOf(':') + 1);
    }

    private static int freePort()
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
