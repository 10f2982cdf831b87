package io.cnichain.agent.loop;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.json.CniJson;
import io.cnichain.agent.kube.FakeApiServer;
import io.cnichain.agent.kube.KubeApiClient;
import io.cnichain.agent.kube.KubeWork;
import io.cnichain.agent.kube.StartupTaint;
import io.cnichain.agent.kube.TestCertificates;
import io.cnichain.agent.time.Clock;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up taint follows the loop's readiness, wired as the agent wires it ({@link Agent#attach}): no request
 * while the runtime's file lacks our entry, the taint removed once it carries it, shown in {@code /readyz} and
 * {@code /metrics}. The API server is the test's HTTPS stand-in; the calls are made on the API worker's thread, which
 * is gone once the taint is.
 */
@ExtendWith(TempNodeExtension.class)
class LoopTaintTest
{
    static final String TAINT = "{\"key\":\"cni-chain.io/not-ready\",\"value\":\"true\",\"effect\":\"NoSchedule\"}";

    @Test
    void theTaintGoesOnlyOnceTheRuntimesFileCarriesOurEntry(TestNode node)
            throws Exception
    {
        TestCertificates certificates = TestCertificates.shared();
        Files.copy(certificates.caPem(), node.serviceAccountDir().resolve("ca.crt"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(node.serviceAccountDir().resolve("token"), "token-1\n");
        ObjectNode apiNode = (ObjectNode) CniJson.parse(("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-1\",\"labels\":{\"kubernetes.io/hostname\":\"node-1\"},"
                + "\"resourceVersion\":\"100\"},\"spec\":{\"taints\":[" + TAINT + "]}}").getBytes(StandardCharsets.UTF_8));
        try (FakeApiServer server = FakeApiServer.start(certificates.server(), apiNode, "token-1")) {
            KubeApiClient client = new KubeApiClient("127.0.0.1", server.port(), node.serviceAccountDir().resolve("token"),
                    node.serviceAccountDir().resolve("ca.crt"), Duration.ofSeconds(5), Clock.SYSTEM);
            StartupTaint remover = new StartupTaint(() -> StartupTaint.lift(client, "node-1", "cni-chain.io/not-ready"), "node-1", "cni-chain.io/not-ready");
            KubeWork kube = new KubeWork(Clock.SYSTEM);
            try (RunningLoop loop = RunningLoop.start(node)) {
                Agent.attach(remover, kube, loop.status, loop.metrics);
                // No primary: not ready, and the passes that say so send nothing.
                node.write("00-barrier.tmp", "x");
                loop.barrier();
                assertThat(loop.status.ready()).isFalse();
                assertThat(server.requests()).isEmpty();
                assertThat(loop.metrics()).contains("cnichain_node_taint_removed 0");

                Path file = node.write("10-calico.conflist", TestNode.CALICO);
                loop.awaitPatched(file);
                loop.awaitReady();
                loop.await(() -> remover.removedGauge() == 1, () -> "the taint was not removed: " + remover.describe());
                assertThat(server.requests()).extracting(FakeApiServer.Request::method).as("the fence's dry run, the read, the patch")
                        .containsExactly("PATCH", "GET", "PATCH");
                assertThat(server.node().at("/spec/taints").size()).isZero();
                assertThat(loop.metrics()).contains("cnichain_node_taint_removed 1");
                assertThat(loop.status.details()).singleElement().asString().contains("cni-chain.io/not-ready");
                loop.await(() -> Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().equals("kube-api")),
                        () -> "the API worker's thread still runs once the taint is gone");
            }
            finally {
                kube.close();
            }
        }
    }
}
