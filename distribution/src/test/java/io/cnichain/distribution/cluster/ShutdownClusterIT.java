package io.cnichain.distribution.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.testkit.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a stop that is not an uninstall must keep, on the real API server: the DaemonSet deleted with
 * {@code --cascade=orphan} and created again (how its immutable selector is changed; what a GitOps replace does), whose
 * controller adopts the running pod; another DaemonSet of the namespace deleted; then a rolling update, whose SIGTERM
 * must leave the entry in place. The node's list is sampled throughout: our entry is never gone, and every pod created
 * meanwhile is meshed.
 */
@RealCluster
class ShutdownClusterIT
{
    @Test
    void anOrphanedAndReappliedDaemonSetsRollingUpdateKeepsTheEntry(Cluster cluster, ChartRelease release)
            throws Exception
    {
        release.install(cluster.nodeValues());
        cluster.awaitRollout(ChartRelease.NAMESPACE, "cni-chain");
        AtomicInteger samples = new AtomicInteger();
        AtomicInteger withoutEntry = new AtomicInteger();
        AtomicReference<Boolean> sampling = new AtomicReference<>(true);
        Thread sampler = new Thread(() -> {
            while (sampling.get()) {
                samples.incrementAndGet();
                try {
                    if (!cluster.primaryChain().contains(Cluster.PLUGIN)) {
                        withoutEntry.incrementAndGet();
                    }
                }
                catch (RuntimeException e) {
                    // a rename under the read: the next sample
                }
                Await.pauseMicros(20_000);
            }
        }, "entry-sampler");
        sampler.start();

        PodStream.Report report;
        try (PodStream pods = PodStream.start(cluster, "mesh-shutdown", Duration.ofSeconds(2), "installed")) {
            pods.step("orphaned and created again");
            JsonNode daemonSet = cluster.kubectl().json("-n", ChartRelease.NAMESPACE, "get", "daemonset", "cni-chain");
            String oldUid = daemonSet.path("metadata").path("uid").asText();
            cluster.kubectl().ok("-n", ChartRelease.NAMESPACE, "delete", "daemonset", "cni-chain", "--cascade=orphan", "--wait=true");
            cluster.kubectl().apply(fresh(daemonSet)).ok();
            String newUid = cluster.kubectl().json("-n", ChartRelease.NAMESPACE, "get", "daemonset", "cni-chain").path("metadata").path("uid").asText();
            assertThat(newUid).isNotEqualTo(oldUid);
            String pod = cluster.pods(ChartRelease.NAMESPACE, "app.kubernetes.io/name=cni-chain").get(0);
            Await.until(Duration.ofSeconds(60), () -> owner(cluster, pod).equals(Optional.of(newUid)),
                    () -> "pod " + pod + " was not adopted by the new DaemonSet: " + owner(cluster, pod));

            pods.step("another DaemonSet deleted");
            cluster.kubectl().apply("""
                    apiVersion: apps/v1
                    kind: DaemonSet
                    metadata: {name: cluster-suite-decoy, namespace: cni-chain}
                    spec:
                      selector: {matchLabels: {app: cluster-suite-decoy}}
                      template:
                        metadata: {labels: {app: cluster-suite-decoy}}
                        spec:
                          nodeSelector: {cluster-suite/none: none}
                          containers: [{name: pause, image: %s, imagePullPolicy: Never}]
                    """.formatted(cluster.kit().pauseImage())).ok();
            cluster.kubectl().ok("-n", ChartRelease.NAMESPACE, "delete", "daemonset", "cluster-suite-decoy", "--wait=true");

            pods.step("rolling update");
            cluster.kubectl().ok("-n", ChartRelease.NAMESPACE, "rollout", "restart", "daemonset/cni-chain");
            cluster.awaitRollout(ChartRelease.NAMESPACE, "cni-chain");
            assertThat(cluster.pods(ChartRelease.NAMESPACE, "app.kubernetes.io/name=cni-chain")).doesNotContain(pod);
            int rolled = pods.count();
            Await.until(Duration.ofSeconds(30), () -> pods.count() >= rolled + 2, () -> "no pods created");
            report = pods.finish();
        }
        finally {
            sampling.set(false);
            sampler.join();
        }
        Say.step("pods through an orphaned and re-created DaemonSet's rolling update:\n" + report.table());
        Say.step("the list sampled " + samples.get() + " times, " + withoutEntry.get() + " without our entry");
        assertThat(withoutEntry.get()).as("samples of the list containerd loads without our entry").isZero();
        assertThat(report.failures()).isEmpty();
        assertThat(report.unmeshed()).isEmpty();
        assertThat(cluster.kit().binDir().resolve(Cluster.PLUGIN)).exists();

        release.uninstall();
        cluster.awaitClean(Duration.ofSeconds(60));
    }

    /** The object as a user would apply it again: without what the API server set. */
    private static String fresh(JsonNode daemonSet)
    {
        ObjectNode copy = daemonSet.deepCopy();
        ObjectNode metadata = (ObjectNode) copy.path("metadata");
        metadata.remove(List.of("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "annotations"));
        copy.remove("status");
        return copy.toString();
    }

    private static Optional<String> owner(Cluster cluster, String pod)
    {
        for (JsonNode reference : cluster.kubectl().json("-n", ChartRelease.NAMESPACE, "get", "pod", pod).path("metadata").path("ownerReferences")) {
            if (reference.path("controller").asBoolean(false)) {
                return Optional.of(reference.path("uid").asText());
            }
        }
        return Optional.empty();
    }
}
