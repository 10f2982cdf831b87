package io.cnichain.distribution.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.distribution.runtime.Commands.Result;
import io.cnichain.testkit.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rights a node's accounts have over Nodes, judged by the real API server's RBAC and admission chain: the start-up
 * taint's remover (the agent's own account) may lift that taint from its own Node and change nothing else of any Node;
 * the readiness reporter's account may set its condition on its own Node and nothing else; the Node Readiness rule the
 * chart ships is accepted by the rule's CRD, whose validation the API server applies.
 */
@RealCluster
class NodeFencesClusterIT
{
    static final String TAINT = "cni-chain.io/not-ready";
    static final String OTHER_NODE = "cluster-suite-other";

    @Test
    void theAgentLiftsItsOwnNodesTaintAndTheFenceDeniesItEverythingElse(Cluster cluster, ChartRelease release)
    {
        String node = cluster.kit().node();
        otherNode(cluster, Map.of(TAINT, "NoSchedule"));
        cluster.kubectl().ok("taint", "node", node, TAINT + "=:NoSchedule");
        Map<String, Object> values = cluster.nodeValues();
        values.put("cniChain.nodeTaint.enabled", true);
        release.install(values);
        cluster.awaitRollout(ChartRelease.NAMESPACE, "cni-chain");
        Await.until(Duration.ofSeconds(60), () -> !taintKeys(cluster, node).contains(TAINT), () -> "the agent did not lift " + TAINT + " from " + node);
        String agentPod = cluster.pods(ChartRelease.NAMESPACE, "app.kubernetes.io/name=cni-chain").get(0);
        assertThat(cluster.agentLog(ChartRelease.NAMESPACE, agentPod)).as("it checked its fence before it acted")
                .contains("(its fence is in place: a dry run of a label change was denied)");

        Kubectl agent = cluster.kubectl().as(podToken(cluster, ChartRelease.NAMESPACE, "cni-chain", "app.kubernetes.io/name=cni-chain"));
        assertThat(agent.ok("auth", "can-i", "patch", "nodes").strip()).as("RBAC grants the patch; admission fences it").isEqualTo("yes");

        Result other = agent.run("patch", "node", OTHER_NODE, "--type=json", "-p", "[{\"op\":\"remove\",\"path\":\"/spec/taints/0\"}]");
        assertThat(other.code()).as("another Node's taint: %s", other).isNotZero();
        assertThat(other.err()).contains("denied request", "may change only the node its token is bound to");
        assertThat(taintKeys(cluster, OTHER_NODE)).contains(TAINT);

        Result label = agent.run("label", "node", node, "cluster-suite/by-the-agent=yes");
        assertThat(label.code()).as("a label on its own Node: %s", label).isNotZero();
        assertThat(label.err()).contains("denied request");

        Result added = agent.run("taint", "node", node, "cluster-suite/added=:NoSchedule");
        assertThat(added.code()).as("a taint added to its own Node: %s", added).isNotZero();
        assertThat(taintKeys(cluster, node)).doesNotContain("cluster-suite/added");
    }

    @Test
    void theReporterSetsOnlyItsOwnConditionAndTheRuleMeetsItsCrd(Cluster cluster, ChartRelease release)
    {
        String node = cluster.kit().node();
        otherNode(cluster, Map.of());
        cluster.kubectl().apply(StandInImages.resource("cluster/nodereadinessrules-crd.yaml")).ok();
        cluster.kubectl().ok("wait", "--for=condition=Established", "crd/nodereadinessrules.readiness.node.x-k8s.io", "--timeout=60s");
        Map<String, Object> values = cluster.nodeValues();
        values.put("cniChain.nodeReadiness.enabled", true);
        values.put("cniChain.nodeReadiness.image.pullPolicy", "Never");
        release.install(values);
        assertThat(cluster.kubectl().json("get", "nodereadinessrules", "cni-chain").path("spec").path("taint").path("key").asText())
                .as("the shipped rule, accepted by the CRD").startsWith("readiness.k8s.io/");
        Result refused = cluster.kubectl().apply("""
                apiVersion: readiness.node.x-k8s.io/v1alpha1
                kind: NodeReadinessRule
                metadata:
                  name: cluster-suite-bad-key
                spec:
                  conditions: [{type: cni-chain.io/PluginReady, requiredStatus: "True"}]
                  taint: {key: cni-chain.io/not-ready, effect: NoSchedule}
                  nodeSelector: {matchLabels: {kubernetes.io/os: linux}}
                """);
        assertThat(refused.code()).as("a key the CRD refuses: %s", refused).isNotZero();
        assertThat(refused.err()).contains("taint key must start with 'readiness.k8s.io/'");

        Kubectl reporter = cluster.kubectl().as(podToken(cluster, ChartRelease.NAMESPACE, "cni-chain-readiness-reporter",
                "app.kubernetes.io/name=cni-chain-readiness-reporter"));
        String condition = "cni-chain.io/PluginReady";
        assertThat(updateStatus(reporter, cluster, node, status -> setCondition(status, condition, "True")).code())
                .as("its own condition on its own Node").isZero();
        assertThat(conditionStatus(cluster, node, condition)).isEqualTo(Optional.of("True"));

        // A policy just created is enforced once the API server has loaded it from its watch: until then the token has
        // what RBAC grants. A dry run, which admission judges as it would the write, tells when the fence is up.
        long since = System.nanoTime();
        java.util.concurrent.atomic.AtomicInteger dryRuns = new java.util.concurrent.atomic.AtomicInteger();
        Await.until(Duration.ofSeconds(30), () -> dryRuns.incrementAndGet() > 0 && updateStatus(reporter, cluster, OTHER_NODE,
                status -> setCondition(status, condition, "True"), "--dry-run=server").code() != 0,
                () -> "the fence never denied the reporter another Node's status");
        Say.step(String.format("the reporter's fence denied dry run %d of another Node's status, %d ms after the reporter's own write", dryRuns.get(),
                (System.nanoTime() - since) / 1_000_000));
        Result otherCondition = updateStatus(reporter, cluster, OTHER_NODE, status -> setCondition(status, condition, "True"));
        assertThat(otherCondition.code()).as("its condition on another Node: %s", otherCondition).isNotZero();
        assertThat(otherCondition.err()).contains("denied request");

        Result label = updateStatus(reporter, cluster, node, object -> ((ObjectNode) object.path("metadata").path("labels"))
                .put("node-restriction.kubernetes.io/cluster-suite", "yes"));
        assertThat(label.code()).as("a label, through the status subresource: %s", label).isNotZero();
        assertThat(cluster.kubectl().json("get", "node", node).path("metadata").path("labels").has("node-restriction.kubernetes.io/cluster-suite"))
                .isFalse();

        Result address = updateStatus(reporter, cluster, node, object -> ((ObjectNode) object.path("status").path("addresses").get(0))
                .put("address", "203.0.113.7"));
        assertThat(address.code()).as("an address: %s", address).isNotZero();

        Result kubeletsCondition = updateStatus(reporter, cluster, node, object -> setCondition(object, "Ready", "False"));
        assertThat(kubeletsCondition.code()).as("another condition of its own Node: %s", kubeletsCondition).isNotZero();
    }

