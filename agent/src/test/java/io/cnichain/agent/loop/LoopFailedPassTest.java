package io.cnichain.agent.loop;

import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.testkit.Await;
import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
^ * A pass that throws half-way (injected just before the rename of our write, the one seam the engine offers).
 */
@ExtendWith(TempNodeExtension.class)
class LoopFailedPassTest
{
    private static AtomicFileWriter throwingOnce(AtomicReference<Throwable> next)
    {
        return new AtomicFileWriter((temp, target) -> {
            Throwable fault = next.getAndSet(null);
            if (fault instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (fault instanceof Error error) {
                throw error;
            }
        });
    }

    /** With the periodic check off, a pass that threw is run again on the back-off: no event may come to wake one. */
    @Test
    void aPassThatThrewIsTriedAgainWithThePeriodicCheckOff(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        AtomicReference<Throwable> next = new AtomicReference<>();
        try (RunningLoop loop = RunningLoop.start(node, "periodicCheckSeconds: 0\n", throwingOnce(next))) {
            loop.awaitReady();
            next.set(new IllegalStateException("injected: this pass fails half-way"));
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            loop.awaitLog("Reconcile failed");
            loop.barrier();
            loop.advance(Duration.ofMinutes(10));
            loop.barrier();
            assertThat(PluginList.patched(file)).as("the runtime's file has our entry again; readiness says " + loop.status.notReady()).isTrue();
        }
    }

    /**
     * An Error (OutOfMemoryError) in a pass ends the reconcile thread: readiness says so at once, as the health endpoint
     * does, rather than what the last pass found.
     */
    @Test
    void anErrorInAPassIsNotLeftSayingReady(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        AtomicReference<Throwable> next = new AtomicReference<>();
        try (RunningLoop loop = RunningLoop.start(node, "", throwingOnce(next))) {
            loop.awaitReady();
            next.set(new OutOfMemoryError("injected"));
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            Await.until(Duration.ofSeconds(10), () -> !loop.loopAlive(), () -> "the loop survived the Error");
            assertThat(PluginList.patched(file)).isFalse();
            assertThat(loop.status.unhealthy(Duration.ofSeconds(30))).isEqualTo("the reconcile loop is not running");
            assertThat(loop.status.ready()).as("/readyz and cnichain_ready once the loop is dead").isFalse();
        }
    }
}
