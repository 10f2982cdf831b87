package io.cnichain.agent.loop;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** What the loop tells /readyz, /healthz and /metrics as the node changes. */
@ExtendWith(TempNodeExtension.class)
class LoopHealthTest
{
    static final Pattern RESULT = Pattern.compile("cnichain_reconciles_total\\{result=\"([a-z]+)\"} [1-9]");
    static final Pattern KIND = Pattern.compile("cnichain_events_total\\{kind=\"([a-z]+)\"} [1-9]");
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void readinessSaysWhatIsMissingAndMetricsCountByResultAndKind(TestNode node)
            throws Exception
    {
        try (RunningLoop loop = RunningLoop.start(node)) {
            assertThat(loop.status.notReady()).containsExactly("no primary CNI configuration in /etc/cni/net.d yet");
            assertThat(loop.metrics()).contains("cnichain_reconciles_total{result=\"nothing\"} 1\n").contains("cnichain_ready 0\n");

            Path file = node.write("10-calico.conflist", TestNode.CALICO);
            loop.awaitPatched(file);
            loop.awaitReady();
            assertThat(loop.metrics()).contains("cnichain_ready 1\n").containsPattern("cnichain_patches_written_total [1-9]")
                    .containsPattern("cnichain_reaction_latency_seconds_count [1-9]")
                    .containsPattern("cnichain_last_successful_reconcile_timestamp_seconds 1[0-9]{9}\\.[0-9]{3}\n");

            // The binary's source gone and the binary with it: no file may name a missing binary. First the loop comes to
            // rest: a pass checking our own binary write, between the test's move and delete, would write the binary back
            // from the bytes it read, and the agent would be ready, truthfully.
            loop.barrier();
            Path source = node.imageBinDir().resolve("linkerd-cni");
            Path saved = Files.move(source, node.root().resolve("linkerd-cni.saved"));
            Files.delete(node.binDir().resolve("linkerd-cni"));
            loop.await(() -> loop.status.notReady().stream().anyMatch(r -> r.startsWith("/opt/cni/bin/linkerd-cni: the linkerd-cni binary is not installed")),
                    () -> "still " + loop.status.notReady());
            assertThat(loop.metrics()).contains("cnichain_ready 0\n");
            Files.move(saved, source);
            Files.writeString(node.binDir().resolve("linkerd-cni"), "placeholder");
            loop.awaitReady();

            // Half a file: waiting for it, with the reason.
            node.rewriteInPlace("10-calico.conflist", "{\"name\": \"k8s-pod-network\", ");
            loop.await(() -> loop.status.notReady().stream().anyMatch(r -> r.startsWith("waiting for /etc/cni/net.d/10-calico.conflist: ")),
                    () -> "still " + loop.status.notReady());
            node.rewriteInPlace("10-calico.conflist", TestNode.CALICO);
            loop.awaitPatched(file);
            loop.awaitReady();
            // A pure echo: the primary rewrites, we patch, our own write comes back alone.
            loop.barrier();
            long echoes = loop.count("/etc/cni/net.d/10-calico.conflist; written by us");
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            loop.awaitCount("/etc/cni/net.d/10-calico.conflist; written by us", echoes + 1);
            Files.delete(file);
            loop.awaitLog("Detected event: DELETE /etc/cni/net.d/10-calico.conflist; the file is gone");
            loop.barrier();

            String metrics = loop.metrics();
            assertThat(labels(RESULT, metrics)).containsExactlyInAnyOrder("ok", "echo", "nothing", "waiting", "failed");
            assertThat(labels(KIND, metrics)).containsExactlyInAnyOrder("create", "modify", "delete");
        }
    }

    @Test
    void healthzReportsAPassStuckLongerThanThePolicyAllowsReadyzAndMetricsAnswer(TestNode node)
            throws Exception
    {
        LoopTestAdapter adapter = new LoopTestAdapter();
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node, RunningLoop.FAST, adapter)) {
            HealthServer server = new HealthServer(java.net.InetAddress.getLoopbackAddress(), 0, loop.status, loop.metrics, RunningLoop.FAST.stuckAfter(), false);
            server.start();
            try {
                loop.awaitPatched(file);
                loop.awaitReady();
                assertThat(get(server, "/healthz")).isEqualTo("200 ok\n");
                assertThat(get(server, "/readyz")).isEqualTo("200 ready\n");
                assertThat(get(server, "/metrics")).startsWith("200 # HELP cnichain_reconciles_total").contains("cnichain_ready 1\n");
                assertThat(get(server, "/other")).isEqualTo("404 try /healthz, /readyz or /metrics\n");

                CountDownLatch held = adapter.holdPasses();
                node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
                loop.await(loop.status::busy, () -> "no pass began");
                loop.advanceNow(RunningLoop.FAST.stuckAfter());
                assertThat(get(server, "/healthz")).as("busy for as long as the policy allows").isEqualTo("200 ok\n");
                loop.advanceNow(Duration.ofMillis(1));
                assertThat(get(server, "/healthz")).startsWith("503 the reconcile loop has been busy with one pass for 201 ms");
                assertThat(get(server, "/readyz")).as("a pass of a second at most leaves readiness as it was").isEqualTo("200 ready\n");
                loop.advanceNow(AgentStatus.PASS_NOT_READY.minusMillis(200));
                assertThat(get(server, "/readyz")).startsWith("503 not ready:\n- a reconcile pass has been under way for 1001 ms; what the runtime "
                        + "loads is not known until it ends");
                held.countDown();
                loop.await(() -> get(server, "/healthz").equals("200 ok\n"), () -> "/healthz says " + get(server, "/healthz"));
                loop.awaitPatched(file);

                Files.delete(file);
                loop.await(() -> get(server, "/readyz").equals("503 not ready:\n- no primary CNI configuration in /etc/cni/net.d yet\n"),
                        () -> "/readyz says " + get(server, "/readyz"));
            }
            finally {
                server.stop();
            }
        }
    }

    private static Set<String> labels(Pattern pattern, String metrics)
    {
        Set<String> labels = new TreeSet<>();
        Matcher matcher = pattern.matcher(metrics);
        while (matcher.find()) {
            labels.add(matcher.group(1));
        }
        return labels;
    }

    /** @return the status code, a space and the body */
    private static String get(HealthServer server, String path)
    {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() + " " + response.body();
        }
        catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

}
