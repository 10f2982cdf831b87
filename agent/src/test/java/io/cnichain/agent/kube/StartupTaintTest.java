package io.cnichain.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.agent.kube.FakeApiServer.Request;
import io.cnichain.agent.time.ManualClock;
import io.cnichain.core.json.CniJson;
import io.cnichain.core.logcapture.CapturedLog;
import io.cnichain.testkit.Await;
import io.cnichain.testkit.KubeletVolume;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up taint's remover on the API worker, against the stand-in API server (the cluster suite runs it against
 * the real one, fence and all): what it sends, in which order, when; the clock is the test's, so every wait is seen as
 * the time the worker schedules, never slept through.
 */
class StartupTaintTest
{
    static final String NODE = "node-1";
    static final String KEY = "cni-chain.io/not-ready";
    static final String OURS = "{\"key\":\"cni-chain.io/not-ready\",\"value\":\"true\",\"effect\":\"NoSchedule\"}";
    static final String OURS_TOO = "{\"key\":\"cni-chain.io/not-ready\",\"effect\":\"NoExecute\"}";
    static final String KUBELETS = "{\"key\":\"node.kubernetes.io/not-ready\",\"effect\":\"NoSchedule\",\"timeAdded\":\"2024-05-01T10:00:00Z\"}";
    static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path serviceAccount;

    private final ManualClock clock = new ManualClock();
    private final KubeWork work = new KubeWork(clock);
    private FakeApiServer server;

    @BeforeEach
    void serviceAccountFiles()
            throws Exception
    {
        CapturedLog.clear();
        KubeletVolume.serviceAccount(serviceAccount, "token-1\n", Files.readString(TestCertificates.shared().caPem()), "cni-chain");
    }

    @AfterEach
    void close()
    {
        work.close();
        if (server != null) {
            server.close();
        }
    }

    @Test
    void removesEveryTaintWithItsKeyOnceTheAgentIsReadyAfterCheckingItsFence()
            throws Exception
    {
        StartupTaint taint = taint(KUBELETS, OURS, OURS_TOO);
        work.add(taint);
        assertThat(work.awaitRuns(1, WAIT)).as("waits to be woken").isEqualTo(Long.MAX_VALUE);
        assertThat(server.requests()).as("nothing asked before the agent is ready").isEmpty();
        assertThat(taint.describe()).isEqualTo("node taint cni-chain.io/not-ready on node-1: kept until the agent is ready");

        taint.onReadiness(true);
        work.wake();
        work.awaitRuns(2, WAIT);
        List<Request> requests = server.requests();
        assertThat(requests).extracting(request -> request.method() + " " + request.query()).containsExactly("PATCH dryRun=All", "GET ", "PATCH ");
        assertThat(requests.get(0).json().get(0).path("path").asText()).as("the fence's probe: a label").startsWith("/metadata/labels/");
        assertThat(server.node().path("metadata").path("labels").has("cni-chain.io/fence-check")).as("a dry run stores nothing").isFalse();
        assertThat(server.node().at("/spec/taints")).as("the kubelet's taint kept").isEqualTo(json("[" + KUBELETS + "]"));
        assertThat(taint.removedGauge()).isEqualTo(1);
        assertThat(taint.describe()).endsWith(": removed");
        assertThat(lines()).contains("INFO Removed taint cni-chain.io/not-ready=true:NoSchedule, cni-chain.io/not-ready:NoExecute from node node-1 "
                + "(its fence is in place: a dry run of a label change was denied); pods can be scheduled on it");
    }

    @Test
    void withoutTheFenceNothingIsRemovedAndItLooksAgainSlowly()
            throws Exception
    {
        StartupTaint taint = taint(OURS);
        server.fence(false);
        taint.onReadiness(true);
        work.add(taint);
        long next = work.awaitRuns(1, WAIT);
        assertThat(server.requests()).extracting(Request::query).containsExactly("dryRun=All");
        assertThat(Duration.ofNanos(next - clock.nanoTime())).as("the fence's back-off").isBetween(Duration.ofSeconds(30), Duration.ofSeconds(45));
        assertThat(taint.describe()).contains("not removed: the fence around this right is missing");
        assertThat(lines()).anyMatch(line -> line.startsWith("ERROR Taint cni-chain.io/not-ready on node node-1: not removed: the fence"));
        assertThat(server.node().at("/spec/taints")).isEqualTo(json("[" + OURS + "]"));

        server.fence(true);
        clock.advance(Duration.ofSeconds(45));
        work.awaitRuns(2, WAIT);
        assertThat(taint.removedGauge()).isEqualTo(1);
    }

