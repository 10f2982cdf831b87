package io.cnichain.agent.loop;

import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The periodic check, the loop's second chance: with {@code periodicCheckSeconds: 1}, a change no event reports is
 * found, said, counted and repaired; a node where nothing was missed stays quiet.
 */
@ExtendWith(TempNodeExtension.class)
class LoopPeriodicCheckTest
{
    private static final String EVERY_SECOND = "periodicCheckSeconds: 1\n";

    /**
     * inotify watches a directory, not a path: a directory renamed away takes its watch along and says nothing. Made
     * again under the old name with an unpatched file behind the runtime's link, the node would load a file without our
     * entry. The watch on the directory's parent tells, so the periodic check, running every second here, never has to.
     */
    @Test
    void aDirectorySwappedUnderItsWatchIsSeenByItsParentsEventsNotLeftToTheCheck(TestNode node)
            throws Exception
    {
        Path real = node.writeAt(node.host("/etc/cni/oci/10-oci.conflist-current"), TestNode.OCI);
        node.link("10-oci.conflist", "../oci/10-oci.conflist-current");
        try (RunningLoop loop = RunningLoop.start(node, EVERY_SECOND, RunningLoop.FAST, new LoopTestAdapter())) {
            loop.awaitPatched(real);
            loop.awaitReady();
            assertThat(loop.metrics()).contains("cnichain_missed_events_total{what=\"watch\"} 0\n").contains("cnichain_missed_events_total{what=\"file\"} 0\n");

            Files.move(node.host("/etc/cni/oci"), node.host("/etc/cni/oci-old"));
            // Written without our entry; not checked here, as the agent may already have patched it by the next line.
            node.writeAt(node.host("/etc/cni/oci/10-oci.conflist-current"), TestNode.OCI);

            // The directory's parent is watched too: the swap is an event, and the check has nothing left to find.
            loop.awaitLog("[" + node.host("/etc/cni/oci") + "] now names another directory (renamed away, or another renamed in its place)");
            loop.awaitPatched(real);
            loop.awaitReady();
            assertThat(loop.metrics()).contains("cnichain_missed_events_total{what=\"watch\"} 0\n").contains("cnichain_missed_events_total{what=\"file\"} 0\n");

            // Watched where it is now: the next rewrite is seen by its event, not by a check.
            long checks = loop.count("Periodic check: ");
            long written = loop.metrics.patchesWritten();
            node.replaceAtomicallyAt(real, TestNode.OCI);
            loop.await(() -> loop.metrics.patchesWritten() > written, () -> "the rewrite was not patched");
            loop.awaitPatched(real);
            assertThat(loop.count("Periodic check: ")).isEqualTo(checks);
        }
    }

    /**
     * k3s-style, the conf dir is a link, and it is re-pointed while the agent runs: the runtime now loads files the
     * agent does not look at. Nothing it watches tells; the check finds it, and readiness stops saying 200.
     */
    @Test
    void aConfDirLinkRepointedWhileRunningMakesTheAgentNotReady(TestNode node)
            throws Exception
    {
        Path first = Files.createDirectories(node.host("/var/lib/k3s/one/net.d"));
        Path second = Files.createDirectories(node.host("/var/lib/k3s/two/net.d"));
        Files.delete(node.confDir());
        // Relative, so that the test's own writes through the link reach the same directory.
        Files.createSymbolicLink(node.confDir(), Path.of("../../var/lib/k3s/one/net.d"));
        Path file = Files.writeString(first.resolve("10-calico.conflist"), TestNode.CALICO);
        Files.writeString(second.resolve("10-calico.conflist"), TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.startWithoutBarrier(node, EVERY_SECOND)) {
            loop.awaitPatched(file);
            loop.awaitReady();
            // At rest: two checks made since (the barrier writes to /etc/cni/net.d, which the agent logs by its real path).
            long checks = loop.metrics.periodicChecksTotal();
            loop.await(() -> loop.metrics.periodicChecksTotal() >= checks + 2, () -> "no periodic check came");

            Path swap = node.host("/etc/cni/.net.d.swap");
            Files.createSymbolicLink(swap, Path.of("../../var/lib/k3s/two/net.d"));
            Files.move(swap, node.confDir(), StandardCopyOption.ATOMIC_MOVE);

            String reason = "the conf dir /etc/cni/net.d now leads to /var/lib/k3s/two/net.d, not to /var/lib/k3s/one/net.d";
            loop.await(() -> loop.status.notReady().stream().anyMatch(r -> r.startsWith(reason)), () -> "still " + loop.status.notReady());
            loop.awaitLog("Periodic check: " + reason);
            assertThat(loop.metrics()).contains("cnichain_ready 0\n").contains("cnichain_missed_events_total{what=\"watch\"} 1\n");
        }
    }

    @Test
    void aNodeWhereNothingWasMissedStaysQuiet(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node, EVERY_SECOND, RunningLoop.FAST, new LoopTestAdapter())) {
            loop.awaitPatched(file);
            loop.awaitReady();
            long passes = loop.metrics.reconcilesTotal();
            String checks = "cnichain_periodic_checks_total ";
            loop.await(() -> loop.metrics().contains(checks + "3\n"), () -> "fewer than 3 checks: " + loop.metrics());
            assertThat(loop.metrics()).contains("cnichain_missed_events_total{what=\"watch\"} 0\n").contains("cnichain_missed_events_total{what=\"file\"} 0\n");
            assertThat(loop.count("Periodic check")).isZero();
            assertThat(loop.metrics.reconcilesTotal()).as("no pass without a reason").isEqualTo(passes);
            assertThat(loop.status.ready()).isTrue();
        }
    }
}
