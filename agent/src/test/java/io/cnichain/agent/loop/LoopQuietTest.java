package io.cnichain.agent.loop;

import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** A storm of other tools' files in the conf dir is summed up, not logged line by line, and changes nothing. */
@ExtendWith(TempNodeExtension.class)
class LoopQuietTest
{
    @Test
    void aStormOfForeignTempFilesIsSummedUpAtMostOncePerSecond(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(file);
            long infoBefore = loop.lines("INFO").size();
            long start = System.nanoTime();
            for (int i = 0; i < 300; i++) {
                Path foreign = node.conf("calico-install-" + i + ".partial");
                Files.writeString(foreign, "{");
                Files.delete(foreign);
            }
            loop.barrier();
            double seconds = (System.nanoTime() - start) / 1e9;
            long info = loop.lines("INFO").size() - infoBefore;
            assertThat(loop.count("change(s) to files in /etc/cni/net.d that the runtime does not load")).isLessThanOrEqualTo((long) Math.ceil(seconds) + 1);
            assertThat(info).as("INFO lines for 600 events in %.1f s", seconds).isLessThanOrEqualTo((long) Math.ceil(seconds) + 3);
            // Each at debug; or, where the loop was slower than the storm and the JVM's watch key filled up (it holds
            // 512 events), none of them, but one warning of the overflow and a rescan.
            assertThat(loop.count("calico-install-") + loop.count("(overflow); rescanning everything")).as("each one at debug, or an overflow")
                    .isGreaterThan(0);
            assertThat(PluginList.plugins(file)).last().isEqualTo("linkerd-cni");
        }
    }
}
