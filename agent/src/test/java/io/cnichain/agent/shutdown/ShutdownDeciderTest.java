package io.cnichain.agent.shutdown;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.config.ApiServerSettings;
import io.cnichain.core.config.CleanupMode;
import io.cnichain.agent.shutdown.ShutdownDecision.Reason;
import io.cnichain.agent.time.Clock;
import io.cnichain.agent.time.ManualClock;
import io.cnichain.agent.kube.FakeApiServer;
import io.cnichain.agent.kube.TestCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The decision on SIGTERM, against the stand-in API server over real HTTPS (no real API server can run here): each case
 * of the table, the API's failures, and the bound on the time it takes.
 */
class ShutdownDeciderTest
{
    private static final Duration BUDGET = Duration.ofSeconds(2);

    @TempDir
    Path dir;
    private StandInCluster cluster;

    @BeforeEach
    void start()
            throws Exception
    {
        cluster = StandInCluster.start(dir.resolve("serviceaccount"));
    }

    @AfterEach
    void stop()
    {
        cluster.close();
    }

    @Test
    void keepsWhileTheDaemonSetStillPlacesAPodHere()
    {
        ShutdownDecision decision = decide();
        assertThat(decision.cleanUp()).isFalse();
        assertThat(decision.reason()).isEqualTo(Reason.STILL_PLACED);
        assertThat(decision.detail()).isEqualTo("DaemonSet cni-chain/cni-chain exists and still places a pod on node node-1: an update, a restart "
                + "or a node shutdown, not an uninstall");
        assertThat(cluster.server().requests()).extracting(FakeApiServer.Request::method, FakeApiServer.Request::path).containsExactly(
                org.assertj.core.groups.Tuple.tuple("GET", StandInCluster.POD_PATH),
                org.assertj.core.groups.Tuple.tuple("GET", StandInCluster.DAEMON_SET_PATH),
                org.assertj.core.groups.Tuple.tuple("GET", StandInCluster.NODE_PATH));
        assertThat(cluster.server().requests()).allSatisfy(r -> assertThat(r.authorization()).isEqualTo("Bearer stand-in-token"));
    }

    @Test
    void keepsOnADrainedNodeGoingDown()
    {
        cluster.server().changeNode(node -> {
            ((ObjectNode) node.path("spec")).put("unschedulable", true);
            ArrayNode taints = ((ObjectNode) node.path("spec")).putArray("taints");
            taints.addObject().put("key", "node.kubernetes.io/unschedulable").put("effect", "NoSchedule");
            taints.addObject().put("key", "node.kubernetes.io/not-ready").put("effect", "NoExecute");
        });
        cluster.changeDaemonSet(ds -> ((ObjectNode) ds.at("/spec/template/spec")).remove("tolerations"));
        assertThat(decide().reason()).isEqualTo(Reason.STILL_PLACED);
    }

    @Test
    void cleansUpWhenTheDaemonSetIsGone()
    {
        cluster.deleteDaemonSet();
        ShutdownDecision decision = decide();
        assertThat(decision.cleanUp()).isTrue();
        assertThat(decision.reason()).isEqualTo(Reason.DAEMONSET_GONE);
        assertThat(decision.detail()).isEqualTo("DaemonSet cni-chain/cni-chain is gone: an uninstall");
        assertThat(cluster.server().requests()).hasSize(2);
    }

    @Test
    void cleansUpWhenTheDaemonSetIsBeingDeleted()
    {
        cluster.changeDaemonSet(ds -> ((ObjectNode) ds.path("metadata")).put("deletionTimestamp", "2026-12-02T01:00:00Z"));
        ShutdownDecision decision = decide();
        assertThat(decision.reason()).isEqualTo(Reason.DAEMONSET_DELETING);
        assertThat(decision.detail()).contains("is being deleted (deletionTimestamp 2026-12-02T01:00:00Z)");
        assertThat(decision.cleanUp()).isTrue();
    }

