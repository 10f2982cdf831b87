package io.cnichain.distribution;

import io.cnichain.testkit.NeedsRoot;
import io.cnichain.testkit.NeedsRootExtension;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A file bind-mounted over the effective configuration: the runtime loads the mounted file, and a rename over a mount
 * point fails (EBUSY), so uninstall cannot take our entry out of it. The binary and the kubeconfig it names stay, and
 * uninstall says which file and exits 1. (In a cluster the agent sees such a mount only because its host directories
 * are mounted with HostToContainer propagation; ManifestsTest checks every rendering does.)
 */
@NeedsRoot(commands = {"mount", "umount"})
@ExtendWith(TempNodeExtension.class)
class BindMountedConfigLauncherTest
{
    @Test
    void aPatchedFileMountedOverTheEffectiveFileKeepsTheBinary(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(RealLauncher.run(node, "install").code()).isZero();
        Path mounted = Files.writeString(node.root().resolve("mounted.conflist"), node.read("10-calico.conflist"));
        NeedsRootExtension.run("mount", "--bind", mounted.toString(), file.toString());
        try {
            RealLauncher.Run uninstall = RealLauncher.run(node, "uninstall");

            assertThat(uninstall.code()).as(uninstall.toString()).isEqualTo(1);
            assertThat(uninstall.out()).contains("/etc/cni/net.d/10-calico.conflist: cannot be written: ", "Device or resource busy")
                    .contains("keeping the kubeconfig and the binaries: [/etc/cni/net.d/10-calico.conflist] still name linkerd-cni")
                    .doesNotContain("Removing linkerd-cni binary");
            assertThat(node.read("10-calico.conflist")).contains("linkerd-cni");
            assertThat(node.binDir().resolve("linkerd-cni")).exists();
            assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).exists();
        }
        finally {
            NeedsRootExtension.run("umount", file.toString());
        }
    }
}
