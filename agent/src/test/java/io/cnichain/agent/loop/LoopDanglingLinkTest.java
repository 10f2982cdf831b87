package io.cnichain.agent.loop;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A link in the conf dir whose target, in another directory, is not there yet (or has gone): when it appears, the
 * runtime loads it at once, and inotify says nothing in the conf dir: the agent watches where the link points, or the
 * runtime would run a configuration without our entry until some other change came along.
 */
@Tag("reliability")
@ExtendWith(TempNodeExtension.class)
class LoopDanglingLinkTest
{
    @Test
    void aTargetAppearingInAnotherDirectoryIsPatchedWithoutAnyOtherEvent(TestNode node)
            throws Exception
    {
        Files.createDirectories(node.host("/etc/cni/oci"));
        node.link("10-oci.conflist", "../oci/10-oci.conflist-current");
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitLog("No active CNI configuration files found");
            Path real = node.replaceAtomicallyAt(node.host("/etc/cni/oci/10-oci.conflist-current"), TestNode.OCI);
            loop.awaitPatched(real);
            loop.awaitReady();
            assertThat(Files.isSymbolicLink(node.conf("10-oci.conflist"))).isTrue();
        }
    }

    @Test
    void aTargetWhoseDirectoryAppearsLaterIsPatchedToo(TestNode node)
            throws Exception
    {
        node.link("10-oci.conflist", "../oci/10-oci.conflist-current");
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitLog("No active CNI configuration files found");
            Files.createDirectories(node.host("/etc/cni/oci"));
            Path real = node.replaceAtomicallyAt(node.host("/etc/cni/oci/10-oci.conflist-current"), TestNode.OCI);
            loop.awaitPatched(real);
            loop.awaitReady();
        }
    }

    @Test
    void aLinkLeadingOutsideTheAllowedRootsGetsNoWatchThere(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        node.link("05-out.conflist", "/var/lib/elsewhere/05-out.conflist");
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(file);
            loop.barrier();
            assertThat(loop.lines("Watching")).noneMatch(line -> line.contains("/var/lib"));
        }
    }
    /**
     * The way passes a directory link: 05-oci.conflist leads to ../alias/05-oci.conflist-current, and /etc/cni/alias to
     * oci, which exists. The file would appear in /etc/cni/oci, where the way stops, not where the last link points.
     */
    @Test
    void aTargetBehindADirectoryLinkIsPatchedWhenItAppears(TestNode node)
            throws Exception
    {
        Files.createDirectories(node.host("/etc/cni/oci"));
        Files.createSymbolicLink(node.host("/etc/cni/alias"), Path.of("oci"));
        node.link("05-oci.conflist", "../alias/05-oci.conflist-current");
        Path calico = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(calico);
            loop.awaitReady();

            // The runtime now loads 05-oci.conflist, which sorts first: nothing is said in the conf dir.
            Path real = node.replaceAtomicallyAt(node.host("/etc/cni/oci/05-oci.conflist-current"), TestNode.OCI);
            loop.awaitPatched(real);
            loop.awaitReady();
        }
    }
}
