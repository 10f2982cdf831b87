package io.cnichain.distribution.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.agent.kube.ApiCallException;
import io.cnichain.agent.kube.KubeApiClient;
import io.cnichain.agent.time.Clock;
import io.cnichain.core.config.ApiServerSettings;
import io.cnichain.core.config.PodIdentity;
import io.cnichain.testkit.Await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * What a fleet of simulated agents needs on the kit's API server: a Node each (no kubelet: the API server keeps the
 * object, the node lifecycle controller marks it unreachable, the DaemonSet still places a pod there and the scheduler
 * binds it), the chart's DaemonSet's pod on it, and a token of the agent's account bound to that pod, as the kubelet
 * would project it. Made by a harness account with cluster-admin, from this JVM, a few calls at a time.
 */
final class FleetObjects
{
    static final String PREFIX = "sim-";
    private static final KubeApiClient.Hint HINT = new KubeApiClient.Hint("", "");

    private final Cluster cluster;
    private final Path dir;
    private final Path ca;
    private final String host;
    private final String port;

    FleetObjects(Cluster cluster, Path dir)
    {
        this.cluster = cluster;
        this.dir = dir;
        JsonNode server = cluster.kubectl().json("config", "view", "--raw", "--minify").path("clusters").get(0).path("cluster");
        URI uri = URI.create(server.path("server").asText());
        this.host = uri.getHost();
        this.port = Integer.toString(uri.getPort());
        this.ca = dir.resolve("ca.crt");
        try {
            Files.write(ca, Base64.getDecoder().decode(server.path("certificate-authority-data").asText()));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param pod the agent's pod and node
     * @param api where its token and the CA are, as its service account's volume
     * @param dir its own directory
     */
    record Member(PodIdentity pod, ApiServerSettings api, Path dir) {}

    List<Member> nodesPodsAndTokens(int size)
            throws Exception
    {
        KubeApiClient admin = harness();
        Say.step("fleet: creating " + size + " Nodes");
        inParallel(size, i -> {
            String name = String.format(PREFIX + "%04d", i);
            admin.create("/api/v1/nodes", """
                    {"apiVersion":"v1","kind":"Node","metadata":{"name":"%s","labels":{"kubernetes.io/os":"linux","app.kubernetes.io/part-of":"cluster-suite"}},
                     "spec":{"taints":[{"key":"%s","value":"true","effect":"NoSchedule"}]}}""".formatted(name, FleetSimulation.TAINT), HINT);
            // What a kubelet reports and the scheduler needs to place the DaemonSet's pod there: room, and a runtime.
            admin.jsonPatch("/api/v1/nodes/" + name + "/status", """
                    [{"op":"add","path":"/status/nodeInfo/containerRuntimeVersion","value":"containerd://2.1.5"},
                     {"op":"add","path":"/status/capacity","value":{"cpu":"2","memory":"4Gi","pods":"110"}},
                     {"op":"add","path":"/status/allocatable","value":{"cpu":"2","memory":"4Gi","pods":"110"}}]""", HINT);
            return null;
        });
        Say.step("fleet: waiting for the DaemonSet's pods on them");
        Map<String, JsonNode> pods = Await.value(Duration.ofMinutes(10), () -> {
            Map<String, JsonNode> bound = fleetPods();
            return bound.size() == size ? Optional.of(bound) : Optional.empty();
        }, () -> "the DaemonSet made " + fleetPods().size() + " of " + size + " pods on the fleet's Nodes");
        Say.step("fleet: a token bound to each pod");
        List<String> nodes = new ArrayList<>(pods.keySet());
        return inParallel(size, i -> {
            JsonNode pod = pods.get(nodes.get(i));
            String name = pod.path("metadata").path("name").asText();
            JsonNode answer = admin.create("/api/v1/namespaces/" + ChartRelease.NAMESPACE + "/serviceaccounts/cni-chain/token", """
                    {"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":7200,
                     "boundObjectRef":{"apiVersion":"v1","kind":"Pod","name":"%s","uid":"%s"}}}""".formatted(name,
                    pod.path("metadata").path("uid").asText()), HINT);
            Path member = Files.createDirectories(dir.resolve(nodes.get(i)));
            Files.writeString(member.resolve("token"), answer.path("status").path("token").asText());
            Files.copy(ca, member.resolve("ca.crt"));
            return new Member(new PodIdentity(ChartRelease.NAMESPACE, name, nodes.get(i)),
                    new ApiServerSettings(member, Optional.empty(), false, "https", Optional.of(host), Optional.of(port)), member);
        });
    }

    /** The chart's DaemonSet deleted with {@code --cascade=orphan} and created again; waits until it adopted every pod. */
    void orphanAndReapply(int size)
    {
        JsonNode daemonSet = cluster.kubectl().json("-n", ChartRelease.NAMESPACE, "get", "daemonset", "cni-chain");
        cluster.kubectl().ok("-n", ChartRelease.NAMESPACE, "delete", "daemonset", "cni-chain", "--cascade=orphan", "--wait=true");
        ObjectNode fresh = daemonSet.deepCopy();
        ((ObjectNode) fresh.path("metadata")).remove(List.of("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"));
        fresh.remove("status");
        cluster.kubectl().apply(fresh.toString()).ok();
        String uid = cluster.kubectl().json("-n", ChartRelease.NAMESPACE, "get", "daemonset", "cni-chain").path("metadata").path("uid").asText();
        Await.until(Duration.ofMinutes(5), () -> fleetPods().values().stream().filter(pod -> owner(pod).equals(uid)).count() >= size,
                () -> "the new DaemonSet did not adopt the fleet's pods");
    }

    /** The fleet's pods that are not being deleted, by their Node. */
    private Map<String, JsonNode> fleetPods()
    {
        Map<String, JsonNode> bound = new java.util.TreeMap<>();
        for (JsonNode pod : cluster.kubectl().json("-n", ChartRelease.NAMESPACE, "get", "pods", "-l", "app.kubernetes.io/name=cni-chain").path("items")) {
            String node = pod.path("spec").path("nodeName").asText();
            if (node.startsWith(PREFIX) && !pod.path("metadata").has("deletionTimestamp")) {
                bound.put(node, pod);
            }
        }
        return bound;
    }

    private static String owner(JsonNode pod)
    {
        for (JsonNode reference : pod.path("metadata").path("ownerReferences")) {
            if (reference.path("controller").asBoolean(false)) {
                return reference.path("uid").asText();
            }
        }
        return "";
    }

    /** A cluster-admin account of the harness's, outside the fleet's namespace, and a client with its token. */
    private KubeApiClient harness()
            throws IOException
    {
        cluster.kubectl().apply("""
                apiVersion: v1
                kind: ServiceAccount
                metadata: {name: fleet-harness, namespace: default}
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRoleBinding
                metadata:
                  name: fleet-harness
                  labels: {app.kubernetes.io/part-of: cluster-suite}
                roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
                subjects: [{kind: ServiceAccount, name: fleet-harness, namespace: default}]
                """).ok();
        Path token = dir.resolve("harness-token");
        Files.writeString(token, cluster.kubectl().ok("-n", "default", "create", "token", "fleet-harness", "--duration=3h").strip(), StandardCharsets.US_ASCII);
        return new KubeApiClient(host, port, token, ca, Duration.ofSeconds(30), Clock.SYSTEM);
    }

    @FunctionalInterface
    interface Step<T>
    {
        T run(int i)
                throws ApiCallException, IOException;
    }

    /** Each step at most 16 at a time, in order of i. */
    private static <T> List<T> inParallel(int size, Step<T> step)
            throws Exception
    {
        Semaphore slots = new Semaphore(16);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<T>> results = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                int index = i;
                results.add(threads.submit(() -> {
                    slots.acquire();
                    try {
                        return step.run(index);
                    }
                    finally {
                        slots.release();
                    }
                }));
            }
            List<T> all = new ArrayList<>();
            for (Future<T> result : results) {
                all.add(result.get());
            }
            return all;
        }
    }
}