    /** A node's name may be 253 characters long: the fence's words come after it in the denial, and are still read. */
    @Test
    void ourFencesDenialIsReadWholeAfterALongNodeName()
            throws Exception
    {
        String name = "node-" + "x".repeat(248);
        ObjectNode node = node(OURS);
        ((ObjectNode) node.path("metadata")).put("name", name);
        server = FakeApiServer.start(TestCertificates.shared().server(), node, "token-1");
        KubeApiClient client = client();
        StartupTaint taint = new StartupTaint(() -> StartupTaint.lift(client, name, KEY), name, KEY);
        taint.onReadiness(true);
        work.add(taint);
        work.awaitRuns(1, WAIT);
        assertThat(taint.removedGauge()).as(taint.describe()).isEqualTo(1);
        assertThat(server.node().at("/spec/taints")).isEqualTo(json("[]"));
    }

    /** Another policy that denies label changes for its own reasons fences nothing of ours: the taint stays. */
    @Test
    void anotherPolicysDenialIsNoFence()
            throws Exception
    {
        StartupTaint taint = taint(OURS);
        server.fenceByAnotherPolicyOnly();
        taint.onReadiness(true);
        work.add(taint);
        work.awaitRuns(1, WAIT);
        assertThat(server.requests()).extracting(Request::query).containsExactly("dryRun=All");
        assertThat(taint.describe()).contains("not removed: the fence around this right is missing");
        assertThat(server.node().at("/spec/taints")).isEqualTo(json("[" + OURS + "]"));
    }

    /** A missing right is a setup to fix, as a missing fence is: asked again slowly, not at the busy server's pace. */
    @Test
    void aRefusalIsAskedAgainSlowly()
            throws Exception
    {
        StartupTaint taint = taint(OURS);
        server.forbidAll("system:serviceaccount:cni-chain:cni-chain");
        taint.onReadiness(true);
        work.add(taint);
        long next = work.awaitRuns(1, WAIT);
        assertThat(Duration.ofNanos(next - clock.nanoTime())).isBetween(Duration.ofSeconds(30), Duration.ofSeconds(45));
        assertThat(taint.describe()).contains("HTTP 403");
    }

    /** A try that ran into its deadline (a child given 40 s) has taken that long: its back-off comes after it, whole. */
    @Test
    void aTryThatTimedOutStillWaitsItsBackOff()
            throws Exception
    {
        StartupTaint taint = new StartupTaint(() -> {
            clock.advance(Duration.ofSeconds(40));
            throw new ApiCallException("timeout", "lift-taint: the child did not end within 40 s; killed");
        }, "node-1", KEY);
        taint.onReadiness(true);
        work.add(taint);
        long next = work.awaitRuns(1, WAIT);
        assertThat(Duration.ofNanos(next - clock.nanoTime())).isBetween(Duration.ofMillis(800), Duration.ofMillis(1200));
    }

    @Test
    void errorsBackOffAsTheApiServersClientsDoAndRetryAfterIsHonoured()
            throws Exception
    {
        StartupTaint taint = taint(OURS);
        server.answerNext("GET", 500, Map.of());
        server.answerNext("GET", 500, Map.of());
        server.answerNext("GET", 429, Map.of("Retry-After", "7"));
        taint.onReadiness(true);
        work.add(taint);
        long next = work.awaitRuns(1, WAIT);
        assertThat(Duration.ofNanos(next - clock.nanoTime())).as("first step").isBetween(Duration.ofMillis(800), Duration.ofMillis(1200));
        clock.advance(Duration.ofMillis(1200));
        next = work.awaitRuns(2, WAIT);
        assertThat(Duration.ofNanos(next - clock.nanoTime())).as("doubled").isBetween(Duration.ofMillis(1600), Duration.ofMillis(2400));
        clock.advance(Duration.ofMillis(2400));
        next = work.awaitRuns(3, WAIT);
        assertThat(Duration.ofNanos(next - clock.nanoTime())).as("the server's Retry-After, jittered").isBetween(Duration.ofSeconds(7), Duration.ofMillis(10_500));
        clock.advance(Duration.ofMillis(10_500));
        work.awaitRuns(4, WAIT);

        assertThat(server.requests()).extracting(Request::method).as("each try checks the fence first")
                .containsExactly("PATCH", "GET", "PATCH", "GET", "PATCH", "GET", "PATCH", "GET", "PATCH");
        assertThat(taint.removedGauge()).isEqualTo(1);
        assertThat(lines()).filteredOn(line -> line.startsWith("WARN")).as("once per kind of error").containsExactly(
                "WARN Cannot remove taint cni-chain.io/not-ready from node node-1 yet, retrying with back-off: "
                        + "GET /api/v1/nodes/node-1: HTTP 500 Internal error occurred: etcdserver: request timed out",
                "WARN Cannot remove taint cni-chain.io/not-ready from node node-1 yet, retrying with back-off: "
                        + "GET /api/v1/nodes/node-1: HTTP 429 Too many requests, please try again later.; Retry-After 7.0 s");
        assertThat(lines()).contains("INFO Removed taint cni-chain.io/not-ready=true:NoSchedule from node node-1 (its fence is in place: a dry run "
                + "of a label change was denied); pods can be scheduled on it (after 3 failed attempts)");
    }

