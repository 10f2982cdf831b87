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
 * More events than the kernel queues for one watch: only a frozen process lets them pile up, so this one runs
 * through the launcher. The other watches are the core's in-process LoopWatchTest.
 */
@ExtendWith(TempNodeExtension.class)
class AgentOverflowTest
{
    @Test
    void burstOfTwoThousandFilesThenAConfigIsPatchedThroughTheOverflowPath(TestNode node)
            throws Exception
    {
        try (AgentProcess agent = AgentProcess.start(node)) {
            agent.awaitLog("No active CNI configuration files found", Duration.ofSeconds(10));
            // Freeze the agent so the burst queues up in the kernel; when it resumes, more than 512 events are
            // waiting on one watch key and arrive as a single OVERFLOW: the agent must rescan everything.
            assertThat(agent.signal("STOP")).isZero();
            try {
                for (int i = 0; i < 2000; i++) {
                    Files.writeString(node.conf("junk-" + i + ".txt"), "x");
                }
                node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            }
            finally {
                assertThat(agent.signal("CONT")).isZero();
            }
            awaitPatched(agent, node.conf("10-calico.conflist"));
            agent.awaitLog("rescanning everything", Duration.ofSeconds(10));
            assertThat(agent.get("/metrics").body()).containsPattern("cnichain_events_total\\{kind=\"overflow\"} [1-9]");
        }
    }
}
