package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.KubeletVolume;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static io.cnichain.testkit.PluginList.plugins;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Start, health, signals, crashes: what only the agent as a real child process, started by the launcher, can show.
 * How the loop reacts to changes is the core's in-process Loop*Test.
 */
@ExtendWith(TempNodeExtension.class)
class AgentLifecycleTest
{
    @Test
    void sigtermRemovesEverythingKeepsLinksAndGetsPastAMalformedFile(TestNode node)
            throws IOException
    {
        Path real = node.writeAt(node.host("/etc/cni/oci/10-oci.conflist-current"), TestNode.OCI);
        node.link("10-oci.conflist", "../oci/10-oci.conflist-current");
        node.write("20-calico.conflist", TestNode.CALICO);
        node.write("15-broken.conflist", "{\"name\": \"half\", \"plugins\": [");
        // A foreign file too large for us to read whole, which does not mention our plugin: no reason to keep anything.
        Files.write(node.conf("40-large.conflist"), ("{\"name\":\"large\",\"plugins\":[{\"type\":\"bridge\"}]}" + " ".repeat(2 << 20))
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        String before = Files2.read(real);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, real);
            // A second list that also holds our entry, as after an earlier adapter or a manual install.
            node.write("30-extra.conflist", "{\"name\":\"extra\",\"cniVersion\":\"0.3.1\",\"plugins\":[{\"type\":\"bridge\"},{\"type\":\"linkerd-cni\"}]}");

            assertThat(agent.terminate(Duration.ofSeconds(25))).as(agent.log()).isZero();
            assertThat(agent.log()).contains("SIGTERM received; stopping watches, then deciding whether this is an uninstall")
                    .contains("cleanupOnShutdown is auto but POD_NAME, POD_NAMESPACE or NODE_NAME is not set: every stop")
                    .contains("SIGTERM: removing our CNI entries, kubeconfig and binaries: not in a cluster")
                    .contains("Removing linkerd-cni config from /etc/cni/net.d/10-oci.conflist")
                    .contains("Removing linkerd-cni config from /etc/cni/net.d/30-extra.conflist")
                    .contains("Skipping /etc/cni/net.d/15-broken.conflist")
                    .contains("40-large.conflist").contains("it does not mention linkerd-cni, so nothing of ours runs from it")
                    .contains("Removing linkerd-cni kubeconfig: /etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig")
                    .contains("Removing linkerd-cni binary: /opt/cni/bin/linkerd-cni")
                    .contains("Exiting.");
        }
        assertThat(Files.isSymbolicLink(node.conf("10-oci.conflist"))).isTrue();
        assertThat(Files2.read(real)).isEqualTo(before);
        assertThat(plugins(node.conf("30-extra.conflist"))).containsExactly("bridge");
        assertThat(node.read("15-broken.conflist")).isEqualTo("{\"name\": \"half\", \"plugins\": [");
        assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).doesNotExist();
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
    }

    /**
     * A JVM leaves a stop signal that whoever started it ignored (nohup, a shell's background job) ignored, whatever
     * handler the agent asks for: the agent says so at start, and goes on without it.
     */
    @Test
    void aStopSignalIgnoredByWhatStartedTheAgentIsSaidAndStaysIgnored(TestNode node)
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.launch(node, List.of("env", "--ignore-signal=HUP"), List.of())) {
            agent.awaitLog("Watching /etc/cni/net.d", Duration.ofSeconds(20));
            awaitPatched(agent, file);
            assertThat(agent.log()).contains("SIGHUP was ignored by what started the agent (nohup, or a shell's background job), and stays ignored")
                    .doesNotContain("SIGTERM was ignored").doesNotContain("SIGINT was ignored");
            assertThat(agent.signal("HUP")).isZero();
            assertThat(agent.signal("TERM")).isZero();
            assertThat(agent.exitCode(Duration.ofSeconds(20))).as(agent.log()).isZero();
            assertThat(agent.log()).doesNotContain("SIGHUP received").contains("SIGTERM received; stopping watches");
        }
        assertThat(PluginList.patched(file)).isFalse();
    }

    @Test
    void aScrapersListenerServesTheMetricsAloneAtItsOwnAddress(TestNode node)
            throws IOException
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        try (AgentProcess agent = AgentProcess.start(node, "--metrics-address", "[::1]:" + port)) {
            awaitPatched(agent, file);
            Await.until(Duration.ofSeconds(10), () -> agent.get("/readyz").status() == 200, agent::log);
            agent.awaitLog("Metrics on 0:0:0:0:0:0:0:1:" + port + ": /metrics", Duration.ofSeconds(5));
            AgentProcess.Response metrics = AgentProcess.get(java.net.URI.create("http://[::1]:" + port + "/metrics"));
            assertThat(metrics.status()).isEqualTo(200);
            assertThat(metrics.body()).contains("cnichain_ready 1");
            assertThat(AgentProcess.get(java.net.URI.create("http://[::1]:" + port + "/readyz")).status()).isEqualTo(404);
        }
    }

    @Test
    void sighupStopsTheAgentAsSigtermDoes(TestNode node)
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, file);
            assertThat(agent.signal("HUP")).isZero();
            assertThat(agent.exitCode(Duration.ofSeconds(20))).as(agent.log()).isZero();
            assertThat(agent.log()).contains("SIGHUP received; stopping watches, then deciding whether this is an uninstall")
                    .contains("SIGHUP: removing our CNI entries, kubeconfig and binaries: not in a cluster").contains("Exiting.");
        }
        assertThat(PluginList.patched(file)).isFalse();
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
        assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).doesNotExist();
    }

    @Test
    void sigtermWithCleanupDisabledLeavesEverythingInPlace(TestNode node)
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.start(node, "--no-cleanup")) {
            awaitPatched(agent, file);
            // SIGTERM, as the kubelet sends: a test run from a shell's background job starts with SIGINT ignored, and so
            // does the agent it starts, which then never sees a SIGINT.
            assertThat(agent.signal("TERM")).isZero();
            assertThat(agent.exitCode(Duration.ofSeconds(20))).isZero();
            assertThat(agent.log()).contains("SIGTERM received").contains("SIGTERM: leaving our CNI entries, kubeconfig and binaries in place: "
                    + "cleanupOnShutdown is never (or --no-cleanup) (cleanupOnShutdown never)");
        }
        assertThat(PluginList.patched(file)).isTrue();
        assertThat(node.binDir().resolve("linkerd-cni")).exists();
    }

    @Test
    void kill9ThenRestartLeavesExactlyOneEntryAndNoStaleTempFile(TestNode node)
            throws IOException
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, file);
            agent.kill();
        }
        // What a crash between our temp write and the rename leaves behind.
        Path stale = node.conf(".cni-chain-10-calico.conflist.0123456789ab.tmp");
        Files.writeString(stale, "{\"half\":");
        try (AgentProcess agent = AgentProcess.start(node)) {
            agent.awaitLog("Using adapter", Duration.ofSeconds(10));
            Await.until(Duration.ofSeconds(10), () -> !Files.exists(stale), agent::log);
            assertThat(plugins(file)).containsExactly("calico", "portmap", "linkerd-cni");
            try (Stream<Path> files = Files.list(node.confDir())) {
                assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
            }
            assertThat(agent.terminate(Duration.ofSeconds(25))).isZero();
        }
    }

    @Test
    void healthReadinessAndMetricsAnswerOverHttp(TestNode node)
    {
        try (AgentProcess agent = AgentProcess.start(node)) {
            agent.awaitLog("No active CNI configuration files found", Duration.ofSeconds(10));
            assertThat(agent.get("/healthz")).isEqualTo(new AgentProcess.Response(200, "ok\n"));
            AgentProcess.Response notReady = agent.get("/readyz");
            assertThat(notReady.status()).isEqualTo(503);
            assertThat(notReady.body()).contains("no primary CNI configuration in /etc/cni/net.d yet");

            Path file = node.write("10-calico.conflist", TestNode.CALICO);
            awaitPatched(agent, file);
            Await.until(Duration.ofSeconds(5), () -> agent.get("/readyz").status() == 200, agent::log);
            assertThat(agent.get("/readyz").body()).isEqualTo("ready\n");

            String metrics = agent.get("/metrics").body();
            assertThat(metrics).contains("# TYPE cnichain_reconciles_total counter")
                    .containsPattern("cnichain_reconciles_total\\{result=\"ok\"} [1-9]")
                    .containsPattern("cnichain_patches_written_total [1-9]")
                    .containsPattern("cnichain_events_total\\{kind=\"create\"} [1-9]")
                    .contains("cnichain_fights_total 0")
                    .containsPattern("cnichain_last_successful_reconcile_timestamp_seconds 1[0-9]{9}\\.[0-9]{3}")
                    .contains("# TYPE cnichain_reaction_latency_seconds histogram")
                    .containsPattern("cnichain_reaction_latency_seconds_count [1-9]")
                    .contains("cnichain_ready 1");
        }
    }

    @Test
    void aHostRootThatIsNotThereKeepsTheAgentNotReadyNamingIt(TestNode node)
            throws Exception
    {
        Files.move(node.hostRoot(), node.root().resolve("elsewhere"));
        try (AgentProcess agent = AgentProcess.start(node)) {
            Await.until(Duration.ofSeconds(10), () -> agent.get("/readyz").body().contains("the host root"), agent::log);
            AgentProcess.Response ready = agent.get("/readyz");
            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.body()).contains(node.hostRoot() + ": the host root (hostRoot, --host-root or CONTAINER_MOUNT_PREFIX) does not exist");
            assertThat(agent.get("/metrics").body()).contains("cnichain_ready 0");
        }
    }

    @Test
    void theRuntimesFileOutOfTheAllowedRootsIsNotReadyWithTheReason(TestNode node)
    {
        node.writeAt(node.host("/etc/passwd"), TestNode.CALICO);
        node.link("04-out.conflist", "/etc/passwd");
        node.write("10-calico.conflist", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.start(node)) {
            Await.until(Duration.ofSeconds(10), () -> agent.get("/readyz").body().contains("which cannot be patched"), agent::log);
            assertThat(agent.get("/readyz").status()).isEqualTo(503);
            assertThat(agent.get("/readyz").body()).contains("the runtime loads /etc/cni/net.d/04-out.conflist, which cannot be patched");
            assertThat(agent.log()).doesNotContain("disabled").doesNotContain("NoSuchElementException");
            assertThat(node.readAt(node.host("/etc/passwd"))).doesNotContain("linkerd-cni");
        }
    }

    /** Each setting is valid alone; together they name one socket, which cannot be bound twice: said with their names. */
    @Test
    void theHealthAndMetricsListenersOnOneSocketExitTwoNamingTheSettings(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        List<String> command = new java.util.ArrayList<>(List.of(AgentProcess.HOME.resolve("bin/cni-chain").toString(), "run"));
        command.addAll(node.flags());
        command.addAll(List.of("--health-port", String.valueOf(port), "--metrics-address", "127.0.0.1:" + port));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(node.env());
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor()).as(out).isEqualTo(2);
        assertThat(out).contains("error: cannot listen on 127.0.0.1:" + port + " for /metrics (metricsAddress): Address already in use");
        assertThat(PluginList.patched(file)).as("nothing installed").isFalse();
    }

    @Test
    void badConfigurationExitsTwoBeforeWatchingAnything(TestNode node)
            throws Exception
    {
        Path yaml = KubeletVolume.configMapFile(node.root().resolve("config"), "bad.yaml", "healthPort: -1\n");
        ProcessBuilder builder = new ProcessBuilder(AgentProcess.HOME.resolve("bin/cni-chain").toString(), "run", "--config", yaml.toString())
                .redirectErrorStream(true);
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor()).isEqualTo(2);
        assertThat(out).contains("error: " + yaml + ": key 'healthPort' is -1, outside 0..65535");
    }
}
