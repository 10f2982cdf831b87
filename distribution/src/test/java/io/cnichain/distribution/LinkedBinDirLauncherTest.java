package io.cnichain.distribution;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bin dir that is a link with an absolute target (the host's /opt/cni/bin -> /usr/lib/cni-chain-test-bin): the target
 * is a host path, so it is resolved under the host root. Followed by the kernel from the agent's own root, it would lead
 * into the machine running the agent instead.
 */
@ExtendWith(TempNodeExtension.class)
class LinkedBinDirLauncherTest
{
    @Test
    void aLinkedBinDirIsResolvedUnderTheHostRoot(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Path real = Files.createDirectories(node.host("/usr/lib/cni-chain-test-bin"));
        for (Path existing : Files.newDirectoryStream(node.binDir())) {
            Files.move(existing, real.resolve(existing.getFileName()));
        }
        Files.delete(node.binDir());
        Files.createSymbolicLink(node.binDir(), Path.of("/usr/lib/cni-chain-test-bin"));
        Path outside = Path.of("/usr/lib/cni-chain-test-bin");
        assertThat(outside).as("nothing of this machine's own is in the way").doesNotExist();

        RealLauncher.Run install = RealLauncher.run(node, "install");

        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(install.out()).contains("The bin dir /opt/cni/bin is reached through a link: installing into /usr/lib/cni-chain-test-bin");
        assertThat(real.resolve("linkerd-cni")).exists();
        assertThat(outside).as("the machine's own /usr/lib").doesNotExist();
        assertThat(node.read("10-calico.conflist")).contains("linkerd-cni");

        RealLauncher.Run uninstall = RealLauncher.run(node, "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(real.resolve("linkerd-cni")).doesNotExist();
    }
}
