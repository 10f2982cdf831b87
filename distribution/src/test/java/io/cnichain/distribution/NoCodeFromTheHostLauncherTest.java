package io.cnichain.distribution;

import io.cnichain.testkit.KubeletVolume;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A ConfigMap edit that points pluginsDir or sourceBinDir at the host's side of the mounts would run code as root on
 * every node: the adapter jars the agent loads, every file it copies into the bin dir. Exit 2, naming the setting,
 * and nothing on the node changes.
 */
@ExtendWith(TempNodeExtension.class)
class NoCodeFromTheHostLauncherTest
{
    @Test
    void pluginsDirOrSourceBinDirInsideTheHostRootExitsTwoNamingIt(TestNode node)
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        String before = node.read("10-calico.conflist");
        for (String setting : new String[] {"pluginsDir", "sourceBinDir"}) {
            Path dir = node.host("/opt/cni/bin");
            Path yaml = KubeletVolume.configMapFile(node.root().resolve("config-" + setting), "cni-chain.yaml", setting + ": " + dir + "\n");
            RealLauncher.Run install = RealLauncher.run(node, java.util.Map.of("CONTAINER_CNI_BIN_DIR", ""), "install", "--config", yaml.toString());
            assertThat(install.code()).as(install.toString()).isEqualTo(2);
            assertThat(install.out()).contains(yaml + ": key '" + setting + "': " + setting + " " + dir + " is inside ")
                    .contains("comes only from the image's own directories");
            assertThat(node.read("10-calico.conflist")).isEqualTo(before);
            assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
        }
    }
}
