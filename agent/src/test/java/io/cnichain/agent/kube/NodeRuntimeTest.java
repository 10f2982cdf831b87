package io.cnichain.agent.kube;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.agent.time.Clock;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ConfigLoader;
import io.cnichain.core.logcapture.CapturedLog;
import io.cnichain.testkit.KubeletVolume;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Node's runtime read at start for {@code placement: auto}, against the stand-in API server: a busy server is asked
 * again (a thousand nodes starting at once meet the API server's rate limits, and an agent that gave up at the first
 * 429 would place by patch where the rest of the fleet places drop-ins); a refusal is not.
 */
class NodeRuntimeTest
{
    @TempDir
    Path serviceAccount;

    private FakeApiServer server;
    private KubeApiClient client;

    @BeforeEach
    void start()
            throws Exception
    {
        CapturedLog.clear();
        KubeletVolume.serviceAccount(serviceAccount, "token-1\n", Files.readString(TestCertificates.shared().caPem()), "cni-chain");
        ObjectNode node = StartupTaintTest.node();
        ((ObjectNode) node.path("status")).putObject("nodeInfo").put("containerRuntimeVersion", "containerd://2.1.5");
        server = FakeApiServer.start(TestCertificates.shared().server(), node, "token-1");
        client = new KubeApiClient("127.0.0.1", server.port(), serviceAccount.resolve("token"), serviceAccount.resolve("ca.crt"), Duration.ofSeconds(5),
                Clock.SYSTEM);
    }

    @AfterEach
    void stop()
    {
        server.close();
    }

    @Test
    void aBusyServerIsAskedAgainAfterItsRetryAfterAndSaidOnce()
    {
        server.answerNext("GET", 429, Map.of("Retry-After", "1"));
        server.answerNext("GET", 503, Map.of());
        long start = System.nanoTime();
        NodeRuntime.Reported reported = NodeRuntime.readPatiently(() -> NodeRuntime.version(client, "node-1"), "node-1", Clock.SYSTEM,
                Duration.ofSeconds(15));
        assertThat(reported.version()).contains("containerd://2.1.5");
        assertThat(server.requests()).hasSize(3);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the server's Retry-After, then a back-off step").isGreaterThan(Duration.ofMillis(1800));
        assertThat(CapturedLog.lines()).filteredOn(line -> line.startsWith("WARN Cannot read node node-1's container runtime yet")).hasSize(1);
    }

    @Test
    void aRefusalIsNotAskedAgain()
    {
        server.forbidAll("system:serviceaccount:cni-chain:cni-chain");
        NodeRuntime.Reported reported = NodeRuntime.readPatiently(() -> NodeRuntime.version(client, "node-1"), "node-1", Clock.SYSTEM,
                Duration.ofSeconds(15));
        assertThat(reported.version()).isEmpty();
        assertThat(reported.whyUnknown()).contains("HTTP 403").contains("placement auto needs get on nodes");
        assertThat(server.requests()).hasSize(1);
    }

    @Test
    void aServerBusyForLongerThanThePatienceLeavesTheRuntimeUnknown()
    {
        for (int i = 0; i < 10; i++) {
            server.answerNext("GET", 500, Map.of());
        }
        long start = System.nanoTime();
        NodeRuntime.Reported reported = NodeRuntime.readPatiently(() -> NodeRuntime.version(client, "node-1"), "node-1", Clock.SYSTEM,
                Duration.ofSeconds(2));
        assertThat(reported.version()).isEmpty();
        assertThat(reported.whyUnknown()).contains("HTTP 500");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
    }
    /**
     * The running agent reads in a child; an API server that does not answer (an address black-holed at boot) must
     * not keep start-up past its patience, nor past the liveness probe's: the child is told what is left, and killed
     * when it is over, its JVM's start included.
     */
    @Test
    void aReadInAChildEndsWithinWhatIsLeftOfThePatience(@TempDir Path dir)
            throws Exception
    {
        Path launcher = dir.resolve("cni-chain");
        Path arguments = dir.resolve("arguments");
        Files.writeString(launcher, "#!/bin/sh\necho \"$@\" > " + arguments + "\nsleep 10\n"
                + "echo '{\"ok\":false,\"kind\":\"timeout\",\"message\":\"no whole answer within 10000 ms\"}'\n");
        Files.setPosixFilePermissions(launcher, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        AgentConfig config = ConfigLoader.load(java.util.Optional.empty(), Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", "443",
                "NODE_NAME", "node-1"), Map.of());
        Duration patience = Duration.ofSeconds(1);
        long start = System.nanoTime();
        NodeRuntime.Reported reported = NodeRuntime.readPatiently(NodeRuntime.attempt(config, java.util.Optional.of(launcher), start + patience.toNanos()),
                "node-1", Clock.SYSTEM, patience);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(reported.version()).isEmpty();
        assertThat(took).as("within the patience of %s", patience).isLessThan(patience.plusMillis(900));
        String told = Files.readString(arguments).trim();
        assertThat(told).startsWith("api node-runtime ").containsPattern("--deadline-millis [0-9]+$");
        assertThat(Long.parseLong(told.substring(told.lastIndexOf(' ') + 1))).isBetween(1L, patience.toMillis());
    }
}
