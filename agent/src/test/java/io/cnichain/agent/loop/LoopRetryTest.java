package io.cnichain.agent.loop;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** A file that does not parse: retried on the policy's schedule, then left alone until it changes. */
@ExtendWith(TempNodeExtension.class)
class LoopRetryTest
{
    static final String BROKEN = "{\"name\": \"half\", \"plugins\": [";

    @Test
    void retriedExactlyAsConfiguredThenLeftAloneThenPatchedOnceItChanges(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", BROKEN);
        try (RunningLoop loop = RunningLoop.start(node)) {
            // RunningLoop.FAST: 10, 20 and 40 ms, in that order, once each, each tried once it is due and not before.
            retriesOnSchedule(loop, 1);
            loop.advance(Duration.ofSeconds(10));
            loop.barrier();
            assertThat(loop.lines("Retrying /etc/cni/net.d/10-calico.conflist")).containsExactly(
                    "DEBUG Retrying /etc/cni/net.d/10-calico.conflist in 10 ms (retry 1 of 3)",
                    "DEBUG Retrying /etc/cni/net.d/10-calico.conflist in 20 ms (retry 2 of 3)",
                    "DEBUG Retrying /etc/cni/net.d/10-calico.conflist in 40 ms (retry 3 of 3)");
            assertThat(loop.count("still cannot be patched")).isEqualTo(1);
            assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason).startsWith("waiting for /etc/cni/net.d/10-calico.conflist: "));
            assertThat(loop.metrics()).containsPattern("cnichain_reconciles_total\\{result=\"waiting\"} [1-9]");
            assertThat(node.read("10-calico.conflist")).isEqualTo(BROKEN);

            // A change, still broken: the schedule starts again from the beginning.
            node.replaceAtomically("10-calico.conflist", BROKEN + " ");
            retriesOnSchedule(loop, 2);
            assertThat(loop.count("Retrying /etc/cni/net.d/10-calico.conflist")).isEqualTo(6);

            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            loop.awaitPatched(file);
            loop.awaitReady();
        }
    }

    /** Each retry comes when it is due: nothing a millisecond before, the retry at its time; then the file is given up. */
    private static void retriesOnSchedule(RunningLoop loop, int round)
    {
        long before = 3L * (round - 1);
        int retry = 1;
        for (long delay : new long[] {10, 20, 40}) {
            loop.awaitLog("Retrying /etc/cni/net.d/10-calico.conflist in " + delay + " ms (retry " + retry + " of 3)");
            loop.awaitCount("Retrying /etc/cni/net.d/10-calico.conflist in " + delay + " ms (retry " + retry + " of 3)", round);
            loop.advance(Duration.ofMillis(delay - 1));
            loop.barrier();
            assertThat(loop.count("Retrying /etc/cni/net.d/10-calico.conflist") - before).as("retries before retry %d is due", retry).isEqualTo(retry);
            assertThat(loop.count("still cannot be patched")).isEqualTo(round - 1);
            loop.advance(Duration.ofMillis(1));
            retry++;
        }
        loop.awaitCount("/etc/cni/net.d/10-calico.conflist still cannot be patched after 3 retries", round);
    }
}
