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
}
