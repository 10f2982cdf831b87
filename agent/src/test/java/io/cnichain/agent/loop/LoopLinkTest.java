package io.cnichain.agent.loop;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;

import static io.cnichain.testkit.PluginList.patched;
import static org.assertj.core.api.Assertions.assertThat;

/** Links: we never write them, so an event on one is never our echo; what they lead to is watched. */
@ExtendWith(TempNodeExtension.class)
class LoopLinkTest
{
    @Test
    void aLinkCreatedToAFileWePatchedIsNotTakenForOurEcho(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(file);
            String patchedContent = node.read("10-calico.conflist");

            node.link("20-alias.conflist", "10-calico.conflist");
            loop.awaitLog("Link /etc/cni/net.d/20-alias.conflist created; it resolves to /etc/cni/net.d/10-calico.conflist");
            loop.awaitLog("New/changed file [/etc/cni/net.d/20-alias.conflist] detected; re-installing");
            loop.barrier();
            assertThat(loop.count("Ignoring event: CREATE /etc/cni/net.d/20-alias.conflist")).isZero();
            assertThat(loop.writes("")).as("the target already holds our entry").isEqualTo(1);
            assertThat(node.read("10-calico.conflist")).isEqualTo(patchedContent);
        }
    }

    @Test
    void aLinkRepointedIsFollowedAlsoBackToAFileWePatchedBefore(TestNode node)
            throws Exception
    {
        Path v1 = node.write("10-oci.conflist-v1", TestNode.OCI);
        Path v2 = node.write("10-oci.conflist-v2", TestNode.OCI);
        node.link("10-oci.conflist", "10-oci.conflist-v1");
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(v1);

            node.relink("10-oci.conflist", "10-oci.conflist-v2");
            loop.awaitLog("Link /etc/cni/net.d/10-oci.conflist created; it resolves to /etc/cni/net.d/10-oci.conflist-v2");
            loop.awaitPatched(v2);

            // Back to v1, which we patched: still someone else's doing, and the pass runs (and finds nothing to write).
            node.relink("10-oci.conflist", "10-oci.conflist-v1");
            loop.awaitLog("Link /etc/cni/net.d/10-oci.conflist created; it resolves to /etc/cni/net.d/10-oci.conflist-v1");
            loop.barrier();
            assertThat(loop.count("Ignoring event: CREATE /etc/cni/net.d/10-oci.conflist;")).isZero();
            assertThat(loop.writes("")).isEqualTo(2);
            assertThat(patched(v1)).isTrue();
            assertThat(Files.readSymbolicLink(node.conf("10-oci.conflist"))).isEqualTo(Path.of("10-oci.conflist-v1"));
        }
    }

    @Test
    void aLinkCreatedAfterStartExposesAFileThatIsThenPatched(TestNode node)
            throws Exception
    {
        Path current = node.write("10-oci.conflist-current", TestNode.OCI);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitLog("No active CNI configuration files found");
            node.link("10-oci.conflist", "10-oci.conflist-current");
            loop.awaitLog("Link /etc/cni/net.d/10-oci.conflist created; it resolves to /etc/cni/net.d/10-oci.conflist-current");
            loop.awaitPatched(current);
            assertThat(Files.isSymbolicLink(node.conf("10-oci.conflist"))).isTrue();
        }
        // A new agent, which never wrote the file, sees the primary rewrite it behind its link: a file the runtime loads,
        // said so, and never summed up among the files it does not load.
        try (RunningLoop loop = RunningLoop.start(node)) {
            node.replaceAtomically("10-oci.conflist-current", TestNode.OCI);
            loop.awaitLog("Created CNI config /etc/cni/net.d/10-oci.conflist-current");
            loop.awaitPatched(current);
            loop.barrier();
            assertThat(loop.lines("New/changed file [/etc/cni/net.d/10-oci.conflist-current] detected")).isNotEmpty();
            assertThat(loop.lines("that the runtime does not load as configurations")).as("a file about to be patched is not called unloaded")
                    .noneMatch(line -> line.contains("10-oci.conflist-current"));
        }
    }

    @Test
    void aDanglingLinkIsReportedAndNothingIsWrittenThroughIt(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(file);
            node.link("05-next.conflist", "05-next.conflist-missing");
            loop.awaitLog("Link /etc/cni/net.d/05-next.conflist created; it does not resolve: /etc/cni/net.d/05-next.conflist: dangling link");
            loop.barrier();
            assertThat(node.conf("05-next.conflist-missing")).doesNotExist();
            assertThat(loop.writes("")).isEqualTo(1);
        }
    }

    @Test
    void aTargetInAnotherDirectoryIsWatchedThere(TestNode node)
            throws Exception
    {
        Path real = node.writeAt(node.host("/etc/cni/oci/10-oci.conflist-current"), TestNode.OCI);
        node.link("10-oci.conflist", "../oci/10-oci.conflist-current");
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(real);
            loop.awaitLog("Watching [" + node.host("/etc/cni/oci") + "] as well");
            // inotify says nothing in the conf dir about this: only the watch on the target's directory sees it.
            node.replaceAtomicallyAt(real, TestNode.OCI);
            loop.awaitLog("New/changed file [/etc/cni/oci/10-oci.conflist-current] detected; re-installing");
            loop.awaitWrites("/etc/cni/oci/10-oci.conflist-current", 2);
            loop.awaitPatched(real);
            loop.barrier();
            assertThat(loop.writes("/etc/cni/oci/10-oci.conflist-current")).isEqualTo(2);
            assertThat(Files.isSymbolicLink(node.conf("10-oci.conflist"))).isTrue();

            // The link now leads into the conf dir: the other directory's watch goes (a node has only so many).
            Path local = node.write("10-oci.conflist-local", TestNode.OCI);
            node.relink("10-oci.conflist", "10-oci.conflist-local");
            loop.awaitPatched(local);
            loop.barrier();
            String there = " in " + node.host("/etc/cni/oci");
            long heard = loop.count(there);
            node.replaceAtomicallyAt(real, TestNode.OCI);
            loop.barrier();
            assertThat(loop.count(there)).as("events from a directory no longer watched").isEqualTo(heard);
        }
    }

    @Test
    void aLinkHalfWayInADirectoryOfItsOwnIsWatchedThere(TestNode node)
            throws Exception
    {
        Path v1 = node.writeAt(node.host("/etc/cni/oci/10-oci.conflist-v1"), TestNode.OCI);
        Path v2 = node.writeAt(node.host("/etc/cni/oci/10-oci.conflist-v2"), TestNode.OCI);
        Path halfWay = node.linkAt(node.host("/etc/cni/current/10-oci.conflist"), "../oci/10-oci.conflist-v1");
        node.link("10-oci.conflist", "../current/10-oci.conflist");
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(v1);
            loop.awaitLog("Arming a watch on " + node.host("/etc/cni/current"));
            // Re-pointed in one rename, as ln -sfn does: nothing is said in the conf dir, nor in the targets' directory.
            Path temp = Files.createSymbolicLink(halfWay.resolveSibling(".10-oci.conflist.tmp"), Path.of("../oci/10-oci.conflist-v2"));
            Files.move(temp, halfWay, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            loop.awaitLog("New/changed file [/etc/cni/current/10-oci.conflist] detected; re-installing");
            loop.awaitPatched(v2);
        }
    }

    @Test
    void aLinkBeforeTheRuntimesFileWhoseTargetInAnotherDirectoryBecomesValidIsPatched(TestNode node)
            throws Exception
    {
        // The runtime skips (CRI-O) or fails on (containerd) a list with no plugins: calico's is the one it loads, for now.
        Path real = node.writeAt(node.host("/etc/cni/oci/05-oci.conflist-current"), "{\"cniVersion\":\"0.3.1\",\"name\":\"oci\",\"plugins\":[]}");
        node.link("05-oci.conflist", "../oci/05-oci.conflist-current");
        Path calico = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(calico);
            loop.awaitReady();
            // The primary finishes its list where the link leads: nothing is said in the conf dir.
            node.replaceAtomicallyAt(real, TestNode.OCI);
            loop.awaitPatched(real);
            loop.awaitReady();
        }
    }
}
