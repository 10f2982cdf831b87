package io.cnichain.distribution.cluster;

import io.cnichain.testkit.Await;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code placement: auto} on the kit's containerd 2.1 (libcni 1.3): the agent reads its Node's runtime version and
 * places the entry as a drop-in, {@code <conf dir>/<network>/linkerd-cni.conf}, leaving the primary's bytes as they are;
 * containerd runs it for every pod, also while the primary rewrites its own file (in place and by rename, as Calico and
 * Cilium do), with nothing to re-patch.
 */
@RealCluster
class DropInClusterIT
{
    @Test
    void autoPlacesADropInThatContainerdRunsThroughTheprimarysRewrites(Cluster cluster, ChartRelease release)
            throws IOException
    {
        Map<String, Object> values = cluster.nodeValues();
        values.put("cniChain.placement", "auto");
        release.install(values);
        cluster.awaitRollout(ChartRelease.NAMESPACE, "cni-chain");

        String network = cluster.primary().path("name").asText();
        Path dropIn = cluster.kit().confDir().resolve(network).resolve(Cluster.PLUGIN + ".conf");
        assertThat(dropIn).as("the drop-in").isRegularFile();
        assertThat(cluster.primaryUntouched()).as("the primary's bytes").isTrue();
        String agent = cluster.pods(ChartRelease.NAMESPACE, "app.kubernetes.io/name=cni-chain").get(0);
        assertThat(cluster.agentLog(ChartRelease.NAMESPACE, agent)).as("why").contains("containerd://2.1");

        PodStream.Report report;
        try (PodStream pods = PodStream.start(cluster, "mesh-dropin", Duration.ofSeconds(2), "drop-in in place")) {
            Await.until(Duration.ofSeconds(30), () -> pods.count() >= 2, () -> "no pods created");
            pods.step("10 rewrites of the primary");
            byte[] own = Files.readAllBytes(cluster.kit().pristinePrimary());
            for (int rewrite = 0; rewrite < 10; rewrite++) {
                rewrite(cluster.kit().primary(), own, rewrite % 2 == 0);
                Await.pauseMicros(1_500_000);
            }
            assertThat(dropIn).isRegularFile();
            assertThat(cluster.primaryUntouched()).as("nothing patched the primary").isTrue();
            pods.step("after");
            int before = pods.count();
            Await.until(Duration.ofSeconds(30), () -> pods.count() >= before + 2, () -> "no pods created");
            report = pods.finish();
        }
        Say.step("pods through 10 rewrites of the primary, with the entry as a drop-in:\n" + report.table());
        assertThat(report.failures()).isEmpty();
        assertThat(report.unmeshed()).as("pods whose sandbox did not run linkerd-cni to its end").isEmpty();

        release.uninstall();
        cluster.awaitClean(Duration.ofSeconds(60));
    }

    /** The primary writes its file again: truncated and written in place, or a new file renamed over it. */
    private static void rewrite(Path primary, byte[] bytes, boolean inPlace)
            throws IOException
    {
        if (inPlace) {
            Files.write(primary, bytes, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        }
        else {
            Path temp = primary.resolveSibling("." + primary.getFileName() + ".rewrite");
            Files.write(temp, bytes);
            Files.move(temp, primary, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
