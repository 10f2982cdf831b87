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

    /** On a node whose runtime's file is a link (OCI's layout), the storm is summed up too: the link is said once, not at every pass. */
    @Test
    void aStormOfForeignFilesIsSummedUpAlsoWhenTheRuntimesFileIsALink(TestNode node)
            throws Exception
    {
        Path real = node.write("10-oci.conflist-current", TestNode.OCI);
        node.link("10-oci.conflist", "10-oci.conflist-current");
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(real);
            long infoBefore = loop.lines("INFO").size();
            long start = System.nanoTime();
            for (int i = 0; i < 300; i++) {
                Path foreign = node.conf("calico-install-" + i + ".partial");
                Files.writeString(foreign, "{");
                Files.delete(foreign);
                if (i % 10 == 0) {
                    loop.barrier();
                }
            }
            loop.barrier();
            double seconds = (System.nanoTime() - start) / 1e9;
            long info = loop.lines("INFO").size() - infoBefore;
            assertThat(info).as("INFO lines for 600 events in %.1f s, of which 'resolves to': %d", seconds,
                    loop.count("File /etc/cni/net.d/10-oci.conflist resolves to")).isLessThanOrEqualTo((long) Math.ceil(seconds) + 3);
            assertThat(PluginList.plugins(real)).last().isEqualTo("linkerd-cni");
        }
    }

    /** A failure that stays (a conversion that would hand the runtime another network's file) is said once, not at every periodic check. */
    @Test
    void aFailureThatStaysIsNotLoggedAgainAtEveryPeriodicCheck(TestNode node)
            throws Exception
    {
        node.write("10-x.conf", "{\"cniVersion\":\"0.3.1\",\"name\":\"x\",\"type\":\"bridge\"}");
        node.write("10-x.conf.conflist", "{\"cniVersion\":\"0.3.1\",\"name\":\"y\",\"plugins\":[{\"type\":\"bridge\"}]}");
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.await(() -> loop.status.notReady().stream().anyMatch(reason -> reason.contains("would hand the runtime")),
                    () -> "not ready for the refused conversion: " + loop.status.notReady());
            long before = loop.count("WARN Not patching /etc/cni/net.d/10-x.conf");
            for (int check = 1; check <= 5; check++) {
                loop.advance(java.time.Duration.ofSeconds(60));
                loop.barrier();
            }
            assertThat(loop.count("WARN Not patching /etc/cni/net.d/10-x.conf") - before).as("the same warning again in 5 periodic checks, nothing changed")
                    .isZero();
        }
    }
}
