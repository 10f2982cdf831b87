package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.agent.shutdown.StandInCluster;
import io.cnichain.testkit.KubeletVolume;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static io.cnichain.testkit.PluginList.patched;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rolling update, a real uninstall and an API server that does not answer, with the agent as the DaemonSet runs it
 * (the launcher, SIGTERM, the downward API's variables) and the stand-in API server in place of a real one (none can
 * run here). A sampler looks at the node every 10 ms, as the runtime might at any moment, for our entry in the
 * runtime's file, the binary and the kubeconfig.
 */
@ExtendWith(TempNodeExtension.class)
class AgentUpgradeTest
{
    /** The time between the old pod's exit and the new pod's start in a rolling update. */
    private static final long GAP_MILLIS = 1000;

    @Test
    void aRollingUpdateKeepsThePluginInPlaceThroughout(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (StandInCluster cluster = StandInCluster.start(node.serviceAccountDir())) {
            Gap gap = rollingUpdate(node, cluster, "auto");
            System.out.println("rolling update, cleanupOnShutdown auto: " + gap);
            assertThat(gap.missing()).as("samples without entry, binary or kubeconfig: " + gap).isZero();
            assertThat(gap.oldLog()).contains("SIGTERM: leaving our CNI entries, kubeconfig and binaries in place: DaemonSet cni-chain/cni-chain exists "
                    + "and still places a pod on node node-1: an update, a restart or a node shutdown, not an uninstall (cleanupOnShutdown auto)");
            // Taken over: the binary was not rewritten (same bytes; pods may be running it), the kubeconfig was (a
            // fresh token), the entry is there once.
            assertThat(gap.binaryReplaced()).as("binary replaced although its bytes were the same").isFalse();
            assertThat(gap.oldLog()).doesNotContain("cleanupOnShutdown is auto but");
            assertThat(Files.readString(node.conf("ZZZ-linkerd-cni-kubeconfig"))).contains("token: token-of-the-new-pod");
            assertThat(gap.newLog()).doesNotContain("Wrote linkerd CNI binaries");
            assertThat(patched(file)).isTrue();
        }
    }

    @Test
    void theGapCleanupOnEveryStopLeaves(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        try (StandInCluster cluster = StandInCluster.start(node.serviceAccountDir())) {
            Gap gap = rollingUpdate(node, cluster, "always");
            System.out.println("rolling update, cleanupOnShutdown always: " + gap);
            // What every SIGTERM did before: the node without the plugin from the old agent's cleanup to the new
            // agent's first pass, which includes the whole gap between the two pods.
            assertThat(gap.missing()).as("samples without entry, binary or kubeconfig").isGreaterThan((int) (GAP_MILLIS / 10 / 2));
            assertThat(gap.oldLog()).contains("SIGTERM: removing our CNI entries, kubeconfig and binaries: cleanupOnShutdown is always");
        }
    }