    @Test
    void cleansUpWhenADaemonSetOfTheSameNameIsAnotherOne()
    {
        cluster.changeDaemonSet(ds -> ((ObjectNode) ds.path("metadata")).put("uid", "0b7c0000-0000-4000-8000-000000000000"));
        ShutdownDecision decision = decide();
        assertThat(decision.reason()).isEqualTo(Reason.DAEMONSET_REPLACED);
        assertThat(decision.cleanUp()).isTrue();
    }

    /**
     * Once recorded as an uninstall by the watch the agent had, then removed at the new DaemonSet's first rolling
     * update: the decision looks at the present, in which the pod belongs to the DaemonSet that runs.
     */
    @Test
    void keepsWhenTheDaemonSetWasOrphanedAndAppliedAgain()
    {
        cluster.orphanAndReapply("0b7c0000-0000-4000-8000-00000000a0a0");
        ShutdownDecision decision = decide();
        assertThat(decision.reason()).isEqualTo(Reason.STILL_PLACED);
        assertThat(decision.cleanUp()).isFalse();
    }

    @Test
    void cleansUpWhenTheDaemonSetNoLongerSelectsThisNode()
    {
        cluster.changeDaemonSet(ds -> ((ObjectNode) ds.at("/spec/template/spec/nodeSelector")).put("pool", "mesh"));
        ShutdownDecision decision = decide();
        assertThat(decision.reason()).isEqualTo(Reason.NOT_PLACED);
        assertThat(decision.detail()).isEqualTo("DaemonSet cni-chain/cni-chain no longer places a pod on node node-1: its nodeSelector pool=mesh "
                + "does not match node node-1, which has no such label");
        assertThat(decision.cleanUp()).isTrue();
    }

    @Test
    void cleansUpWhenTheNodeIsTaintedAgainstIt()
    {
        cluster.changeDaemonSet(ds -> ((ObjectNode) ds.at("/spec/template/spec")).remove("tolerations"));
        cluster.server().changeNode(node -> ((ObjectNode) node.path("spec")).putArray("taints").addObject()
                .put("key", "mesh").put("value", "off").put("effect", "NoExecute"));
        ShutdownDecision decision = decide();
        assertThat(decision.reason()).isEqualTo(Reason.NOT_PLACED);
        assertThat(decision.detail()).endsWith("node node-1 has the taint mesh=off:NoExecute, which its tolerations do not tolerate");
    }

    /**
     * A container restart (a failed liveness probe): the same pod, not being deleted, on a node an operator tainted
     * {@code NoSchedule} after it was placed. The DaemonSet controller lets it run on, and the kubelet starts it again.
     */
    @Test
    void keepsOnARestartUnderANoScheduleTaintThatOnlyKeepsNewPodsAway()
    {
        narrowTolerationsAndTaintForMaintenance();
        ShutdownDecision decision = decide();
        assertThat(decision.reason()).as(decision.detail()).isEqualTo(Reason.STILL_PLACED);
        assertThat(decision.cleanUp()).isFalse();
    }

    /** A rolling update deletes the pod: under the same taint the controller makes no new one, so nothing starts the agent again. */
    @Test
    void cleansUpWhenThePodIsDeletedUnderANoScheduleTaintThatKeepsItsSuccessorAway()
    {
        narrowTolerationsAndTaintForMaintenance();
        ObjectNode pod = (ObjectNode) cluster.server().get(StandInCluster.POD_PATH).orElseThrow();
        ((ObjectNode) pod.path("metadata")).put("deletionTimestamp", "2026-12-06T21:00:00Z");
        cluster.server().put(StandInCluster.POD_PATH, pod);
        ShutdownDecision decision = decide();
        assertThat(decision.reason()).isEqualTo(Reason.NOT_PLACED);
        assertThat(decision.detail()).endsWith("node node-1 has the taint maintenance=true:NoSchedule, which its tolerations do not tolerate");
    }

