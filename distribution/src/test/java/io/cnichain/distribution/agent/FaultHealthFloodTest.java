package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.ConnectionFlood;
import io.cnichain.testkit.Descriptors;
import io.cnichain.testkit.KubeletProber;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent started by the launcher, its health port flooded from the node by connections of every shape
 * ({@link ConnectionFlood.Shape}), four times as many as the server keeps open, each opened again as soon as it is
 * closed, while the kubelet probes it as the chart says: every probe is answered within its timeout, and the agent
 * lives on with its descriptors and memory bounded. 12 s, or 60 s in the soak run.
 */
@Tag("reliability")
@ExtendWith(TempNodeExtension.class)
class FaultHealthFloodTest
{
    /** The health server's limit on open connections (docs/security.md). */
    private static final int MAX_CLIENTS = 512;
    /** Its limit on connected sockets: those open, and those closed in the turn of its loop under way (docs/security.md). */
    private static final int MAX_SOCKETS = 1152;
    /**
     * Well below the chart's memory limit for the agent (192 MiB), above which the kubelet kills the container. The
     * heap's own limit (48 MiB, the launcher's) is what the agent grows into under the flood's garbage; what the server
     * holds is far less.
     */
    private static final long MEMORY_LIMIT_MIB = 128;

    @Test
    void aLocalFloodOfEveryShapeLeavesEveryProbeAnsweredInTime(TestNode node)
            throws Exception
    {
        Duration length = Duration.ofSeconds(FaultSettings.soak() ? 60 : 12);
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, file);
            Await.until(Duration.ofSeconds(10), () -> agent.poll("/readyz").status() == 200, agent::log);
            Path status = Path.of("/proc", Long.toString(agent.pid()), "status");
            long before = kibibytes(status, "VmRSS");
            long listening = Descriptors.sockets(agent.pid());
            long sockets = 0;
            List<KubeletProber.Result> probes;
            long opened;
            try (ConnectionFlood flood = ConnectionFlood.open(agent.healthPort(), 4 * MAX_CLIENTS, ConnectionFlood.Shape.values());
                    KubeletProber prober = KubeletProber.start(agent.healthPort())) {
                long end = System.nanoTime() + length.toNanos();
                while (System.nanoTime() < end && agent.alive()) {
                    sockets = Math.max(sockets, Descriptors.sockets(agent.pid()));
                    Files2.pause(100);
                }
                probes = prober.results();
                opened = flood.opened();
            }
            assertThat(agent.alive()).as("the agent is alive\n" + agent.log()).isTrue();
            long peak = kibibytes(status, "VmHWM");
            List<Long> millis = probes.stream().map(probe -> probe.took().toMillis()).sorted().toList();
            FaultSettings.report("health port flooded", String.format("%d s, %d connections opened; %d probes: median %d ms, max %d ms; "
                            + "at most %d connected sockets; resident %d MiB before, peak %d MiB", length.toSeconds(), opened, probes.size(),
                    millis.get(millis.size() / 2), millis.getLast(), sockets - listening, before / 1024, peak / 1024));

            assertThat(probes).as("the probes made").hasSizeGreaterThanOrEqualTo((int) (length.toSeconds() / 5 + length.toSeconds() / 10));
            assertThat(probes).as("probes not answered with success within " + KubeletProber.TIMEOUT.toMillis() + " ms")
                    .allMatch(KubeletProber.Result::success);
            assertThat(sockets - listening).as("the agent's connected sockets at most").isLessThanOrEqualTo(MAX_SOCKETS);
            assertThat(peak / 1024).as("the agent's peak resident memory, MiB").isLessThan(MEMORY_LIMIT_MIB);
            // At most as many as before: the count before may hold the connection of the readiness poll, not yet closed.
            Await.until(Duration.ofSeconds(5), () -> Descriptors.sockets(agent.pid()) <= listening,
                    () -> "the flood is over, and the agent still holds " + (Descriptors.sockets(agent.pid()) - listening) + " connections");
            assertThat(agent.get("/healthz").status()).isEqualTo(200);
            assertThat(agent.terminate(Duration.ofSeconds(25))).as(agent.log()).isZero();
        }
    }

    private static long kibibytes(Path status, String field)
            throws IOException
    {
        return Files.readAllLines(status).stream().filter(line -> line.startsWith(field + ":"))
                .map(line -> Long.parseLong(line.replaceAll("[^0-9]", ""))).findFirst().orElseThrow();
    }
}
