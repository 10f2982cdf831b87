package io.cnichain.distribution.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cnichain.testkit.Await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * What a cluster test works with: the kit's cluster (as its administrator), the node's CNI directories as containerd
 * reads them, the stand-in plugin's record of calls, and pods to create and judge.
 */
final class Cluster
{
    static final String KUBECONFIG_NAME = "ZZZ-linkerd-cni-kubeconfig";
    static final String PLUGIN = "linkerd-cni";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Kit kit;
    private final Kubectl kubectl;
    private final PluginCalls calls;

    Cluster(Kit kit, PluginCalls calls)
    {
        this.kit = requireNonNull(kit, "kit is null");
        this.kubectl = Kubectl.admin(kit.kubeconfig());
        this.calls = requireNonNull(calls, "calls is null");
    }

    Kit kit()
    {
        return kit;
    }

    Kubectl kubectl()
    {
        return kubectl;
    }

    PluginCalls calls()
    {
        return calls;
    }

    /** The chart's values that fit the kit's node: its CNI directories and the stand-in plugin image. */
    java.util.Map<String, Object> nodeValues()
    {
        java.util.Map<String, Object> values = new java.util.LinkedHashMap<>();
        values.put("destCNINetDir", kit.confDir().toString());
        values.put("destCNIBinDir", kit.binDir().toString());
        values.put("image.name", StandInImages.PLUGIN_IMAGE);
        values.put("image.version", StandInImages.PLUGIN_TAG);
        values.put("image.pullPolicy", "Never");
        values.put("cniChain.image.pullPolicy", "Never");
        return values;
    }

    /** Waits until every pod of the DaemonSet runs the current template and is Ready. */
    void awaitRollout(String namespace, String daemonSet)
    {
        var result = kubectl.run("-n", namespace, "rollout", "status", "daemonset/" + daemonSet, "--timeout=120s");
        if (result.code() != 0) {
            throw new AssertionError("DaemonSet " + namespace + "/" + daemonSet + " did not roll out: " + result.out() + result.err()
                    + "\n--- its pods\n" + kubectl.run("-n", namespace, "describe", "pods").out()
                    + "\n--- their logs\n" + kubectl.run("-n", namespace, "logs", "daemonset/" + daemonSet, "--all-containers", "--tail=200").out());
        }
    }

    /** @return the names of the DaemonSet's pods that are not being deleted */
    List<String> pods(String namespace, String labelSelector)
    {
        List<String> names = new ArrayList<>();
        for (JsonNode pod : kubectl.json("-n", namespace, "get", "pods", "-l", labelSelector).path("items")) {
            if (!pod.path("metadata").has("deletionTimestamp")) {
                names.add(pod.path("metadata").path("name").asText());
            }
        }
        return names;
    }

    String agentLog(String namespace, String pod)
    {
        return kubectl.ok("-n", namespace, "logs", pod, "-c", "cni-chain");
    }

    // ---- the node's files, as containerd reads them

