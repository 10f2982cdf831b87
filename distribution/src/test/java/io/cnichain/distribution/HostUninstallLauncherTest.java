package io.cnichain.distribution;

import io.cnichain.core.install.BinaryInstaller;
import io.cnichain.testkit.NeedsRoot;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code cni-chain uninstall --host-root /} by hand on a node, as the README says, after the DaemonSet installed: the
 * image's directory is not there, and {@code CONTAINER_CNI_BIN_DIR}'s default is the bin dir itself. The record install
 * kept beside the binaries ({@value BinaryInstaller#RECORD}) decides what is ours; the host's binaries are the host's.
 * Run in a mount namespace of its own where the test node's directories are the host's ({@link RealLauncher#runOnTheHost}).
 */
@NeedsRoot(commands = {"unshare", "mount"})
@ExtendWith(TempNodeExtension.class)
class HostUninstallLauncherTest
{
    /** Uninstall as an operator runs it on the host: no CONTAINER_CNI_BIN_DIR, whose default is then the bin dir itself. */
    static RealLauncher.Run uninstallOnTheHost(TestNode node)
    {
        Map<String, String> env = new HashMap<>();
        env.put("CONTAINER_CNI_BIN_DIR", null);
        return RealLauncher.runOnTheHost(node, env, "uninstall");
    }

    @Test
    void theRecordDecidesAndTheBinaryAndTheRecordGo(TestNode node)
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        node.binaries("bridge");
        assertThat(RealLauncher.run(node, "install").code()).isZero();

        RealLauncher.Run uninstall = uninstallOnTheHost(node);

        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(uninstall.out()).contains("Removing linkerd-cni binary: /opt/cni/bin/linkerd-cni");
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
        assertThat(node.binDir().resolve(BinaryInstaller.RECORD)).doesNotExist();
        assertThat(node.binDir().resolve("bridge")).as("the host's").exists();
        assertThat(node.read("10-calico.conflist")).doesNotContain("linkerd-cni");
        assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).doesNotExist();
    }

    @Test
    void theHostsBinariesThatThePrimaryNamesAreNotOursAndHoldNothingBack(TestNode node)
    {
        // The bin dir's files are not the image's: that the primary still names calico and portmap keeps nothing of ours.
        node.write("10-calico.conflist", TestNode.CALICO);
        node.binaries("calico", "portmap");
        assertThat(RealLauncher.run(node, "install").code()).isZero();

        RealLauncher.Run uninstall = uninstallOnTheHost(node);

        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(uninstall.out()).doesNotContain("still name");
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
        assertThat(node.binDir().resolve("calico")).exists();
        assertThat(node.binDir().resolve("portmap")).exists();
    }

    @Test
    void withoutARecordTheBinaryStaysAndUninstallSaysWhyInOneLine(TestNode node)
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(RealLauncher.run(node, "install").code()).isZero();
        Files.delete(node.binDir().resolve(BinaryInstaller.RECORD));

        RealLauncher.Run uninstall = uninstallOnTheHost(node);

        assertThat(uninstall.code()).as(uninstall.toString()).isEqualTo(1);
        assertThat(uninstall.out()).contains("error: /opt/cni/bin/linkerd-cni: left in place: the binary source /opt/cni/bin (CONTAINER_CNI_BIN_DIR) "
                + "is the CNI bin dir itself, so no install copied it from there, and no record of an install (/opt/cni/bin/.cni-chain.installed) "
                + "names it as cni-chain's; remove the file by hand if cni-chain put it there\n");
        assertThat(node.binDir().resolve("linkerd-cni")).exists();
        assertThat(node.read("10-calico.conflist")).doesNotContain("linkerd-cni");
    }
}
