package io.cnichain.distribution;

import io.cnichain.core.install.BinaryInstaller;
import io.cnichain.core.json.GoJsonParser;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No uninstall removes a binary that a file the runtime may load still names: a configuration names a missing binary,
 * and every pod's network setup then fails. Each case through the launcher, as an operator runs it.
 */
@ExtendWith(TempNodeExtension.class)
class UninstallKeepsWhatIsNamedTest
{
    /** The list grew past what we read (libcni 1.3 loads it, our entry included): our limit is not the runtime's. */
    @Test
    void aListPastOurValueLimitThatStillNamesThePluginKeepsTheBinary(TestNode node)
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(RealLauncher.run(node, "install").code()).isZero();
        String patched = node.read("10-calico.conflist");
        StringBuilder grown = new StringBuilder(patched.substring(0, patched.indexOf('{') + 1)).append("\"excludeCIDRs\":[");
        for (int i = 0; i < GoJsonParser.MAX_VALUES + 5000; i++) {
            grown.append(i == 0 ? "" : ",").append("\"10.").append(i / 65536 % 256).append('.').append(i / 256 % 256).append('.').append(i % 256).append("/32\"");
        }
        grown.append("],").append(patched.substring(patched.indexOf('{') + 1));
        Files.writeString(node.conf("10-calico.conflist"), grown);

        RealLauncher.Run uninstall = RealLauncher.run(node, "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isEqualTo(1);
        assertThat(uninstall.out()).contains("/etc/cni/net.d/10-calico.conflist: holds more than " + GoJsonParser.MAX_VALUES + " JSON values")
                .contains("it names linkerd-cni and the runtime may load it, so it is left untouched and the binary stays")
                .doesNotContain("Removing linkerd-cni binary");
        assertThat(node.binDir().resolve("linkerd-cni")).exists();
        assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).exists();
    }

    /** An uninstall run with another plugin type must not remove the binary the files still name. */
    @Test
    void anUninstallWithAnotherTypeKeepsTheBinaryTheFilesStillName(TestNode node)
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(RealLauncher.run(node, "install").code()).isZero();

        RealLauncher.Run uninstall = RealLauncher.run(node, Map.of("CNI_NETWORK_CONFIG", "{\"name\":\"my-cni\",\"type\":\"my-cni\"}"), "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isEqualTo(1);
        assertThat(uninstall.out()).contains("[/etc/cni/net.d/10-calico.conflist] still name linkerd-cni (installed by cni-chain; this uninstall's "
                + "plugin type is my-cni)").doesNotContain("Removing my-cni binary");
        assertThat(node.binDir().resolve("linkerd-cni")).exists();
        assertThat(node.read("10-calico.conflist")).contains("linkerd-cni");
    }

    /** The image's binary changed since install: the record proves the copy on the node was ours, so it goes. */
    @Test
    void anUninstallWithANewerImagesBinaryRemovesTheOneTheRecordProvesOurs(TestNode node)
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(RealLauncher.run(node, "install").code()).isZero();
        Files.writeString(node.imageBinDir().resolve("linkerd-cni"), "#!/bin/sh\n# a newer image's build\ncat\n");

        RealLauncher.Run uninstall = RealLauncher.run(node, "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(uninstall.out()).contains("Removing linkerd-cni binary: /opt/cni/bin/linkerd-cni");
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
        assertThat(node.binDir().resolve(BinaryInstaller.RECORD)).doesNotExist();

        // Replaced on the node by someone else since: neither the image's nor the recorded bytes. It stays, and is said.
        assertThat(RealLauncher.run(node, "install").code()).isZero();
        Files.writeString(node.binDir().resolve("linkerd-cni"), "#!/bin/sh\n# the operator's own\ncat\n");
        RealLauncher.Run theirs = RealLauncher.run(node, "uninstall");
        assertThat(theirs.code()).as(theirs.toString()).isEqualTo(1);
        assertThat(theirs.out()).contains("/opt/cni/bin/linkerd-cni: left in place: its bytes changed since install copied it");
        assertThat(node.binDir().resolve("linkerd-cni")).exists();
    }

    /** A chained type the primary's list already runs (Calico's bandwidth): refused, naming it; nothing of the host's replaced. */
    @Test
    void aChainedTypeThePrimaryAlreadyRunsIsRefused(TestNode node)
            throws IOException
    {
        String calico = "{\"name\":\"k8s-pod-network\",\"cniVersion\":\"0.3.1\",\"plugins\":[{\"type\":\"calico\"},"
                + "{\"type\":\"bandwidth\",\"capabilities\":{\"bandwidth\":true}},{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}}]}";
        Files.writeString(node.conf("10-calico.conflist"), calico);
        // The host's bandwidth, with the bytes of the one the image would copy.
        Files.copy(node.imageBinDir().resolve("linkerd-cni"), node.imageBinDir().resolve("bandwidth"));
        Files.copy(node.imageBinDir().resolve("linkerd-cni"), node.binDir().resolve("bandwidth"));
        Map<String, String> env = Map.of("CNI_NETWORK_CONFIG", "{\"name\":\"bandwidth\",\"type\":\"bandwidth\"}");

        RealLauncher.Run install = RealLauncher.run(node, env, "install");
        assertThat(install.code()).as(install.toString()).isEqualTo(1);
        assertThat(install.out()).contains("/etc/cni/net.d/10-calico.conflist: already runs a plugin of type bandwidth of its own (plugin 2 of 3, "
                + "not the last, not named bandwidth)");
        assertThat(node.read("10-calico.conflist")).isEqualTo(calico);

        RealLauncher.Run uninstall = RealLauncher.run(node, env, "uninstall");
        assertThat(node.read("10-calico.conflist")).as(uninstall.toString()).isEqualTo(calico);
        assertThat(node.binDir().resolve("bandwidth")).exists();
    }
}