    /** A Node without a kubelet (the API server keeps it as an object), not selected by the DaemonSets (no os label). */
    private static void otherNode(Cluster cluster, Map<String, String> taints)
    {
        StringBuilder taintList = new StringBuilder();
        taints.forEach((key, effect) -> taintList.append("    - {key: ").append(key).append(", effect: ").append(effect).append("}\n"));
        cluster.kubectl().apply("""
                apiVersion: v1
                kind: Node
                metadata:
                  name: %s
                  labels:
                    app.kubernetes.io/part-of: cluster-suite
                spec:
                  taints:
                %s""".formatted(OTHER_NODE, taintList.isEmpty() ? "    []\n" : taintList.toString())).ok();
    }

    static java.util.List<String> taintKeys(Cluster cluster, String node)
    {
        java.util.List<String> keys = new java.util.ArrayList<>();
        cluster.kubectl().json("get", "node", node).path("spec").path("taints").forEach(taint -> keys.add(taint.path("key").asText()));
        return keys;
    }

    /** A token of the pod's account bound to the pod, as the kubelet projects it (so it names the pod's Node). */
    static String podToken(Cluster cluster, String namespace, String account, String selector)
    {
        String pod = Await.value(Duration.ofSeconds(60), () -> cluster.pods(namespace, selector).stream().findFirst(), () -> "no pod " + selector);
        String uid = cluster.kubectl().json("-n", namespace, "get", "pod", pod).path("metadata").path("uid").asText();
        return cluster.kubectl().ok("-n", namespace, "create", "token", account, "--bound-object-kind=Pod", "--bound-object-name=" + pod,
                "--bound-object-uid=" + uid, "--duration=10m").strip();
    }

    /** A PUT of the Node's status subresource, as the reporter's {@code UpdateStatus} does, with {@code change} applied. */
    private static Result updateStatus(Kubectl as, Cluster cluster, String node, java.util.function.Consumer<ObjectNode> change, String... flags)
    {
        ObjectNode object = (ObjectNode) cluster.kubectl().json("get", "node", node);
        if (!object.path("metadata").has("labels")) {
            ((ObjectNode) object.path("metadata")).putObject("labels");
        }
        change.accept(object);
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("replace", "--subresource=status", "-f", "-"));
        args.addAll(java.util.List.of(flags));
        return as.run(Optional.of(object.toString()), args.toArray(String[]::new));
    }

    private static void setCondition(ObjectNode node, String type, String status)
    {
        com.fasterxml.jackson.databind.node.ArrayNode conditions = node.withObject("/status").withArray("conditions");
        for (JsonNode condition : conditions) {
            if (condition.path("type").asText().equals(type)) {
                ((ObjectNode) condition).put("status", status);
                return;
            }
        }
        ObjectNode condition = conditions.addObject();
        condition.put("type", type);
        condition.put("status", status);
        condition.put("reason", "ClusterSuite");
        condition.put("message", "set by the cluster suite");
        String now = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        condition.put("lastHeartbeatTime", now);
        condition.put("lastTransitionTime", now);
    }

    private static Optional<String> conditionStatus(Cluster cluster, String node, String type)
    {
        for (JsonNode condition : cluster.kubectl().json("get", "node", node).path("status").path("conditions")) {
            if (condition.path("type").asText().equals(type)) {
                return Optional.of(condition.path("status").asText());
            }
        }
        return Optional.empty();
    }
}
