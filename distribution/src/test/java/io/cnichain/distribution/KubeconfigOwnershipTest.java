package io.cnichain.distribution;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The kubeconfig's name may be another tool's file: only a file that is ours is ever replaced or removed. */
@ExtendWith(TempNodeExtension.class)
class KubeconfigOwnershipTest
{
    private static final String CALICO_KUBECONFIG = "# Calico's own\napiVersion: v1\nkind: Config\nusers: []\n";

    @Test
    void anotherToolsFileUnderTheKubeconfigsNameIsNeverReplacedNorRemoved(TestNode node)
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Path theirs = Files.writeString(node.conf("calico-kubeconfig"), CALICO_KUBECONFIG);
        Map<String, String> env = Map.of("KUBECONFIG_FILE_NAME", "calico-kubeconfig");

        RealLauncher.Run install = RealLauncher.run(node, env, "install");
        assertThat(install.code()).as(install.toString()).isEqualTo(1);
        assertThat(install.out()).contains("/etc/cni/net.d/calico-kubeconfig: exists and was not written by cni-chain or Linkerd's installer")
                .contains("refusing to replace it; name another file (kubeconfig.fileName, KUBECONFIG_FILE_NAME)");
        assertThat(Files.readString(theirs)).isEqualTo(CALICO_KUBECONFIG);

        RealLauncher.Run uninstall = RealLauncher.run(node, env, "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isEqualTo(1);
        assertThat(uninstall.out()).contains("/etc/cni/net.d/calico-kubeconfig: exists and was not written by cni-chain").contains("left in place");
        assertThat(Files.readString(theirs)).isEqualTo(CALICO_KUBECONFIG);
    }

    /** The header of the kubeconfig Linkerd's Go installer writes (internal/cni's template), as a switch finds it. */
    @Test
    void theKubeconfigOfLinkerdsGoInstallerIsTakenOver(TestNode node)
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Path kubeconfig = Files.writeString(node.conf("ZZZ-linkerd-cni-kubeconfig"),
                "# kubeconfig file for linkerd.io/cni-plugin\napiVersion: v1\nkind: Config\nusers:\n- name: linkerd-cni\n  user:\n    token: old\n");

        RealLauncher.Run install = RealLauncher.run(node, "install");
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(Files.readString(kubeconfig)).startsWith("# Kubeconfig file for linkerd CNI plugin.\n").doesNotContain("token: old");
    }

    @Test
    void aKubeconfigReplacedByALinkIsLeftInPlace(TestNode node)
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(RealLauncher.run(node, "install").code()).isZero();
        Path kubeconfig = node.conf("ZZZ-linkerd-cni-kubeconfig");
        Path elsewhere = Files.writeString(node.host("/root-kubeconfig"), "apiVersion: v1\nkind: Config\n");
        Files.delete(kubeconfig);
        Files.createSymbolicLink(kubeconfig, elsewhere);

        RealLauncher.Run uninstall = RealLauncher.run(node, "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isEqualTo(1);
        assertThat(uninstall.out()).contains("/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig: is a symbolic link, not the kubeconfig cni-chain writes: left in place");
        assertThat(Files.isSymbolicLink(kubeconfig)).isTrue();
        assertThat(elsewhere).exists();
    }
}
