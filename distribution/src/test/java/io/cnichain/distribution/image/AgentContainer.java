package io.cnichain.distribution.image;

import io.cnichain.testkit.Await;
import io.cnichain.distribution.runtime.Commands;
import io.cnichain.distribution.runtime.RuntimeNode;
import io.cnichain.testkit.KubeletVolume;

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

/**
 * The agent's image run by podman the way a node runs the DaemonSet's container: read-only root, {@code /tmp} on
 * a tmpfs, the host's network, every capability dropped but the ones given, no privilege escalation, the node's
 * conf and bin dirs mounted under {@code /host} at their host paths, the service account's token and CA where
 * Kubernetes mounts them, and the plugin's binary (the init container's emptyDir) at {@code /opt/cni/bin}.
 * The service account's volume and a ConfigMap holding the image's own {@code cni-chain.yaml} (mounted at
 * {@code /etc/cni-chain}, as the DaemonSets mount theirs) are laid out as the kubelet projects them
 * ({@link KubeletVolume}: links through {@code ..data}). The command is the DaemonSets'
 * ({@code run --config /etc/cni-chain/cni-chain.yaml}) with a free health port, since the host's network is shared
 * with whatever else runs here.
 */
final class AgentContainer
{
    static final String SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount";
    static final String CONFIG = "/etc/cni-chain/cni-chain.yaml";
    /** The configuration the image carries (its default command's), here handed in as a ConfigMap. */
    private static final Path IMAGE_CONFIG = Path.of("src/dist/conf/cni-chain.yaml").toAbsolutePath();

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final RuntimeNode node;
    private final String name;
    private final int healthPort;

    private AgentContainer(RuntimeNode node, String name, int healthPort)
    {
        this.node = node;
        this.name = name;
        this.healthPort = healthPort;
    }

    /**
     * @param image        the agent's image
     * @param pluginBin    the host directory the init container copied the plugin's binary into
     * @param env          the container's environment
     * @param capabilities the capabilities added after dropping all
     */
    static AgentContainer start(RuntimeNode node, String image, Path pluginBin, Map<String, String> env, List<String> capabilities)
    {
        String name = node.network("agent");
        int port = freePort();
        List<String> args = new ArrayList<>(List.of("run", "--detach", "--name", name, "--pull", "never", "--log-driver", "k8s-file",
                "--read-only", "--read-only-tmpfs=false", "--tmpfs", "/tmp:rw,size=16m", "--network", "host",
                "--cap-drop", "all", "--security-opt", "no-new-privileges"));
        capabilities.forEach(capability -> args.addAll(List.of("--cap-add", capability)));
        Path config = KubeletVolume.project(node.root().resolve("config-map"), Map.of("cni-chain.yaml", read(IMAGE_CONFIG))).directory();
        args.addAll(List.of("--volume", node.confDir() + ":/host" + node.confDir(), "--volume", node.binDir() + ":/host" + node.binDir(),
                "--volume", node.serviceAccountDir() + ":" + SERVICE_ACCOUNT + ":ro", "--volume", pluginBin + ":/opt/cni/bin:ro",
                "--volume", config + ":" + Path.of(CONFIG).getParent() + ":ro"));
        env.forEach((key, value) -> args.addAll(List.of("--env", key + "=" + value)));
        args.add(image);
        args.addAll(List.of("run", "--config", CONFIG, "--health-port", Integer.toString(port)));
        node.podman().podman(args.toArray(String[]::new)).ok();
        return new AgentContainer(node, name, port);
    }

    /** The environment Kubernetes gives every container: the API server's service. */
    static Map<String, String> kubernetesServiceEnv()
    {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("KUBERNETES_SERVICE_HOST", "10.96.0.1");
        env.put("KUBERNETES_SERVICE_PORT", "443");
        return env;
    }

    /** The API server's service and the node's dirs as the agent's conf and bin dirs (host paths). */
    static Map<String, String> nodeEnv(RuntimeNode node)
    {
        Map<String, String> env = kubernetesServiceEnv();
        env.put("DEST_CNI_NET_DIR", node.confDir().toString());
        env.put("DEST_CNI_BIN_DIR", node.binDir().toString());
        return env;
    }

    /** Runs the init container: {@code cp} the binary out of the plugin's image into the emptyDir. */
    static Path copyPluginBinary(RuntimeNode node, String pluginImage)
    {
        Path emptyDir = node.root().resolve("plugin-bin");
        try {
            Files.createDirectories(emptyDir);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        node.podman().podman("run", "--rm", "--pull", "never", "--network", "none", "--read-only", "--cap-drop", "all", "--volume",
                emptyDir + ":/plugin-bin", pluginImage, "cp", PluginImage.BINARY, "/plugin-bin/" + RuntimeNode.PLUGIN).ok();
        return emptyDir;
    }

    String name()
    {
        return name;
    }

    int healthPort()
    {
        return healthPort;
    }

    /** GET on the health port; the status code, or -1 when nothing answers. */
    int get(String path)
    {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + healthPort + path)).timeout(Duration.ofSeconds(2)).build();
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

    /** Waits for {@code /readyz} to answer 200: every configuration holds the entry, binary and kubeconfig are there. */
    Duration awaitReady(Duration timeout)
            throws InterruptedException
    {
        long started = System.nanoTime();
        Await.until(timeout, () -> {
            if (get("/readyz") == 200) {
                return true;
            }
            if (!running()) {
                throw new AssertionError("the agent's container stopped:\n" + logs());
            }
            return false;
        }, () -> "not ready:\n" + logs());
        return Duration.ofNanos(System.nanoTime() - started);
    }

    boolean running()
    {
        return inspect("{{.State.Running}}").equals("true");
    }

    /** The container's first process, as the host sees it. */
    long pid()
    {
        return Long.parseLong(inspect("{{.State.Pid}}"));
    }

    int exitCode()
    {
        return Integer.parseInt(inspect("{{.State.ExitCode}}"));
    }

    String inspect(String format)
    {
        return node.podman().podman("inspect", "--format", format, name).ok().out().trim();
    }

    String logs()
    {
        Commands.Result logs = node.podman().podman("logs", name);
        return logs.out() + logs.err();
    }

    Commands.Result exec(String... command)
    {
        List<String> args = new ArrayList<>(List.of("exec", name));
        args.addAll(List.of(command));
        return node.podman().podman(args.toArray(String[]::new));
    }

    /** {@code podman stop}: SIGTERM, then SIGKILL after the timeout, as the kubelet does after the grace period. */
    Commands.Result stop(int timeoutSeconds)
    {
        return node.podman().podman("stop", "--time", Integer.toString(timeoutSeconds), name);
    }

    void remove()
    {
        node.podman().podman("rm", "--force", "--time", "0", name).ok();
    }

    /** Waits until the agent's log holds a line with every one of the given texts, and returns that line. */
    String awaitLogLine(Duration timeout, String... texts)
            throws InterruptedException
    {
        return Await.value(timeout, () -> logs().lines().filter(line -> java.util.Arrays.stream(texts).allMatch(line::contains)).findFirst(),
                () -> "no log line with " + java.util.Arrays.toString(texts) + ":\n" + logs());
    }

    /** Waits for the container to exit. */
    int awaitExit()
    {
        return Integer.parseInt(node.podman().podman("wait", name).ok().out().trim());
    }

    private static String read(Path file)
    {
        try {
            return Files.readString(file);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
