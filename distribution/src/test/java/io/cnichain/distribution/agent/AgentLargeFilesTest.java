package io.cnichain.distribution.agent;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.time.Duration;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Files just under maxConfigBytes (1 MiB) in the conf dir, more of them than the launcher's 48 MiB heap holds: the
 * agent, as the chart runs it, reads each, keeps none of what it cannot use, and patches the runtime's file.
 */
@ExtendWith(TempNodeExtension.class)
class AgentLargeFilesTest
{
    private static final int FILES = 80;
    private static final int SIZE = 1024 * 1024 - 1;

    @Test
    void brokenFilesOfAlmostAMebibyteEachBeforeTheRuntimesFileDoNotExhaustTheHeap(TestNode node)
            throws Exception
    {
        // Valid JSON that libcni refuses under every generation (no name): parsed whole before it is refused.
        String head = "{\"cniVersion\": \"0.4.0\", \"plugins\": [{\"type\": \"bridge\"}], \"padding\": \"";
        byte[] bytes = (head + "x".repeat(SIZE - head.length() - 2) + "\"}").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertThat(bytes).hasSize(SIZE);
        for (int i = 0; i < FILES; i++) {
            Files.write(node.conf(String.format("00-broken-%02d.conflist", i)), bytes);
        }
        node.write("10-calico.conflist", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, node.conf("10-calico.conflist"));
            agent.awaitLog("00-broken-79.conflist sorts before the effective configuration", Duration.ofSeconds(10));
            assertThat(agent.get("/healthz").status()).isEqualTo(200);
            assertThat(agent.log()).doesNotContain("OutOfMemoryError");
            assertThat(agent.alive()).isTrue();
        }
    }
}
