package io.cnichain.agent.loop;

import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

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
            long written = loop.metric("cnichain_patches_written_total");
            node.replaceAtomicallyAt(real, TestNode.OCI);
            loop.await(() -> loop.metric("cnichain_patches_written_total") > written, () -> "the rewrite was not patched");
            loop.awaitPatched(real);
            // And the checks that follow find nothing the events did not tell.
            long made = loop.metric("cnichain_periodic_checks_total");
            loop.advance(Duration.ofSeconds(1));
            loop.await(() -> loop.metric("cnichain_periodic_checks_total") > made, () -> "no periodic check came");
            loop.barrier();
            assertThat(loop.count("Periodic check: ")).isEqualTo(checks);
        }
    }

    /**
     * inotify tells of a change to a file of a watched directory only when it is made through that directory: a write
     * through a hard link elsewhere says nothing. The check finds the runtime's file without our entry, looks again a
     * second later (an event may still be on its way), and only then counts it missed and repairs it.
     */
    @Test
    void aChangeNoEventToldIsRepairedWhenTheNextLookFindsItStillThere(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node, "periodicCheckSeconds: 5\n", RunningLoop.FAST, new LoopTestAdapter())) {
            loop.awaitPatched(file);
            loop.awaitReady();
            Path elsewhere = Files.createLink(Files.createDirectories(node.root().resolve("elsewhere")).resolve("calico"), file);
            Files.writeString(elsewhere, TestNode.CALICO, StandardOpenOption.TRUNCATE_EXISTING);
            loop.barrierWhileUnseen();
            assertThat(PluginList.patched(file)).as("no event told").isFalse();

            loop.advance(Duration.ofSeconds(5));
            loop.await(() -> loop.metric("cnichain_periodic_checks_total") == 1, () -> "no periodic check came");
            loop.advance(PeriodicCheck.SETTLE.minusMillis(1));
            loop.barrierWhileUnseen();
            assertThat(loop.metrics()).as("seen once: its event may be on its way").contains("cnichain_missed_events_total{what=\"file\"} 0\n");
            assertThat(PluginList.patched(file)).isFalse();

            loop.advance(Duration.ofMillis(1));
            loop.awaitPatched(file);
            loop.awaitLog("Periodic check: the runtime's file /etc/cni/net.d/10-calico.conflist lacks our entry; no event told. Looking at everything");
            assertThat(loop.metric("cnichain_periodic_checks_total")).isEqualTo(2);
            assertThat(loop.metrics()).contains("cnichain_missed_events_total{what=\"file\"} 1\n").contains("cnichain_missed_events_total{what=\"watch\"} 0\n");
            loop.awaitReady();
        }
    }

    /**
     * libcni 1.1 (containerd 1.6) and 1.3 load different files: a broken drop-in of 05-calico.conflist's network makes
     * 1.3 skip it for 10-oci.conflist, while 1.1, which reads no drop-ins, loads 05-calico.conflist. Both carry our
     * entry. A change no event tells then takes it out of the file 1.1 loads: the check finds that one too.
     */
    @Test
    void aChangeNoEventToldToTheFileAnOlderLibcniLoadsIsRepaired(TestNode node)
            throws Exception
    {
        Path calico = node.write("05-calico.conflist", TestNode.CALICO);
        node.write("k8s-pod-network/broken.conf", "");
        Path oci = node.write("10-oci.conflist", TestNode.OCI);
        try (RunningLoop loop = RunningLoop.start(node, "periodicCheckSeconds: 5\n", RunningLoop.FAST, new LoopTestAdapter())) {
            loop.awaitPatched(calico);
            loop.awaitPatched(oci);
            loop.awaitReady();
            Path elsewhere = Files.createLink(Files.createDirectories(node.root().resolve("elsewhere")).resolve("calico"), calico);
            Files.writeString(elsewhere, TestNode.CALICO, StandardOpenOption.TRUNCATE_EXISTING);
            loop.barrierWhileUnseen();

            loop.advance(Duration.ofSeconds(5));
            loop.await(() -> loop.metric("cnichain_periodic_checks_total") == 1, () -> "no periodic check came");
            loop.advance(PeriodicCheck.SETTLE);
            loop.awaitPatched(calico);
            loop.awaitLog("Periodic check: the runtime's file /etc/cni/net.d/05-calico.conflist (what libcni 1.1 (containerd 1.6) loads) lacks our "
                    + "entry; no event told. Looking at everything");
            loop.awaitReady();
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
            long passes = loop.metric("cnichain_reconciles_total");
            for (int check = 1; check <= 3; check++) {
                long made = loop.metric("cnichain_periodic_checks_total");
                loop.advance(Duration.ofSeconds(1));
                loop.await(() -> loop.metric("cnichain_periodic_checks_total") > made, () -> "no periodic check came");
            }
            loop.barrier();
            assertThat(loop.metrics()).contains("cnichain_missed_events_total{what=\"watch\"} 0\n").contains("cnichain_missed_events_total{what=\"file\"} 0\n");
            assertThat(loop.count("Periodic check")).isZero();
            assertThat(loop.metric("cnichain_reconciles_total")).as("no pass without a reason").isEqualTo(passes);
            assertThat(loop.status.ready()).isTrue();
        }
    }

    /**
     * A pass that fails (here a plug-in adapter that throws, and is disabled for it) has no event or timer of its own
     * to try again, while the next pass may well succeed (another adapter decides): the periodic check makes it.
     */
    @Test
    void aFailedPassIsTriedAgainAtThePeriodicCheck(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        FailingAdapter failing = new FailingAdapter();
        try (RunningLoop loop = RunningLoop.start(node, failing)) {
            loop.awaitPatched(file);
            loop.awaitReady();
            failing.fail = true;
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            loop.awaitLog("adapter failing: is disabled");
            loop.barrier();
            assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason).contains("is disabled"));

            loop.advance(Duration.ofSeconds(1));
            loop.barrier();
            assertThat(loop.status.notReady()).as("nothing asks for a pass before the check").isNotEmpty();
            loop.advance(Duration.ofSeconds(60));
            loop.awaitPatched(file);
            loop.awaitReady();
            assertThat(loop.lines("Using adapter")).last().asString().contains(LoopTestAdapter.NAME);
        }
    }

    /** Preferred by the selector (a platform file's score) until it throws. */
    private static final class FailingAdapter
            implements io.cnichain.spi.CniPlatformAdapter
    {
        volatile boolean fail;

        @Override
        public String name()
        {
            return "failing";
        }

        @Override
        public io.cnichain.spi.Detection detect(io.cnichain.spi.NodeView node, io.cnichain.spi.AdapterSettings settings)
        {
            return io.cnichain.spi.Detection.of(io.cnichain.spi.Detection.PLATFORM_FILE, "the test says so");
        }

        @Override
        public java.util.List<io.cnichain.spi.ConfigTarget> authoritativeConfigs(io.cnichain.spi.NodeView node, io.cnichain.spi.AdapterSettings settings)
        {
            if (fail) {
                throw new IllegalStateException("a bug of the adapter's");
            }
            return node.effectiveConfig().map(entry -> java.util.List.of(io.cnichain.spi.ConfigTarget.of(entry, "the runtime's"))).orElse(java.util.List.of());
        }
    }
}