    private void narrowTolerationsAndTaintForMaintenance()
    {
        cluster.changeDaemonSet(ds -> ((ObjectNode) ds.at("/spec/template/spec")).putArray("tolerations").addObject()
                .put("key", "dedicated").put("operator", "Equal").put("value", "mesh").put("effect", "NoSchedule"));
        cluster.server().changeNode(node -> ((ObjectNode) node.path("spec")).putArray("taints").addObject()
                .put("key", "maintenance").put("value", "true").put("effect", "NoSchedule"));
    }

    @Test
    void cleansUpWhenTheNodeIsGone()
    {
        cluster.server().removeNode();
        assertThat(decide().reason()).isEqualTo(Reason.NODE_GONE);
    }

    @Test
    void cleansUpWhenThePodHasNoDaemonSet()
    {
        cluster.server().put(StandInCluster.POD_PATH, StandInCluster.json("{\"metadata\":{\"name\":\"" + StandInCluster.POD + "\"}}"));
        ShutdownDecision decision = decide();
        assertThat(decision.reason()).isEqualTo(Reason.NO_DAEMONSET);
        assertThat(decision.cleanUp()).isTrue();

        // Run by a Deployment whose ReplicaSet has the DaemonSet's name: that DaemonSet did not make the pod.
        cluster.server().put(StandInCluster.POD_PATH, StandInCluster.json("{\"metadata\":{\"name\":\"" + StandInCluster.POD + "\",\"ownerReferences\":["
                + "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"" + StandInCluster.DAEMON_SET + "\",\"uid\":\"" + StandInCluster.UID
                + "\",\"controller\":true}]}}"));
        assertThat(decide().reason()).isEqualTo(Reason.NO_DAEMONSET);
    }

    @Test
    void cleansUpWhenTheCredentialsAreRefusedAndKeepsOnOtherErrors()
    {
        cluster.server().answerNextAt(StandInCluster.DAEMON_SET_PATH, 403);
        ShutdownDecision forbidden = decide();
        assertThat(forbidden.cleanUp()).isTrue();
        assertThat(forbidden.reason()).isEqualTo(Reason.CREDENTIALS_REVOKED);
        assertThat(forbidden.detail()).startsWith("GET " + StandInCluster.DAEMON_SET_PATH + ": HTTP 403")
                .contains("(the agent's Role must allow get on daemonsets in namespace cni-chain)")
                .endsWith(": the agent's credentials are refused, as when an uninstall deletes its ServiceAccount and RBAC");

        // A failing server is asked again within the budget (0.8 to 1.2 s, then 1.6 to 2.4 s): a 500 that lasts is no answer.
        cluster.server().answerNextAt(StandInCluster.NODE_PATH, 500);
        cluster.server().answerNextAt(StandInCluster.NODE_PATH, 500);
        ShutdownDecision failing = decide();
        assertThat(failing.cleanUp()).isFalse();
        assertThat(failing.reason()).isEqualTo(Reason.API_ERROR);
        assertThat(failing.detail()).contains("HTTP 500 Internal error occurred: etcdserver: request timed out");

        cluster.server().remove(StandInCluster.POD_PATH);
        ShutdownDecision noPod = decide();
        assertThat(noPod.reason()).isEqualTo(Reason.API_ERROR);
        assertThat(noPod.detail()).contains("the agent's own pod is not found");
    }

    @Test
    void cleansUpWhenTheServiceAccountOrTheRbacIsGone()
    {
        cluster.deleteRbac();
        ShutdownDecision forbidden = decide();
        assertThat(forbidden.cleanUp()).isTrue();
        assertThat(forbidden.reason()).isEqualTo(Reason.CREDENTIALS_REVOKED);
        assertThat(forbidden.detail()).contains("HTTP 403 pods \"cni-chain-x7k2p\" is forbidden: User \"system:serviceaccount:cni-chain:cni-chain\" "
                + "cannot get resource \"pods\" in API group \"\" in the namespace \"cni-chain\"");

        cluster.deleteServiceAccount();
        ShutdownDecision unauthorized = decide();
        assertThat(unauthorized.cleanUp()).isTrue();
        assertThat(unauthorized.reason()).isEqualTo(Reason.CREDENTIALS_REVOKED);
        assertThat(unauthorized.detail()).contains("HTTP 401 Unauthorized (the service-account token was refused)");
    }