    /** Readiness is told after every pass: a lost readiness is said once, not once a pass. */
    @Test
    void readinessLostAfterAFailedTryIsSaidOnce()
            throws Exception
    {
        StartupTaint taint = taint(OURS);
        server.answerNext("PATCH", 500, java.util.Map.of());
        taint.onReadiness(true);
        work.add(taint);
        work.awaitRuns(1, WAIT);
        taint.onReadiness(false);
        clock.advance(Duration.ofSeconds(2));
        work.awaitRuns(2, WAIT);
        for (int pass = 0; pass < 3; pass++) {
            work.wake();
            work.awaitRuns(3 + pass, WAIT);
        }
        assertThat(lines()).filteredOn(line -> line.contains("Agent not ready any more")).hasSize(1);
    }

    @Test
    void anotherControllersChangeBetweenReadAndPatchSurvives()
            throws Exception
    {
        StartupTaint taint = taint(OURS);
        server.beforeNextPatch(node -> ((com.fasterxml.jackson.databind.node.ArrayNode) node.withArray("/spec/taints")).insert(0, json(KUBELETS)));
        taint.onReadiness(true);
        work.add(taint);
        work.awaitRuns(1, WAIT);
        assertThat(server.requests()).extracting(Request::method).as("the fence's dry run; read, patched (refused: changed since), read again, patched")
                .containsExactly("PATCH", "GET", "PATCH", "GET", "PATCH");
        assertThat(server.node().at("/spec/taints")).isEqualTo(json("[" + KUBELETS + "]"));
        assertThat(taint.removedGauge()).isEqualTo(1);
    }

    @Test
    void aNodeWithoutTheTaintIsLeftAloneAndForbiddenIsSaidOnce()
            throws Exception
    {
        StartupTaint taint = taint(KUBELETS);
        server.forbidAll("system:serviceaccount:cni-chain:cni-chain");
        taint.onReadiness(true);
        work.add(taint);
        long next = work.awaitRuns(1, WAIT);
        assertThat(taint.describe()).contains("removing (1 failed attempt; last: PATCH /api/v1/nodes/node-1: HTTP 403 nodes \"node-1\" is forbidden: "
                + "User \"system:serviceaccount:cni-chain:cni-chain\" cannot patch resource \"nodes\"");
        assertThat(taint.describe()).contains("(the agent's ClusterRole must allow get and patch on nodes)");

        server.close();
        server = FakeApiServer.start(TestCertificates.shared().server(), node(KUBELETS), "token-1");
        KubeApiClient client = client();
        StartupTaint again = new StartupTaint(() -> StartupTaint.lift(client, NODE, KEY), NODE, KEY);
        again.onReadiness(true);
        KubeWork other = new KubeWork(clock);
        try {
            other.add(again);
            other.awaitRuns(1, WAIT);
            assertThat(server.requests()).extracting(Request::method).containsExactly("PATCH", "GET");
            assertThat(again.describe()).endsWith(": not present, nothing to remove");
            assertThat(again.removedGauge()).isEqualTo(1);
        }
        finally {
            other.close();
        }
        assertThat(next).isNotEqualTo(Long.MAX_VALUE);
    }

    @Test
    void closeAbandonsTheCallInFlight()
            throws Exception
    {
        StartupTaint taint = taint(OURS);
        CountDownLatch release = new CountDownLatch(1);
        server.holdAll(release);
        taint.onReadiness(true);
        work.add(taint);
        server.awaitRequests(1, WAIT);
        long start = System.nanoTime();
        work.close();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        Await.until(WAIT, () -> Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().equals("kube-api") && t.isAlive()),
                () -> "the worker's thread is still there");
        release.countDown();
        assertThat(server.node().at("/spec/taints")).isEqualTo(json("[" + OURS + "]"));
    }

    private StartupTaint taint(String... taints)
            throws Exception
    {
        server = FakeApiServer.start(TestCertificates.shared().server(), node(taints), "token-1");
        KubeApiClient client = client();
        return new StartupTaint(() -> StartupTaint.lift(client, NODE, KEY), NODE, KEY);
    }

    /** Each call ends within a second: a call abandoned at close ends by its deadline. */
    private KubeApiClient client()
    {
        return new KubeApiClient("127.0.0.1", server.port(), serviceAccount.resolve("token"), serviceAccount.resolve("ca.crt"), Duration.ofSeconds(1),
                clock);
    }

    static ObjectNode node(String... taints)
    {
        return (ObjectNode) json("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-1\",\"resourceVersion\":\"100\","
                + "\"labels\":{\"kubernetes.io/hostname\":\"node-1\"}},\"spec\":{\"podCIDR\":\"10.244.1.0/24\",\"taints\":[" + String.join(",", taints)
                + "]},\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
    }

    private static List<String> lines()
    {
        return CapturedLog.lines().stream().filter(line -> line.contains("node-1")).toList();
    }

    static JsonNode json(String text)
    {
        return CniJson.parse(text.getBytes(StandardCharsets.UTF_8));
    }
}
