package io.cnichain.agent.loop;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.ConnectionFlood;
import io.cnichain.testkit.Descriptors;
import io.cnichain.testkit.KubeletProber;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The health server alone in a JVM with a heap of {@value #HEAP}, its port flooded by connections of every shape, four
 * times as many as it keeps open, each opened again as soon as it is closed: a probe every 50 ms is answered within the
 * kubelet's timeout, the server holds no more sockets than its limit allows, and none once the flood is over. A server
 * that kept a buffer or a descriptor per connection it let go would run out of that heap within the flood's first
 * seconds.
 */
class HealthServerFloodTest
{
    private static final String HEAP = "16m";

    @Test
    void aFloodOfEveryShapeLeavesProbesAnsweredInBoundedMemoryAndDescriptors()
            throws Exception
    {
        Process server = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(), "-Xmx" + HEAP, "-XX:+UseSerialGC", "-cp",
                System.getProperty("java.class.path"), HealthServerMain.class.getName()).redirectErrorStream(true).start();
        try {
            int port = port(new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8)));
            long listening = Descriptors.sockets(server.pid());
            List<KubeletProber.Result> probes = new ArrayList<>();
            long sockets = 0;
            try (ConnectionFlood flood = ConnectionFlood.open(port, 4 * HealthServer.MAX_CLIENTS, ConnectionFlood.Shape.values())) {
                long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                while (System.nanoTime() < end && server.isAlive()) {
                    probes.add(KubeletProber.probe(port, "/healthz"));
                    sockets = Math.max(sockets, Descriptors.sockets(server.pid()));
                    Await.pauseMicros(50_000);
                }
                System.out.println("health server flooded 5 s: " + flood.opened() + " connections opened, at most " + (sockets - listening)
                        + " sockets open, " + probes.size() + " probes, the slowest " + probes.stream().mapToLong(p -> p.took().toMillis()).max()
                        .orElse(0) + " ms");
            }
            assertThat(server.isAlive()).as("the server's JVM is alive").isTrue();
            assertThat(probes).as("probes not answered 200 within " + KubeletProber.TIMEOUT.toMillis() + " ms")
                    .allMatch(probe -> probe.status() == 200 && probe.success());
            // Open, and closed in the current turn of the loop: no more than it had open and accepted.
            assertThat(sockets - listening).as("connected sockets at most").isLessThanOrEqualTo(2 * HealthServer.MAX_CLIENTS + HealthServer.ACCEPTS_PER_TURN);
            Await.until(Duration.ofSeconds(HealthServer.REQUEST_SECONDS + 2), () -> Descriptors.sockets(server.pid()) == listening,
                    () -> "the flood is over, and the server still holds " + (Descriptors.sockets(server.pid()) - listening) + " sockets");
            assertThat(KubeletProber.probe(port, "/healthz").status()).isEqualTo(200);
        }
        finally {
            server.destroyForcibly();
            server.waitFor();
        }
    }

    /** @return the port the server prints (after what else it prints first: SLF4J's word that it has no provider) */
    private static int port(BufferedReader output)
            throws IOException
    {
        for (String line = output.readLine(); line != null; line = output.readLine()) {
            if (line.startsWith("port ")) {
                return Integer.parseInt(line.substring("port ".length()));
            }
        }
        throw new AssertionError("the server ended without saying its port");
    }
}