    @Test
    void asksABusyOrFailingServerAgainWithinTheBudget()
    {
        cluster.server().answerNext("GET", 429, java.util.Map.of("Retry-After", "1"));
        cluster.server().answerNextAt(StandInCluster.DAEMON_SET_PATH, 503);
        // Waits of 1 s (as asked) and 0.8 to 1.2 s: within 5 s.
        ShutdownDecision decision = decide(Duration.ofSeconds(5));
        assertThat(decision.reason()).as(decision.detail()).isEqualTo(Reason.STILL_PLACED);
        assertThat(cluster.server().requests()).extracting(FakeApiServer.Request::path)
                .containsExactly(StandInCluster.POD_PATH, StandInCluster.POD_PATH, StandInCluster.DAEMON_SET_PATH, StandInCluster.DAEMON_SET_PATH,
                        StandInCluster.NODE_PATH);
    }

    @Test
    void keepsWithinTheBudgetWhenTheApiServerHangs()
    {
        CountDownLatch never = new CountDownLatch(1);
        cluster.server().holdAll(never);
        long start = System.nanoTime();
        ShutdownDecision decision = decide();
        long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
        never.countDown();
        assertThat(decision.cleanUp()).isFalse();
        assertThat(decision.reason()).isEqualTo(Reason.API_UNAVAILABLE);
        assertThat(decision.detail()).isEqualTo("the API server did not answer within 2000 ms (GET " + StandInCluster.POD_PATH + ")");
        assertThat(elapsedMillis).as("bounded by the budget").isBetween(BUDGET.toMillis() - 100, BUDGET.toMillis() + 1500);
    }

