package io.cnichain.agent.loop;

import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.NeedsRoot;
import io.cnichain.testkit.NeedsRootExtension;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What changes under the agent without an inotify event, with the periodic check at its default (60 s), so that only
 * the look every second can tell: readiness is false at the first look after the runtime's file lacks our entry.
 */
@ExtendWith(TempNodeExtension.class)
@NeedsRoot(commands = {"mount", "umount"})
class LoopGroundTest
{
    @Test
    void aConfDirLinkRepointedIsNotReadyWithinTwoSeconds(TestNode node)
            throws Exception
    {
        // The link is a directory above the conf dir. The watch on the conf dir's ancestors sees its rename too; the
        // look every second would see it where no watch does.
        Path first = Files.createDirectories(node.host("/var/lib/k3s/one/net.d"));
        Path second = Files.createDirectories(node.host("/var/lib/k3s/two/net.d"));
        Files.delete(node.confDir());
        Files.delete(node.confDir().getParent());
        Files.createSymbolicLink(node.confDir().getParent(), Path.of("../var/lib/k3s/one"));
        Path file = Files.writeString(first.resolve("10-calico.conflist"), TestNode.CALICO);
        Files.writeString(second.resolve("10-calico.conflist"), TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.startWithoutBarrier(node)) {
            loop.awaitPatched(file);
            loop.awaitReady();

            Path swap = node.host("/etc/.cni.swap");
            Files.createSymbolicLink(swap, Path.of("../var/lib/k3s/two"));
            Files.move(swap, node.confDir().getParent(), StandardCopyOption.ATOMIC_MOVE);
            loop.advanceNow(Duration.ofSeconds(1));
            loop.await(() -> !loop.status.ready(), () -> "still ready");
            assertThat(loop.status.notReady()).anyMatch(reason -> reason.startsWith("the conf dir /etc/cni/net.d now leads to /var/lib/k3s/two/net.d"));

            // Back where the agent works: ready again at the next look.
            Files.createSymbolicLink(swap, Path.of("../var/lib/k3s/one"));
            Files.move(swap, node.confDir().getParent(), StandardCopyOption.ATOMIC_MOVE);
            loop.advance(Duration.ofSeconds(1));
            loop.awaitReady();
        }
    }

    @Test
    void aTmpfsMountedOverTheConfDirIsSeenAndPatched(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try {
            try (RunningLoop loop = RunningLoop.start(node)) {
                loop.awaitPatched(file);
                NeedsRootExtension.run("mount", "-t", "tmpfs", "-o", "size=1m", "cni-chain-ground", node.confDir().toString());
                // The primary writes its file on the new mount: no event reaches the watch on the hidden directory.
                Files.writeString(node.conf("10-calico.conflist"), TestNode.CALICO);
                loop.advanceNow(Duration.ofSeconds(1));
                loop.await(() -> PluginList.patched(file), () -> "the file on the mount was not patched");
                loop.awaitLog("the mounts at or above /etc/cni/net.d or /opt/cni/bin changed; looking at everything again");
                loop.awaitReady();

                // And the mount is watched: the primary's next rewrite is repaired as any other.
                Files.writeString(node.conf("10-calico.conflist"), TestNode.CALICO);
                loop.awaitPatched(file);
            }
        }
        finally {
            NeedsRootExtension.run("umount", node.confDir().toString());
        }
    }

    /**
     * A volume mounted over the service account's directory, which the look every second does not look at: the watch
     * stays on the hidden directory, and only the periodic check can tell. It finds another directory there, looks again
     * a second later (an event may still be on its way), then watches it anew and looks at everything: the kubeconfig
     * gets the new volume's token, and the next rotation there is an event.
     */
    @Test
    void aVolumeMountedOverAWatchedDirectoryIsWatchedAgainByThePeriodicCheck(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        Path kubeconfig = node.conf("ZZZ-linkerd-cni-kubeconfig");
        Path account = node.serviceAccountDir();
        String ca = Files.readString(account.resolve("ca.crt"));
        try {
            try (RunningLoop loop = RunningLoop.start(node, "periodicCheckSeconds: 5\n", RunningLoop.FAST, new LoopTestAdapter())) {
                loop.awaitPatched(file);
                loop.awaitReady();
                NeedsRootExtension.run("mount", "-t", "tmpfs", "-o", "size=1m", "cni-chain-check", account.toString());
                Files.writeString(account.resolve("ca.crt"), ca);
                Files.writeString(account.resolve("token"), "mounted-token\n");
                loop.advance(Duration.ofSeconds(5));
                loop.await(() -> loop.metric("cnichain_periodic_checks_total") == 1, () -> "no periodic check came");
                loop.advance(PeriodicCheck.SETTLE.minusMillis(1));
                loop.barrier();
                assertThat(loop.metrics()).as("seen once: its event may be on its way").contains("cnichain_missed_events_total{what=\"watch\"} 0\n");
                assertThat(RunningLoop.read(kubeconfig)).doesNotContain("mounted-token");

                loop.advance(Duration.ofMillis(1));
                loop.await(() -> RunningLoop.read(kubeconfig).contains("token: mounted-token"), () -> "the kubeconfig still holds " + RunningLoop.read(kubeconfig));
                loop.awaitLog("Periodic check: " + account + " was replaced by another directory, but its watch stayed with the old one; no event told. "
                        + "Watching it again and looking at everything");
                assertThat(loop.metrics()).contains("cnichain_missed_events_total{what=\"watch\"} 1\n").contains("cnichain_missed_events_total{what=\"file\"} 0\n");

                Files.writeString(account.resolve("token"), "rotated-token\n");
                loop.await(() -> RunningLoop.read(kubeconfig).contains("token: rotated-token"), () -> "the rotation was not seen");
                assertThat(loop.metric("cnichain_periodic_checks_total")).isEqualTo(2);
            }
        }
        finally {
            NeedsRootExtension.run("umount", account.toString());
        }
    }
}