    JsonNode primary()
    {
        try {
            return JSON.readTree(kit.primary().toFile());
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the types of the primary list's plugins, in order */
    List<String> primaryChain()
    {
        List<String> types = new ArrayList<>();
        primary().path("plugins").forEach(plugin -> types.add(plugin.path("type").asText()));
        return types;
    }

    /** Whether the primary holds what {@code kit up} wrote, read as JSON: the same network, maybe in another layout. */
    boolean primaryAsWritten()
    {
        try {
            return primary().equals(JSON.readTree(kit.pristinePrimary().toFile()));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    boolean primaryUntouched()
    {
        try {
            return Arrays.equals(Files.readAllBytes(kit.primary()), Files.readAllBytes(kit.pristinePrimary()));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The token the plugin's kubeconfig on the node's disk holds. */
    String kubeconfigToken()
    {
        try {
            for (String line : Files.readAllLines(kit.confDir().resolve(KUBECONFIG_NAME))) {
                if (line.strip().startsWith("token:")) {
                    return line.strip().substring("token:".length()).strip();
                }
            }
            throw new AssertionError("no token in " + kit.confDir().resolve(KUBECONFIG_NAME));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return what is left on the node of an installation, the primary's bytes included: empty when nothing */
    Optional<String> leftovers()
    {
        return leftovers(true);
    }

    /**
     * @param bytes whether the primary must hold its own bytes, or only the same JSON (another installer may have
     *              written it in its own layout, as Linkerd's Go installer does)
     */
    Optional<String> leftovers(boolean bytes)
    {
        List<String> left = new ArrayList<>();
        if (bytes ? !primaryUntouched() : !primaryAsWritten()) {
            left.add(kit.primary() + " differs from the primary's own bytes (plugins " + primaryChain() + ")");
        }
        try (Stream<Path> conf = Files.list(kit.confDir()); Stream<Path> bin = Files.list(kit.binDir())) {
            conf.filter(path -> !path.equals(kit.primary())).forEach(path -> left.add(path.toString()));
            bin.filter(path -> path.getFileName().toString().equals(PLUGIN) || path.getFileName().toString().startsWith(".cni-chain"))
                    .forEach(path -> left.add(path.toString()));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return left.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", left));
    }

    void awaitClean(Duration within)
    {
        Await.until(within, () -> leftovers().isEmpty(), () -> "the node still holds: " + leftovers().orElse(""));
    }

    /** As {@link #awaitClean}, the primary judged as JSON rather than bytes. */
    void awaitCleanAsJson(Duration within)
    {
        Await.until(within, () -> leftovers(false).isEmpty(), () -> "the node still holds: " + leftovers(false).orElse(""));
    }

    /**
     * Puts the node back as {@code kit up} left it, after a test that may have failed half-way: what our agents and
     * Linkerd's installers leave is removed, the primary's bytes restored.
     */
    void restoreNode()
            throws IOException
    {
        Path copy = kit.confDir().resolve(".restore.tmp");
        Files.copy(kit.pristinePrimary(), copy, StandardCopyOption.REPLACE_EXISTING);
        Files.move(copy, kit.primary(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (Stream<Path> conf = Files.list(kit.confDir()); Stream<Path> bin = Files.list(kit.binDir())) {
            for (Path path : Stream.concat(conf.filter(p -> !p.equals(kit.primary())),
                    bin.filter(p -> p.getFileName().toString().equals(PLUGIN) || p.getFileName().toString().startsWith(".cni-chain"))).toList()) {
                io.cnichain.distribution.runtime.Commands.run("rm", "-rf", "--one-file-system", path.toString()).ok();
            }
        }
    }

    // ---- pods

    /** A plain pod (the kit's pause image) on the pod network: its sandbox runs the node's chain. */
    void createPod(String namespace, String name)
    {
        kubectl.apply("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  terminationGracePeriodSeconds: 0
                  containers:
                    - name: pause
                      image: %s
                      imagePullPolicy: Never
                """.formatted(name, namespace, kit.pauseImage())).ok();
    }

    /** @return the pod's address once it runs */
    String awaitRunning(String namespace, String name, Duration within)
    {
        return Await.value(within, () -> {
            JsonNode status = kubectl.json("-n", namespace, "get", "pod", name).path("status");
            return status.path("phase").asText().equals("Running") && !status.path("podIP").asText().isEmpty()
                    ? Optional.of(status.path("podIP").asText()) : Optional.empty();
        }, () -> "pod " + namespace + "/" + name + " is not running: " + kubectl.run("-n", namespace, "describe", "pod", name).out());
    }

    /**
     * @return whether the pod's current sandbox ran the plugin to its end: an ADD for the pod whose read answered 200,
     *         given the address the pod has now
     */
    boolean meshed(String namespace, String pod, String ip)
    {
        return calls.of(namespace, pod).stream().anyMatch(call -> call.meshed() && call.ip().equals(ip));
    }

    void createNamespace(String name)
    {
        kubectl.ok("create", "namespace", name);
    }
}