    @Test
    void asksNothingMoreOnceTheBudgetIsSpent()
            throws Exception
    {
        // The pod's answer comes as the budget ends: the DaemonSet is not asked, whatever time a call would have had.
        ManualClock clock = new ManualClock();
        CountDownLatch release = new CountDownLatch(1);
        cluster.server().holdNext("GET", release);
        var decision = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> new ShutdownDecider(CleanupMode.AUTO, Optional.of(StandInCluster.pod()), cluster.apiServer(), BUDGET, clock).decide());
        cluster.server().awaitRequests(1, Duration.ofSeconds(10));
        clock.advance(BUDGET);
        release.countDown();
        assertThat(decision.get(10, java.util.concurrent.TimeUnit.SECONDS)).extracting(ShutdownDecision::reason, ShutdownDecision::detail)
                .containsExactly(Reason.API_UNAVAILABLE, "the API server did not answer within 2000 ms (GET " + StandInCluster.DAEMON_SET_PATH + ")");
        assertThat(cluster.server().requests()).extracting(FakeApiServer.Request::path).containsExactly(StandInCluster.POD_PATH);
    }

    @Test
    void takesHalfTheShutdownTimeoutAtMost()
    {
        CountDownLatch never = new CountDownLatch(1);
        cluster.server().holdAll(never);
        ApiServerSettings api = cluster.apiServer();
        var config = io.cnichain.core.config.ConfigLoader.load(Optional.empty(),
                java.util.Map.of("KUBERNETES_SERVICE_HOST", api.host().orElseThrow(), "KUBERNETES_SERVICE_PORT", api.port().orElseThrow(), "POD_NAME",
                        StandInCluster.POD, "POD_NAMESPACE", StandInCluster.NAMESPACE, "NODE_NAME", StandInCluster.NODE),
                java.util.Map.of("--service-account-dir", api.serviceAccountDir().toString(), "--shutdown-timeout", "3"));
        ShutdownDecision decision = ShutdownDecider.fromConfig(config, Clock.SYSTEM).decide();
        never.countDown();
        assertThat(decision.detail()).isEqualTo("the API server did not answer within 1500 ms (GET " + StandInCluster.POD_PATH + ")");
    }

    @Test
    void keepsAndSendsNoTokenToAServerTheCaDidNotSign()
            throws Exception
    {
        Files.copy(TestCertificates.shared().otherCaPem(), dir.resolve("serviceaccount/ca.crt"), StandardCopyOption.REPLACE_EXISTING);
        ShutdownDecision decision = decide();
        assertThat(decision.reason()).as("an answer from a server not trusted says nothing of an uninstall").isEqualTo(Reason.API_ERROR);
        assertThat(decision.detail()).contains("TLS failed, nothing sent");
        assertThat(cluster.server().requests()).isEmpty();
    }

    @Test
    void keepsWhenNothingListens()
            throws IOException
    {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        ApiServerSettings api = cluster.apiServer();
        ApiServerSettings closed = new ApiServerSettings(api.serviceAccountDir(), api.caFile(), false, "https", api.host(), Optional.of(Integer.toString(port)));
        ShutdownDecision decision = new ShutdownDecider(CleanupMode.AUTO, Optional.of(StandInCluster.pod()), closed, BUDGET, Clock.SYSTEM).decide();
        assertThat(decision.reason()).isEqualTo(Reason.API_UNAVAILABLE);
        assertThat(decision.detail()).contains("cannot connect");
    }

    @Test
    void alwaysNeverAndOutsideAClusterAskNothing()
    {
        ApiServerSettings api = cluster.apiServer();
        assertThat(new ShutdownDecider(CleanupMode.ALWAYS, Optional.of(StandInCluster.pod()), api, BUDGET, Clock.SYSTEM).decide())
                .isEqualTo(new ShutdownDecision(true, Reason.ALWAYS, "cleanupOnShutdown is always"));
        assertThat(new ShutdownDecider(CleanupMode.NEVER, Optional.of(StandInCluster.pod()), api, BUDGET, Clock.SYSTEM).decide().cleanUp()).isFalse();
        ShutdownDecision outside = new ShutdownDecider(CleanupMode.AUTO, Optional.empty(), api, BUDGET, Clock.SYSTEM).decide();
        assertThat(outside.cleanUp()).isTrue();
        assertThat(outside.reason()).isEqualTo(Reason.OUTSIDE_CLUSTER);
        assertThat(outside.detail()).endsWith("; not set: POD_NAME, POD_NAMESPACE or NODE_NAME)");
        ApiServerSettings noHost = new ApiServerSettings(api.serviceAccountDir(), api.caFile(), false, "https", Optional.empty(), Optional.empty());
        assertThat(new ShutdownDecider(CleanupMode.AUTO, Optional.of(StandInCluster.pod()), noHost, BUDGET, Clock.SYSTEM).decide().detail())
                .endsWith("; not set: KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT)");
        assertThat(cluster.server().requests()).isEmpty();
    }

    @Test
    void keepsWithoutSendingTheTokenOverHttp()
    {
        ApiServerSettings api = cluster.apiServer();
        ApiServerSettings http = new ApiServerSettings(api.serviceAccountDir(), api.caFile(), false, "http", api.host(), api.port());
        ShutdownDecision decision = new ShutdownDecider(CleanupMode.AUTO, Optional.of(StandInCluster.pod()), http, BUDGET, Clock.SYSTEM).decide();
        assertThat(decision.cleanUp()).isFalse();
        assertThat(decision.detail()).contains("KUBERNETES_SERVICE_PROTOCOL is http");
        assertThat(cluster.server().requests()).isEmpty();
    }

    private ShutdownDecision decide()
    {
        return decide(BUDGET);
    }

    private ShutdownDecision decide(Duration budget)
    {
        return new ShutdownDecider(CleanupMode.AUTO, Optional.of(StandInCluster.pod()), cluster.apiServer(), budget, Clock.SYSTEM).decide();
    }
}
