package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.IdleConnections;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent started by the launcher, its health port held by 256 idle loopback connections (each reopened as soon as
 * it is closed): every {@code /readyz} probe, made as the manifests' probe is (a new connection, 2 s timeout), is
 * answered in time. A review measured 30 to 88% of such probes timing out before the health server's rewrite.
 */
@ExtendWith(TempNodeExtension.class)
class AgentProbesUnderLoadTest
{
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(PROBE_TIMEOUT).version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void twoHundredFiftySixIdleConnectionsDoNotStallReadyz(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, file);
            Await.until(Duration.ofSeconds(10), () -> agent.poll("/readyz").status() == 200, agent::log);
            List<Long> millis = new ArrayList<>();
            int failed = 0;
            try (IdleConnections flood = IdleConnections.open(agent.healthPort(), 256)) {
                Thread.sleep(500);
                for (int i = 0; i < 30; i++) {
                    long start = System.nanoTime();
                    if (probe(agent.healthPort()) != 200) {
                        failed++;
                    }
                    millis.add((System.nanoTime() - start) / 1_000_000);
                }
            }
            Collections.sort(millis);
            System.out.println("launcher: 30 /readyz probes under 256 idle connections: " + failed + " failed, median " + millis.get(15)
                    + " ms, max " + millis.get(29) + " ms");
            assertThat(failed).as("probes not answered 200 within " + PROBE_TIMEOUT.toSeconds() + " s\n" + agent.log()).isZero();
            assertThat(agent.terminate(Duration.ofSeconds(25))).as(agent.log()).isZero();
        }
    }

    /** As the kubelet probes: a new connection for each (the server closes it after its answer). */
    private static int probe(int port)
            throws InterruptedException
    {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).timeout(PROBE_TIMEOUT).build();
            return CLIENT.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        }
        catch (IOException e) {
            return -1;
        }
    }
}
