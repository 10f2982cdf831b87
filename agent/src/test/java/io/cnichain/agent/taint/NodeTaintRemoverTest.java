package io.cnichain.agent.taint;

import io.cnichain.testkit.Await;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.config.ApiServerSettings;
import io.cnichain.core.config.NodeTaintSettings;
import io.cnichain.core.json.CniJson;
import io.cnichain.core.logcapture.CapturedLog;
import io.cnichain.agent.taint.FakeApiServer.Request;
import io.cnichain.agent.taint.TaintRemovalState.Phase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The taint remover against {@link FakeApiServer}, a stand-in for the API server (HTTPS on 127.0.0.1 with a
 * certificate of a CA made by keytool; GET and JSON-patch PATCH of the node with the API's semantics). Timings are
 * short and injected ({@link RetryPolicy}); negative checks wait for an event first (a state the remover publishes
 * after its attempt, a request the stub saw, the remover's thread gone), never for a fixed time. After each test, once
 * its removers are closed, no remover thread may be left.
 */
class NodeTaintRemoverTest
{
    static final String NODE = "node-1";
    static final String KEY = "cni-chain.io/not-ready";
    static final String OURS = "{\"key\":\"cni-chain.io/not-ready\",\"value\":\"true\",\"effect\":\"NoSchedule\"}";
    static final String KUBELETS = "{\"key\":\"node.kubernetes.io/not-ready\",\"effect\":\"NoSchedule\",\"timeAdded\":\"2024-05-01T10:00:00Z\"}";
    static final String MAINTENANCE = "{\"key\":\"example.com/maintenance\",\"effect\":\"NoExecute\"}";
    static final RetryPolicy FAST = new RetryPolicy(ms(100), ms(400), Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(5), 3);
    static final Duration WAIT = Duration.ofSeconds(20);

    static TestCertificates certificates;

    @TempDir
    Path serviceAccount;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void makeCertificates()
            throws Exception
    {
        certificates = TestCertificates.shared();
    }

    @BeforeEach
    void serviceAccountFiles()
            throws Exception
    {
        CapturedLog.clear();
        rotateToken("token-1");
        Files.copy(certificates.caPem(), serviceAccount.resolve("ca.crt"));
    }

    @AfterEach
    void closeAll()
            throws Exception
    {
        Collections.reverse(toClose);
        for (AutoCloseable closeable : toClose) {
            closeable.close();
        }
        assertThat(workerAlive()).as("the remover's thread left").isFalse();
    }

    @Test
    void removesTheTaintOnlyOnceTheAgentIsReadyWithOneGetAndOneJsonPatch()
            throws Exception
    {
        FakeApiServer server = server(KUBELETS, OURS);
        NodeTaintRemover remover = remover(server, FAST);
        remover.onReadiness(false);
        remover.onReadiness(false);
        assertThat(remover.state().phase()).isEqualTo(Phase.WAITING_FOR_READINESS);
        assertThat(remover.state().removedGauge()).isZero();
        assertThat(remover.state().describe()).isEqualTo("node taint cni-chain.io/not-ready on node-1: kept until the agent is ready");
        assertThat(workerAlive()).as("no thread, so no request, before the agent is ready").isFalse();

        long readyAt = System.nanoTime();
        remover.onReadiness(true);
        TaintRemovalState done = awaitState(remover, state -> state.phase() == Phase.REMOVED);

        List<Request> requests = server.requests();
        assertThat(requests).extracting(Request::method).containsExactly("GET", "PATCH");
        assertThat(requests).allSatisfy(request -> {
            assertThat(request.path()).isEqualTo("/api/v1/nodes/node-1");
            assertThat(request.authorization()).isEqualTo("Bearer token-1");
            assertThat(request.accept()).isEqualTo("application/json");
            assertThat(request.receivedNanos()).as("sent after onReadiness(true)").isGreaterThan(readyAt);
        });
        assertThat(requests.get(0).body()).isEmpty();
        assertThat(requests.get(1).contentType()).isEqualTo("application/json-patch+json");
        assertThat(requests.get(1).json()).isEqualTo(json("[{\"op\":\"test\",\"path\":\"/spec/taints/1\",\"value\":" + OURS + "},"
                + "{\"op\":\"remove\",\"path\":\"/spec/taints/1\"}]"));
        assertThat(server.node().at("/spec/taints")).isEqualTo(json("[" + KUBELETS + "]"));
        assertThat(server.node().at("/metadata/resourceVersion").asText()).isEqualTo("101");
        assertThat(done.removedGauge()).isOne();
        assertThat(done.failedAttempts()).isZero();
        assertThat(done.describe()).isEqualTo("node taint cni-chain.io/not-ready on node-1: removed");
        assertThat(lines()).containsExactly(
                "INFO Taint cni-chain.io/not-ready stays on node node-1 until the chained plugin is in place",
                "INFO Agent ready; removing taint cni-chain.io/not-ready from node node-1",
                "INFO Removed taint cni-chain.io/not-ready=true:NoSchedule from node node-1; pods can be scheduled on it");

        awaitWorkerEnd();
        remover.onReadiness(false);
        remover.onReadiness(true);
        assertThat(workerAlive()).as("finished: readiness changes start nothing").isFalse();
        assertThat(server.requests()).hasSize(2);
    }

    @Test
    void everyTaintWithTheKeyIsRemovedWhateverItsEffect()
            throws Exception
    {
        String oursNoExecute = "{\"key\":\"cni-chain.io/not-ready\",\"effect\":\"NoExecute\"}";
        FakeApiServer server = server(OURS, KUBELETS, oursNoExecute);
        NodeTaintRemover remover = remover(server, FAST);
        remover.onReadiness(true);
        awaitState(remover, state -> state.phase() == Phase.REMOVED);
        assertThat(server.requests().get(1).json()).as("last position first").isEqualTo(json("["
                + "{\"op\":\"test\",\"path\":\"/spec/taints/2\",\"value\":" + oursNoExecute + "},{\"op\":\"remove\",\"path\":\"/spec/taints/2\"},"
                + "{\"op\":\"test\",\"path\":\"/spec/taints/0\",\"value\":" + OURS + "},{\"op\":\"remove\",\"path\":\"/spec/taints/0\"}]"));
        assertThat(server.node().at("/spec/taints")).isEqualTo(json("[" + KUBELETS + "]"));
        assertThat(lines()).contains("INFO Removed taint cni-chain.io/not-ready=true:NoSchedule, cni-chain.io/not-ready:NoExecute from node node-1; "
                + "pods can be scheduled on it");
    }

    @Test
    void anotherControllersChangeBetweenReadAndPatchSurvives()
            throws Exception
    {
        FakeApiServer server = server(KUBELETS, OURS);
        // Between our GET and our PATCH, another controller adds a taint in front: ours moves from 1 to 2.
        server.beforeNextPatch(node -> ((ArrayNode) node.at("/spec/taints")).insert(0, json(MAINTENANCE)));
        NodeTaintRemover remover = remover(server, FAST);
        remover.onReadiness(true);
        TaintRemovalState done = awaitState(remover, state -> state.phase() == Phase.REMOVED);

        List<Request> requests = server.requests();
        assertThat(requests).extracting(Request::method).containsExactly("GET", "PATCH", "GET", "PATCH");
        assertThat(requests.get(1).json().at("/0/path").asText()).isEqualTo("/spec/taints/1");
        assertThat(requests.get(3).json()).isEqualTo(json("[{\"op\":\"test\",\"path\":\"/spec/taints/2\",\"value\":" + OURS + "},"
                + "{\"op\":\"remove\",\"path\":\"/spec/taints/2\"}]"));
        assertThat(server.node().at("/spec/taints")).as("the other controller's taint is kept").isEqualTo(json("[" + MAINTENANCE + "," + KUBELETS + "]"));
        assertThat(server.node().at("/metadata/resourceVersion").asText()).as("their change, then ours").isEqualTo("102");
        assertThat(done.failedAttempts()).as("a changed node is no error").isZero();
        assertThat(lines()).contains("DEBUG The taints of node node-1 changed since they were read (HTTP 422); reading them again")
                .noneMatch(line -> line.startsWith("WARN"));
    }

    @Test
    void aConflictIsRetriedAfterReadingTheNodeAgain()
            throws Exception
    {
        FakeApiServer server = server(OURS);
        server.answerNext("PATCH", 409, Map.of());
        NodeTaintRemover remover = remover(server, FAST);
        remover.onReadiness(true);
        awaitState(remover, state -> state.phase() == Phase.REMOVED);
        assertThat(server.requests()).extracting(Request::method).containsExactly("GET", "PATCH", "GET", "PATCH");
        assertThat(server.node().at("/spec/taints")).isEqualTo(json("[]"));
        assertThat(lines()).contains("DEBUG The taints of node node-1 changed since they were read (HTTP 409); reading them again");
    }

    @Test
    void aNodeThatKeepsChangingIsReadAgainAtOnceAFewTimesThenWithBackOff()
            throws Exception
    {
        FakeApiServer server = server(OURS);
        for (int i = 0; i < 5; i++) {
            server.answerNext("PATCH", 409, Map.of());
        }
        NodeTaintRemover remover = remover(server, FAST);
        remover.onReadiness(true);
        TaintRemovalState done = awaitState(remover, state -> state.phase() == Phase.REMOVED);

        List<Request> requests = server.requests();
        assertThat(requests).extracting(Request::method).containsExactly("GET", "PATCH", "GET", "PATCH", "GET", "PATCH", "GET", "PATCH",
                "GET", "PATCH", "GET", "PATCH");
        assertThat(gap(requests, 8)).as("after the 4th conflict in a row (3 immediate re-reads allowed)").isGreaterThanOrEqualTo(ms(100));
        assertThat(gap(requests, 10)).as("after the 5th, doubled").isGreaterThanOrEqualTo(ms(200));
        assertThat(done.failedAttempts()).isEqualTo(2);
        assertThat(lines()).filteredOn(line -> line.startsWith("WARN")).containsExactly("WARN Cannot remove taint cni-chain.io/not-ready from node "
                + "node-1 yet, retrying with back-off: PATCH /api/v1/nodes/node-1: HTTP 409, 4 times in a row: the node keeps changing between our "
                + "read and our patch, or the API server refuses the patch");
        assertThat(lines()).filteredOn(line -> line.startsWith("DEBUG")).hasSize(3);
    }

    @Test
    void aRotatedTokenIsReadForTheNextRequest()
            throws Exception
    {
        FakeApiServer server = server(OURS);
        server.acceptToken("token-2");
        NodeTaintRemover remover = remover(server, FAST);
        remover.onReadiness(true);
        server.awaitRequests(2, WAIT);
        rotateToken("token-2");
        TaintRemovalState done = awaitState(remover, state -> state.phase() == Phase.REMOVED);

        List<String> tokens = server.requests().stream().map(Request::authorization).toList();
        int firstNew = tokens.indexOf("Bearer token-2");
        assertThat(firstNew).isGreaterThanOrEqualTo(2);
        assertThat(tokens.subList(0, firstNew)).containsOnly("Bearer token-1");
        assertThat(tokens.subList(firstNew, tokens.size())).containsExactly("Bearer token-2", "Bearer token-2");
        assertThat(done.failedAttempts()).isEqualTo(firstNew);
        assertThat(lines()).filteredOn(line -> line.startsWith("WARN")).as("once, not once per attempt").containsExactly(
                "WARN Cannot remove taint cni-chain.io/not-ready from node node-1 yet, retrying with back-off: "
                        + "GET /api/v1/nodes/node-1: HTTP 401 Unauthorized (the service-account token was refused)");
    }

    @Test
    void aMissingTokenSendsNothing()
            throws Exception
    {
        Files.delete(serviceAccount.resolve("token"));
        FakeApiServer server = server(OURS);
        NodeTaintRemover remover = remover(server, FAST);
        remover.onReadiness(true);
        TaintRemovalState failing = awaitState(remover, state -> state.failedAttempts() >= 1);
        assertThat(failing.lastError()).contains(serviceAccount.resolve("token") + ": the service-account token does not exist; no request sent");
        assertThat(server.requests()).isEmpty();

        rotateToken("token-1");
        awaitState(remover, state -> state.phase() == Phase.REMOVED);
        assertThat(server.requests()).extracting(Request::method).containsExactly("GET", "PATCH");
    }

    @Test
    void aCaThatDidNotSignTheServerFailsClosedUntilTheCaFileIsFixed()
            throws Exception
    {
        Files.copy(certificates.otherCaPem(), serviceAccount.resolve("ca.crt"), StandardCopyOption.REPLACE_EXISTING);
        FakeApiServer server = server(OURS);
        NodeTaintRemover remover = remover(server, FAST);
        remover.onReadiness(true);
        TaintRemovalState failing = awaitState(remover, state -> state.failedAttempts() >= 2);
        assertThat(failing.lastError()).get().asString().startsWith("GET https://127.0.0.1:" + server.port() + "/api/v1/nodes/node-1: TLS failed, "
                + "nothing sent (the server's certificate must be signed by the CA in " + serviceAccount.resolve("ca.crt") + " and name the host): ");
        assertThat(server.requests()).as("no request reached the API server: the token never left").isEmpty();
        assertThat(lines()).filteredOn(line -> line.startsWith("WARN")).hasSize(1);

        Files.copy(certificates.caPem(), serviceAccount.resolve("ca.crt"), StandardCopyOption.REPLACE_EXISTING);
        awaitState(remover, state -> state.phase() == Phase.REMOVED);
        assertThat(server.requests()).extracting(Request::method).containsExactly("GET", "PATCH");
    }

    @Test
    void aServerCertificateForAnotherHostFailsClosed()
            throws Exception
    {
        FakeApiServer server = register(FakeApiServer.start(certificates.serverForAnotherName(), node(OURS), "token-1"));
        NodeTaintRemover remover = remover(server, FAST);
        remover.onReadiness(true);
        TaintRemovalState failing = awaitState(remover, state -> state.failedAttempts() >= 1);
        assertThat(failing.lastError()).get().asString().contains(": TLS failed, nothing sent").contains("127.0.0.1");
        assertThat(server.requests()).isEmpty();
        assertThat(server.node().at("/spec/taints")).isEqualTo(json("[" + OURS + "]"));
    }

    @Test
    void serverErrorsBackOffAndRetryAfterIsHonoured()
            throws Exception
    {
        FakeApiServer server = server(OURS);
        server.answerNext("GET", 500, Map.of());
        server.answerNext("GET", 500, Map.of());
        server.answerNext("GET", 429, Map.of("Retry-After", "1"));
        NodeTaintRemover remover = remover(server, FAST);
        remover.onReadiness(true);
        TaintRemovalState done = awaitState(remover, state -> state.phase() == Phase.REMOVED);

        List<Request> requests = server.requests();
        assertThat(requests).extracting(Request::method).containsExactly("GET", "GET", "GET", "GET", "PATCH");
        assertThat(gap(requests, 1)).as("first step").isGreaterThanOrEqualTo(ms(100));
        assertThat(gap(requests, 2)).as("doubled").isGreaterThanOrEqualTo(ms(200));
        assertThat(gap(requests, 3)).as("Retry-After: 1, longer than the longest back-off step").isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        assertThat(done.failedAttempts()).isEqualTo(3);
        assertThat(lines()).filteredOn(line -> line.startsWith("WARN")).as("once per kind of error").containsExactly(
                "WARN Cannot remove taint cni-chain.io/not-ready from node node-1 yet, retrying with back-off: "
                        + "GET /api/v1/nodes/node-1: HTTP 500 Internal error occurred: etcdserver: request timed out",
                "WARN Cannot remove taint cni-chain.io/not-ready from node node-1 yet, retrying with back-off: "
                        + "GET /api/v1/nodes/node-1: HTTP 429 Too many requests, please try again later.; Retry-After 1.0 s");
        assertThat(lines()).contains("INFO Removed taint cni-chain.io/not-ready=true:NoSchedule from node node-1; pods can be scheduled on it "
                + "(after 3 failed attempts)");
    }

    @Test
    void aSlowApiServerNeverStallsTheCaller()
            throws Exception
    {
        FakeApiServer server = server(OURS);
        CountDownLatch release = new CountDownLatch(1);
        server.holdNext("GET", release);
        // The request timeout covers the TLS handshake too, which on a cold JVM on a busy machine takes a while.
        NodeTaintRemover remover = remover(server, new RetryPolicy(ms(100), ms(400), Duration.ofSeconds(5), Duration.ofSeconds(5), ms(2000), 3));
        remover.onReadiness(true);
        server.awaitRequests(1, WAIT);

        long start = System.nanoTime();
        for (int pass = 0; pass < 10_000; pass++) {
            remover.onReadiness(pass % 1000 != 999);
        }
        remover.onReadiness(true);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("10,000 passes while the API server does not answer").isLessThan(ms(500));
        assertThat(remover.state().phase()).isEqualTo(Phase.REMOVING);

        TaintRemovalState done = awaitState(remover, state -> state.phase() == Phase.REMOVED);
        release.countDown();
        assertThat(done.failedAttempts()).isOne();
        assertThat(lines()).filteredOn(line -> line.startsWith("WARN")).containsExactly("WARN Cannot remove taint cni-chain.io/not-ready from node "
                + "node-1 yet, retrying with back-off: GET https://127.0.0.1:" + server.port() + "/api/v1/nodes/node-1: no answer within 2000 ms");
        List<Request> requests = server.requests();
        assertThat(requests.subList(requests.size() - 2, requests.size())).extracting(Request::method).containsExactly("GET", "PATCH");
    }

    @Test
    void losingReadinessBetweenReadAndPatchKeepsTheTaintUntilReadyAgain()
            throws Exception
    {
        FakeApiServer server = server(OURS);
        CountDownLatch release = new CountDownLatch(1);
        server.holdNext("GET", release);
        NodeTaintRemover remover = remover(server, FAST);
        remover.onReadiness(true);
        server.awaitRequests(1, WAIT);
        remover.onReadiness(false);
        release.countDown();
        TaintRemovalState paused = awaitState(remover, state -> state.phase() == Phase.WAITING_FOR_READINESS);
        assertThat(server.requests()).extracting(Request::method).as("read, but not patched").containsExactly("GET");
        assertThat(server.node().at("/spec/taints")).isEqualTo(json("[" + OURS + "]"));
        assertThat(paused.removedGauge()).isZero();

        long readyAgain = System.nanoTime();
        remover.onReadiness(true);
        awaitState(remover, state -> state.phase() == Phase.REMOVED);
        List<Request> requests = server.requests();
        assertThat(requests).extracting(Request::method).containsExactly("GET", "GET", "PATCH");
        assertThat(requests.get(1).receivedNanos()).isGreaterThan(readyAgain);
        assertThat(lines()).containsExactly(
                "INFO Taint cni-chain.io/not-ready stays on node node-1 until the chained plugin is in place",
                "INFO Agent ready; removing taint cni-chain.io/not-ready from node node-1",
                "INFO Agent not ready any more; taint cni-chain.io/not-ready stays on node node-1 until it is",
                "INFO Agent ready; removing taint cni-chain.io/not-ready from node node-1",
                "INFO Removed taint cni-chain.io/not-ready=true:NoSchedule from node node-1; pods can be scheduled on it");
    }

    @Test
    void aNodeWithoutTheTaintIsLeftAlone()
            throws Exception
    {
        FakeApiServer server = server(KUBELETS);
        NodeTaintRemover remover = remover(server, FAST);
        remover.onReadiness(true);
        TaintRemovalState done = awaitState(remover, state -> state.phase() == Phase.ABSENT);
        assertThat(done.removedGauge()).isOne();
        assertThat(done.describe()).isEqualTo("node taint cni-chain.io/not-ready on node-1: not present, nothing to remove");
        assertThat(server.requests()).extracting(Request::method).containsExactly("GET");
        assertThat(server.node().at("/metadata/resourceVersion").asText()).isEqualTo("100");
        assertThat(lines()).containsOnlyOnce("INFO Node node-1 has no taint cni-chain.io/not-ready (already removed, or registered without it); nothing to do");

        awaitWorkerEnd();
        remover.onReadiness(false);
        remover.onReadiness(true);
        assertThat(workerAlive()).isFalse();
        assertThat(server.requests()).hasSize(1);
    }

    @Test
    void forbiddenIsReportedAndCloseEndsABackOffAtOnce()
            throws Exception
    {
        FakeApiServer server = server(OURS);
        server.answerNext("GET", 403, Map.of());
        NodeTaintRemover remover = remover(server, new RetryPolicy(Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofMinutes(5),
                Duration.ofSeconds(5), Duration.ofSeconds(5), 3));
        remover.onReadiness(true);
        TaintRemovalState failing = awaitState(remover, state -> state.failedAttempts() == 1);
        String error = "GET /api/v1/nodes/node-1: HTTP 403 nodes \"node-1\" is forbidden: User \"system:serviceaccount:linkerd-cni:linkerd-cni\" "
                + "cannot get resource \"nodes\" in API group \"\" at the cluster scope (the agent's ClusterRole must allow get and patch on nodes)";
        assertThat(failing.lastError()).contains(error);
        assertThat(failing.describe()).isEqualTo("node taint cni-chain.io/not-ready on node-1: removing (1 failed attempt; last: " + error + ")");
        assertThat(failing.removedGauge()).isZero();

        long start = System.nanoTime();
        remover.close();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("a 30 s back-off step cut short").isLessThan(Duration.ofSeconds(1));
        assertThat(workerAlive()).isFalse();
        remover.onReadiness(false);
        remover.onReadiness(true);
        assertThat(workerAlive()).as("closed: nothing starts again").isFalse();
        assertThat(server.requests()).hasSize(1);
        assertThat(server.node().at("/spec/taints")).isEqualTo(json("[" + OURS + "]"));
    }

    @Test
    void closeInterruptsTheCallInFlightAndLogsNothing()
            throws Exception
    {
        FakeApiServer server = server(OURS);
        CountDownLatch release = new CountDownLatch(1);
        server.holdNext("GET", release);
        NodeTaintRemover remover = remover(server, FAST);
        remover.onReadiness(true);
        server.awaitRequests(1, WAIT);

        long start = System.nanoTime();
        remover.close();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(workerAlive()).isFalse();
        release.countDown();
        assertThat(server.requests()).extracting(Request::method).containsExactly("GET");
        assertThat(server.node().at("/spec/taints")).isEqualTo(json("[" + OURS + "]"));
        assertThat(remover.state().phase()).isEqualTo(Phase.REMOVING);
        assertThat(lines()).containsExactly(
                "INFO Taint cni-chain.io/not-ready stays on node node-1 until the chained plugin is in place",
                "INFO Agent ready; removing taint cni-chain.io/not-ready from node node-1");
    }

    private FakeApiServer server(String... taints)
            throws Exception
    {
        return register(FakeApiServer.start(certificates.server(), node(taints), "token-1"));
    }

    private static ObjectNode node(String... taints)
    {
        return (ObjectNode) json("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-1\",\"resourceVersion\":\"100\","
                + "\"labels\":{\"kubernetes.io/hostname\":\"node-1\"}},\"spec\":{\"podCIDR\":\"10.244.1.0/24\",\"taints\":[" + String.join(",", taints)
                + "]},\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
    }

    /** As the agent makes it. */
    private NodeTaintRemover remover(FakeApiServer server, RetryPolicy policy)
    {
        return register(new NodeTaintRemover(new NodeTaintSettings(true, KEY, Optional.of(NODE)), api(server), policy));
    }

    private ApiServerSettings api(FakeApiServer server)
    {
        return new ApiServerSettings(serviceAccount, Optional.empty(), false, "https", Optional.of("127.0.0.1"), Optional.of(server.port()));
    }

    private <T extends AutoCloseable> T register(T closeable)
    {
        toClose.add(closeable);
        return closeable;
    }

    /** As the kubelet rotates a projected token: a new directory, then the {@code ..data} link swapped atomically. */
    private void rotateToken(String token)
            throws Exception
    {
        Path version = Files.createTempDirectory(serviceAccount, "..version");
        Files.writeString(version.resolve("token"), token + "\n");
        Path link = serviceAccount.resolve("..data_tmp");
        Files.createSymbolicLink(link, version.getFileName());
        Files.move(link, serviceAccount.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (!Files.isSymbolicLink(serviceAccount.resolve("token"))) {
            Files.createSymbolicLink(serviceAccount.resolve("token"), Path.of("..data/token"));
        }
    }

    private static TaintRemovalState awaitState(NodeTaintRemover remover, Predicate<TaintRemovalState> condition)
    {
        return Await.value(WAIT, () -> {
            TaintRemovalState state = remover.state();
            if (condition.test(state)) {
                return Optional.of(state);
            }
            if (state.finished()) {
                throw new AssertionError("the remover finished elsewhere: " + state + "\n" + String.join("\n", lines()));
            }
            return Optional.empty();
        }, () -> "the remover did not get there: " + remover.state() + "\n" + String.join("\n", lines()));
    }

    private static boolean workerAlive()
    {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(thread -> thread.getName().equals(NodeTaintRemover.THREAD_NAME) && thread.isAlive());
    }

    private static void awaitWorkerEnd()
            throws InterruptedException
    {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals(NodeTaintRemover.THREAD_NAME)) {
                thread.join(WAIT.toMillis());
            }
        }
        assertThat(workerAlive()).isFalse();
    }

    private static Duration gap(List<Request> requests, int index)
    {
        return Duration.ofNanos(requests.get(index).receivedNanos() - requests.get(index - 1).receivedNanos());
    }

    private static List<String> lines()
    {
        return CapturedLog.lines().stream().filter(line -> line.contains("node-1")).toList();
    }

    private static JsonNode json(String text)
    {
        return CniJson.parse(text.getBytes(StandardCharsets.UTF_8));
    }

    private static Duration ms(long millis)
    {
        return Duration.ofMillis(millis);
    }
}
