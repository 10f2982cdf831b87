package io.cnichain.agent.shutdown;

import io.cnichain.core.config.CleanupMode;
import io.cnichain.agent.shutdown.ShutdownDecision.Reason;
import io.cnichain.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The decision at SIGTERM when an uninstall has taken the credentials away: what the watch saw while the agent ran,
 * then a fresh look, against the stand-in API server (which keeps a watch open once started, as the real one does,
 * and refuses new requests with 401 or 403 once the ServiceAccount or the RBAC is gone).
 */
class DaemonSetWatchTest
{
    private static final Duration BUDGET = Duration.ofSeconds(2);
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;
    private StandInCluster cluster;
    private DaemonSetWatch watch;

    @BeforeEach
    void start()
            throws Exception
    {
        cluster = StandInCluster.start(dir.resolve("serviceaccount"));
        watch = new DaemonSetWatch(ShutdownDecider.client(cluster.apiServer(), BUDGET), StandInCluster.pod()).start();
        Await.until(WAIT, watch::watching, () -> "the watch never started: " + cluster.server().requests());
    }

    @AfterEach
    void stop()
    {
        watch.close();
        cluster.close();
    }

    @Test
    void helmsOrderDaemonSetFirstThenTheCredentials()
    {
        cluster.deleteDaemonSet();
        Await.until(WAIT, () -> watch.uninstallSeen().isPresent(), () -> "the deletion was not seen");
        cluster.deleteRbac();
        cluster.deleteServiceAccount();

        ShutdownDecision decision = decide();
        assertThat(decision.cleanUp()).isTrue();
        assertThat(decision.reason()).isEqualTo(Reason.DAEMONSET_GONE);
        assertThat(decision.detail()).isEqualTo("DaemonSet cni-chain/cni-chain was deleted: an uninstall");
    }

    @Test
    void kubectlsOrderCredentialsFirstTheDaemonSetStillSeenOnTheOpenWatch()
    {
        cluster.kubectlDeleteK();
        Await.until(WAIT, () -> watch.uninstallSeen().isPresent(), () -> "the deletion was not seen");
        assertThat(decide().reason()).isEqualTo(Reason.DAEMONSET_GONE);
    }

    @Test
    void kubectlsOrderCredentialsGoneAndTheDaemonSetNotYetAtTheStop()
    {
        cluster.deleteServiceAccount();
        cluster.deleteRbac();
        ShutdownDecision decision = decide();
        assertThat(decision.cleanUp()).isTrue();
        assertThat(decision.reason()).isEqualTo(Reason.CREDENTIALS_REVOKED);
    }

    @Test
    void aForegroundDeletionIsSeenByItsDeletionTimestamp()
    {
        cluster.changeDaemonSet(ds -> ((com.fasterxml.jackson.databind.node.ObjectNode) ds.path("metadata")).put("deletionTimestamp", "2026-12-03T07:00:00Z"));
        Await.until(WAIT, () -> watch.uninstallSeen().isPresent(), () -> "the deletion was not seen");
        assertThat(decide().reason()).isEqualTo(Reason.DAEMONSET_DELETING);
    }

    @Test
    void aRollingUpdateIsSeenAndKept()
    {
        cluster.changeDaemonSet(ds -> ((com.fasterxml.jackson.databind.node.ObjectNode) ds.path("spec").path("template").path("spec"))
                .put("priorityClassName", "system-node-critical"));
        Await.until(WAIT, () -> cluster.server().requests().size() >= 3 && watch.watching(), () -> "no watch");
        assertThat(watch.uninstallSeen()).isEmpty();
        ShutdownDecision decision = decide();
        assertThat(decision.cleanUp()).isFalse();
        assertThat(decision.reason()).isEqualTo(Reason.STILL_PLACED);
    }

    @Test
    void aNodeShuttingDownWithTheApiServerOutOfReachKeeps()
    {
        cluster.close();
        ShutdownDecision decision = decide();
        assertThat(decision.cleanUp()).isFalse();
        assertThat(decision.reason()).isEqualTo(Reason.API_UNAVAILABLE);
        assertThat(watch.uninstallSeen()).isEmpty();
    }

    private ShutdownDecision decide()
    {
        return new ShutdownDecider(CleanupMode.AUTO, Optional.of(StandInCluster.pod()), cluster.apiServer(), BUDGET).decide(watch.uninstallSeen());
    }
}
