package io.cnichain.agent.loop;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static io.cnichain.testkit.PluginList.patched;
import static io.cnichain.testkit.PluginList.plugins;
import static org.assertj.core.api.Assertions.assertThat;

/** Every way a primary writes its file, against the loop in-process, on real inotify. */
@ExtendWith(TempNodeExtension.class)
class LoopRewriteTest
{
    @Test
    void patchedAtStartAndOurOwnWriteComingBackIsIgnored(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(file);
            loop.awaitLog("Ignoring event: CREATE /etc/cni/net.d/10-calico.conflist; written by us");
            loop.barrier();
            assertThat(loop.writes("/etc/cni/net.d/10-calico.conflist")).isEqualTo(1);
            assertThat(loop.count("New/changed file [/etc/cni/net.d/10-calico.conflist]")).isZero();
            assertThat(node.binDir().resolve("linkerd-cni")).exists();
            assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).exists();

            // After a rewrite by the primary, the echo of our patch arrives alone: no pass at all.
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            loop.awaitLog("New/changed file [/etc/cni/net.d/10-calico.conflist] detected; re-installing");
            loop.awaitCount("Ignoring event: CREATE /etc/cni/net.d/10-calico.conflist; written by us", 2);
            loop.barrier();
            assertThat(loop.writes("/etc/cni/net.d/10-calico.conflist")).isEqualTo(2);
            assertThat(loop.lines("Put our entry back")).as("a re-patch says why, and is no creation")
                    .containsExactly("INFO Put our entry back in /etc/cni/net.d/10-calico.conflist: another writer removed it");
            assertThat(loop.metrics()).containsPattern("cnichain_reconciles_total\\{result=\"echo\"} [1-9]");
        }
    }

    /** The kubeconfig's own events ask for the kubeconfig: a pass for the configurations alone would find it there and go. */
    @Test
    void aKubeconfigLeftWithAnotherModeIsWrittenAgain(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        Path kubeconfig = node.conf("ZZZ-linkerd-cni-kubeconfig");
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(file);
            java.util.Set<java.nio.file.attribute.PosixFilePermission> mode = Files.getPosixFilePermissions(kubeconfig);
            Files.setPosixFilePermissions(kubeconfig, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));
            loop.awaitLog("Wrote kubeconfig /etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig: its mode was not");
            assertThat(Files.getPosixFilePermissions(kubeconfig)).isEqualTo(mode);
        }
    }

    @Test
    void replacedAtomicallyThroughAHiddenTempFileIsRepatchedEachTime(TestNode node)
            throws Exception
    {
        Path file = node.write("05-cilium.conflist", TestNode.CILIUM);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(file);
            for (int restart = 1; restart <= 3; restart++) {
                node.replaceAtomically("05-cilium.conflist", TestNode.CILIUM);
                loop.awaitWrites("/etc/cni/net.d/05-cilium.conflist", 1 + restart);
                loop.awaitPatched(file);
            }
            loop.barrier();
            assertThat(loop.writes("/etc/cni/net.d/05-cilium.conflist")).isEqualTo(4);
            assertThat(loop.writes("/etc/cni/net.d/.05-cilium")).as("the hidden temp file is never patched").isZero();
        }
    }

    @Test
    void rewrittenInPlaceInTwoPartsIsPatchedOnceAfterTheSecond(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        String full = node.read("10-calico.conflist");
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(file);
            // calico-node on start: truncate, then write, here in two pieces.
            String firstPart = full.substring(0, full.length() / 2);
            node.rewriteInPlace("10-calico.conflist", firstPart);
            loop.awaitLog("Waiting for /etc/cni/net.d/10-calico.conflist");
            loop.barrier();
            assertThat(node.read("10-calico.conflist")).as("nothing is written from half a file").isEqualTo(firstPart);
            Files.writeString(file, full.substring(firstPart.length()), StandardOpenOption.APPEND);
            loop.awaitPatched(file);
            loop.barrier();
            assertThat(loop.writes("/etc/cni/net.d/10-calico.conflist")).as("once at start, once after the second part").isEqualTo(2);
            assertThat(plugins(file)).containsExactly("calico", "portmap", "linkerd-cni");
        }
    }

    @Test
    void copiedOverOnEveryStartAsK3sDoesWithFlannel(TestNode node)
            throws Exception
    {
        String flannel = "{\"name\":\"cbr0\",\"cniVersion\":\"1.0.0\",\"plugins\":[{\"type\":\"flannel\",\"delegate\":{\"hairpinMode\":true}},"
                + "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}}]}";
        Path file = node.write("10-flannel.conflist", flannel);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(file);
            for (int start = 1; start <= 3; start++) {
                node.rewriteInPlace("10-flannel.conflist", flannel);
                loop.awaitWrites("/etc/cni/net.d/10-flannel.conflist", 1 + start);
                loop.awaitPatched(file);
            }
        }
    }

    @Test
    void movedInFromAnotherDirectoryAsAwsDoes(TestNode node)
            throws Exception
    {
        try (RunningLoop loop = RunningLoop.start(node)) {
            Path prepared = node.writeAt(node.host("/var/run/aws-node/10-aws.conflist"),
                    "{\"cniVersion\":\"0.4.0\",\"name\":\"aws-cni\",\"plugins\":[{\"type\":\"aws-cni\"},{\"type\":\"egress-cni\"}]}");
            Path file = node.moveIn(prepared, "10-aws.conflist");
            loop.awaitPatched(file);
        }
    }

    @Test
    void nothingIsCreatedUntilAPrimaryWritesItsFile(TestNode node)
            throws Exception
    {
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitLog("No active CNI configuration files found in /etc/cni/net.d; waiting for the primary network plugin to write one");
            node.write("calico-kubeconfig", "apiVersion: v1\nkind: Config\n");
            node.write("10-calico.conflist.bak", TestNode.CALICO);
            node.write("notes.txt", "not a configuration");
            loop.barrier();
            assertThat(node.listing()).containsExactly("10-calico.conflist.bak", "calico-kubeconfig", "notes.txt");
            assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
            assertThat(loop.count("No active CNI configuration files found")).as("said once").isEqualTo(1);

            Path file = node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            loop.awaitPatched(file);
            assertThat(node.binDir().resolve("linkerd-cni")).exists();
            assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).exists();
            assertThat(patched(node.conf("10-calico.conflist.bak"))).isFalse();
        }
    }

    @Test
    void aSinglePluginConfWrittenAfterStartIsConvertedOnce(TestNode node)
            throws Exception
    {
        try (RunningLoop loop = RunningLoop.start(node)) {
            node.replaceAtomically("05-cilium.conf", TestNode.CILIUM_CONF);
            loop.awaitPatched(node.conf("05-cilium.conflist"));
            loop.await(() -> !Files.exists(node.conf("05-cilium.conf")), () -> "05-cilium.conf is still there");
            loop.barrier();
            assertThat(node.listing()).containsExactly("05-cilium.conflist", "ZZZ-linkerd-cni-kubeconfig");
            assertThat(loop.count("Renaming /etc/cni/net.d/05-cilium.conf extension to .conflist")).isEqualTo(1);
        }
    }

    @Test
    void aPrimaryDeletingItsFileLeavesNothingToPatch(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(file);
            Files.delete(file);
            loop.awaitLog("Detected event: DELETE /etc/cni/net.d/10-calico.conflist; the file is gone");
            loop.await(() -> loop.status.notReady().contains("no primary CNI configuration in /etc/cni/net.d yet"), () -> "still " + loop.status.notReady());
        }
    }
}