    @Test
    void anUninstallRemovesEverything(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (StandInCluster cluster = StandInCluster.start(node.serviceAccountDir())) {
            for (String uninstall : List.of("deleted", "being deleted", "no longer on this node")) {
                try (AgentProcess agent = AgentProcess.launch(node, List.of(), List.of(), cluster.environment())) {
                    agent.awaitLog("Watching /etc/cni/net.d", Duration.ofSeconds(20));
                    awaitPatched(agent, file);
                    switch (uninstall) {
                        case "deleted" -> cluster.deleteDaemonSet();
                        case "being deleted" -> cluster.changeDaemonSet(ds -> ds.with("metadata").put("deletionTimestamp", "2026-12-02T03:00:00Z"));
                        default -> cluster.changeDaemonSet(ds -> ds.with("spec").with("template").with("spec").with("nodeSelector").put("pool", "mesh"));
                    }
                    assertThat(agent.terminate(Duration.ofSeconds(25))).as(agent.log()).isZero();
                    assertThat(agent.log()).as(uninstall).contains("SIGTERM: removing our CNI entries, kubeconfig and binaries: DaemonSet cni-chain/cni-chain");
                }
                assertThat(patched(file)).as(uninstall).isFalse();
                assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).as(uninstall).doesNotExist();
                assertThat(node.binDir().resolve("linkerd-cni")).as(uninstall).doesNotExist();
                cluster.server().put(StandInCluster.DAEMON_SET_PATH, StandInCluster.daemonSet());
            }
        }
    }

    @Test
    void anApiServerThatDoesNotAnswerKeepsEverythingWithinTheShutdownTimeout(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (StandInCluster cluster = StandInCluster.start(node.serviceAccountDir())) {
            CountDownLatch never = new CountDownLatch(1);
            try (AgentProcess agent = AgentProcess.launch(node, List.of(), List.of("--shutdown-timeout", "4"), cluster.environment())) {
                agent.awaitLog("Watching /etc/cni/net.d", Duration.ofSeconds(20));
                awaitPatched(agent, file);
                cluster.server().holdAll(never);
                long start = System.nanoTime();
                assertThat(agent.terminate(Duration.ofSeconds(10))).as(agent.log()).isZero();
                long millis = (System.nanoTime() - start) / 1_000_000;
                // Half the shutdown timeout for the calls; exit well inside the timeout.
                assertThat(millis).as("exit after SIGTERM").isBetween(1900L, 3500L);
                assertThat(agent.log()).contains("SIGTERM: leaving our CNI entries, kubeconfig and binaries in place: the API server did not "
                        + "answer within 2000 ms (GET /api/v1/namespaces/cni-chain/pods/cni-chain-x7k2p) (cleanupOnShutdown auto)");
            }
            finally {
                never.countDown();
            }
            assertThat(patched(file)).isTrue();
            assertThat(node.binDir().resolve("linkerd-cni")).exists();
            assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).exists();
        }
    }

    /**
     * The old agent patches, gets SIGTERM and exits; {@value #GAP_MILLIS} ms later the new one starts with a new token
     * and becomes ready. The sampler runs from before the SIGTERM until the new agent is ready.
     */
    private static Gap rollingUpdate(TestNode node, StandInCluster cluster, String cleanup)
            throws Exception
    {
        Path file = node.conf("10-calico.conflist");
        Path binary = node.binDir().resolve("linkerd-cni");
        Path kubeconfig = node.conf("ZZZ-linkerd-cni-kubeconfig");
        Path yaml = KubeletVolume.configMapFile(node.root().resolve("config-" + cleanup), "cni-chain.yaml", "cleanupOnShutdown: " + cleanup + "\n");
        List<String> flags = List.of("--config", yaml.toString());
        String oldLog;
        Object binaryBefore;
        Sampler sampler = new Sampler(file, binary, kubeconfig);
        try (AgentProcess old = AgentProcess.launch(node, List.of(), flags, cluster.environment())) {
            old.awaitLog("Watching /etc/cni/net.d", Duration.ofSeconds(20));
            awaitPatched(old, file);
            Await.until(Duration.ofSeconds(10), () -> Files.exists(kubeconfig) && Files.exists(binary), old::log);
            binaryBefore = Files.readAttributes(binary, BasicFileAttributes.class).fileKey();
            sampler.start();
            assertThat(old.terminate(Duration.ofSeconds(25))).as(old.log()).isZero();
            oldLog = old.log();
        }
        Files2.pause(GAP_MILLIS);
        node.serviceAccount().update("token", "token-of-the-new-pod\n");
        cluster.server().acceptToken("token-of-the-new-pod");
        String newLog;
        boolean replaced;
        try (AgentProcess fresh = AgentProcess.launch(node, List.of(), flags, cluster.environment())) {
            Await.until(Duration.ofSeconds(20), () -> fresh.poll("/readyz").status() == 200, fresh::log);
            sampler.stop();
            newLog = fresh.log();
            replaced = !Files.readAttributes(binary, BasicFileAttributes.class).fileKey().equals(binaryBefore);
        }
        return new Gap(sampler.samples.get(), sampler.missing.get(), sampler.firstMissing(), oldLog, newLog, replaced);
    }

    /**
     * @param samples        samples taken
     * @param missing        samples without our entry in the runtime's file, the binary or the kubeconfig
     * @param firstMissing   what the first such sample lacked
     */
    private record Gap(int samples, int missing, String firstMissing, String oldLog, String newLog, boolean binaryReplaced)
    {
        @Override
        public String toString()
        {
            return missing + " of " + samples + " samples (every 10 ms) without entry, binary or kubeconfig" + (missing > 0 ? " (first: " + firstMissing + ")" : "");
        }
    }

    private static final class Sampler
    {
        private final Path file;
        private final Path binary;
        private final Path kubeconfig;
        private final AtomicInteger samples = new AtomicInteger();
        private final AtomicInteger missing = new AtomicInteger();
        private final List<String> lacks = new ArrayList<>();
        private final Thread thread = new Thread(this::run, "sampler");
        private volatile boolean stop;

        Sampler(Path file, Path binary, Path kubeconfig)
        {
            this.file = file;
            this.binary = binary;
            this.kubeconfig = kubeconfig;
            thread.setDaemon(true);
        }

        void start()
        {
            thread.start();
        }

        void stop()
                throws InterruptedException
        {
            stop = true;
            thread.join();
        }

        synchronized String firstMissing()
        {
            return lacks.isEmpty() ? "" : lacks.get(0);
        }

        private void run()
        {
            while (!stop) {
                List<String> lack = new ArrayList<>();
                if (!patched(file)) {
                    lack.add("entry");
                }
                if (!Files.isRegularFile(binary)) {
                    lack.add("binary");
                }
                if (!Files.isRegularFile(kubeconfig)) {
                    lack.add("kubeconfig");
                }
                samples.incrementAndGet();
                if (!lack.isEmpty()) {
                    missing.incrementAndGet();
                    synchronized (this) {
                        lacks.add(String.join("+", lack));
                    }
                }
                Files2.pause(10);
            }
        }
    }
}
