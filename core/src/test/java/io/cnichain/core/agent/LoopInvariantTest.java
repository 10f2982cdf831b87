package io.cnichain.core.agent;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;

import static io.cnichain.core.agent.RunningLoop.patched;
import static org.assertj.core.api.Assertions.assertThat;

/** Readiness says the runtime's file carries our entry only when it does. */
@ExtendWith(TempNodeExtension.class)
class LoopInvariantTest
{
    @Test
    void theRuntimesFileOutOfTheAllowedRootsKeepsTheAgentNotReadyWithTheReason(TestNode node)
            throws Exception
    {
        Path outside = node.writeAt(node.host("/etc/passwd"), TestNode.CALICO);
        String before = node.readAt(outside);
        node.link("04-out.conflist", "/etc/passwd");
        Path calico = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason)
                    .startsWith("the runtime loads /etc/cni/net.d/04-out.conflist, which cannot be patched: ").contains("outside the allowed roots"));
            assertThat(loop.metrics()).contains("cnichain_ready 0");
            assertThat(node.readAt(outside)).isEqualTo(before);
            assertThat(loop.count("ERROR the runtime loads /etc/cni/net.d/04-out.conflist")).as("said once").isEqualTo(1);

            // The link goes: the runtime now loads the next file, which gets our entry, and the agent is ready.
            Files.delete(node.conf("04-out.conflist"));
            loop.awaitPatched(calico);
            loop.awaitReady();
            assertThat(loop.metrics()).contains("cnichain_ready 1");
        }
    }

    @Test
    void anAdapterNamingAnotherFileDoesNotTakeTheRuntimesFileAway(TestNode node)
            throws Exception
    {
        Path single = node.write("05-single.conf", "{\"cniVersion\":\"0.4.0\",\"name\":\"single\",\"type\":\"bridge\"}");
        Path own = node.write("10-own.conflist-current", TestNode.OCI);
        try (RunningLoop loop = RunningLoop.start(node, RunningLoop.FAST, LoopTestAdapter.naming("10-own.conflist-current"))) {
            loop.awaitPatched(own);
            loop.awaitPatched(node.conf("05-single.conflist"));
            assertThat(single).doesNotExist();
            loop.awaitReady();

            // The primary writes its .conf again: the runtime loads it, so it is converted again, and readiness waits.
            node.write("05-single.conf", "{\"cniVersion\":\"0.4.0\",\"name\":\"single\",\"type\":\"bridge\"}");
            loop.await(() -> !Files.exists(node.conf("05-single.conf")) && patched(node.conf("05-single.conflist")),
                    () -> "05-single.conf was not converted again");
            loop.awaitReady();
        }
    }
}
