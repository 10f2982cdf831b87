package io.cnichain.distribution;

import io.cnichain.testkit.NeedsRoot;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A conf dir the agent cannot list (an agent run without root's override of file modes, or a security module's
 * denial) may hold the file the runtime loads: it is neither "no primary" nor "nothing names the plugin". The launcher
 * runs without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (setpriv), so that a directory of mode 000 denies it as it
 * would deny any user.
 */
@NeedsRoot(commands = {"setpriv"})
@ExtendWith(TempNodeExtension.class)
class UnlistableConfDirLauncherTest
{
    private static final List<String> WITHOUT_OVERRIDE = List.of("setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--inh-caps",
            "-dac_override,-dac_read_search", "--");

    @Test
    void uninstallKeepsTheBinaryAndTheKubeconfigWhileTheConfDirCannotBeListed(TestNode node)
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(RealLauncher.run(node, "install").code()).isZero();
        Files.setPosixFilePermissions(node.confDir(), PosixFilePermissions.fromString("---------"));
        try {
            RealLauncher.Run uninstall = RealLauncher.run(WITHOUT_OVERRIDE, node, Map.of(), "uninstall");
            assertThat(uninstall.code()).as(uninstall.toString()).isEqualTo(1);
            assertThat(uninstall.out()).contains("keeping the kubeconfig and the binaries: /etc/cni/net.d: cannot be listed: permission denied, "
                    + "so a configuration there may still name linkerd-cni").doesNotContain("Removing linkerd-cni binary");
            assertThat(node.binDir().resolve("linkerd-cni")).exists();
        }
        finally {
            Files.setPosixFilePermissions(node.confDir(), PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        assertThat(node.read("10-calico.conflist")).contains("linkerd-cni");
        assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).exists();
    }

    /** Denied above it: the conf dir cannot even be looked at, so nothing says it is absent. */
    @Test
    void uninstallKeepsTheBinaryWhenTheConfDirsParentCannotBeSearched(TestNode node)
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(RealLauncher.run(node, "install").code()).isZero();
        java.nio.file.Path parent = node.confDir().getParent();
        Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("---------"));
        try {
            RealLauncher.Run uninstall = RealLauncher.run(WITHOUT_OVERRIDE, node, Map.of(), "uninstall");
            assertThat(uninstall.code()).as(uninstall.toString()).isEqualTo(1);
            assertThat(uninstall.out()).contains("/etc/cni/net.d: cannot be listed: permission denied").doesNotContain("Removing linkerd-cni binary");
            assertThat(node.binDir().resolve("linkerd-cni")).exists();
        }
        finally {
            Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        assertThat(node.read("10-calico.conflist")).contains("linkerd-cni");
    }

    @Test
    void installFailsNamingTheConfDirInsteadOfWaitingForAPrimary(TestNode node)
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Files.setPosixFilePermissions(node.confDir(), PosixFilePermissions.fromString("---------"));
        RealLauncher.Run install;
        try {
            install = RealLauncher.run(WITHOUT_OVERRIDE, node, Map.of(), "install");
        }
        finally {
            Files.setPosixFilePermissions(node.confDir(), PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        assertThat(install.code()).as(install.toString()).isEqualTo(1);
        assertThat(install.out()).contains("/etc/cni/net.d: cannot be listed: permission denied").doesNotContain("No active CNI configuration files");
        assertThat(node.binDir().resolve("linkerd-cni")).as("nothing written").doesNotExist();
        assertThat(node.read("10-calico.conflist")).doesNotContain("linkerd-cni");
    }
}
