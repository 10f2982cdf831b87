package io.cnichain.distribution;

import io.cnichain.testkit.KubeletVolume;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The promise, tried through the real launcher as a hostile user would: the configuration the runtime loads carries
 * our entry, decided by the runtime's own rules, and every way of breaking that is refused with the reason before
 * anything is written.
 */
@ExtendWith(TempNodeExtension.class)
class RuntimeFaithfulLauncherTest
{
    static final String BRIDGE = "{\"cniVersion\":\"0.4.0\",\"name\":\"single\",\"type\":\"bridge\",\"bridge\":\"cni0\"}";

    @Test
    void aLinkOutOfTheAllowedRootsIsReportedAndNeverDisablesAnAdapter(TestNode node)
            throws IOException
    {
        node.writeAt(node.host("/etc/passwd"), TestNode.CALICO);
        byte[] passwd = Files.readAllBytes(node.host("/etc/passwd"));
        node.link("04-out.conflist", "/etc/passwd");
        node.write("10-calico.conflist", TestNode.CALICO);

        RealLauncher.Run detect = RealLauncher.run(node, "detect");
        // The runtime's file cannot be patched: a problem, so detect exits 1, as install does.
        assertThat(detect.code()).as(detect.toString()).isEqualTo(1);
        assertThat(detect.out()).contains("/etc/cni/net.d/04-out.conflist").contains("not writable")
                .contains("the runtime loads /etc/cni/net.d/04-out.conflist, which cannot be patched")
                .doesNotContain("disabled").doesNotContain("NoSuchElementException");

        RealLauncher.Run install = RealLauncher.run(node, "install");
        assertThat(install.code()).as(install.toString()).isEqualTo(1);
        assertThat(install.out()).contains("the runtime loads /etc/cni/net.d/04-out.conflist, which cannot be patched: ")
                .contains("outside the allowed roots").doesNotContain("disabled");
        assertThat(Files.readAllBytes(node.host("/etc/passwd"))).as("never written").isEqualTo(passwd);

        Files.delete(node.conf("04-out.conflist"));
        RealLauncher.Run again = RealLauncher.run(node, "install");
        assertThat(again.code()).as(again.toString()).isZero();
        assertThat(node.read("10-calico.conflist")).contains("linkerd-cni");
    }

    @Test
    void aLinkToAConflistCurrentOutOfTheRootsIsReportedLikewise(TestNode node)
    {
        node.writeAt(node.host("/var/lib/x/net.conflist-current"), TestNode.OCI);
        node.link("10-oci.conflist", "/var/lib/x/net.conflist-current");
        RealLauncher.Run install = RealLauncher.run(node, "install");
        assertThat(install.code()).as(install.toString()).isEqualTo(1);
        assertThat(install.out()).contains("the runtime loads /etc/cni/net.d/10-oci.conflist, which cannot be patched").doesNotContain("disabled");
        assertThat(node.readAt(node.host("/var/lib/x/net.conflist-current"))).doesNotContain("linkerd-cni");
    }

    @Test
    void theFileTheRuntimeLoadsIsPatchedWhateverTheAdapterChose(TestNode node)
    {
        node.write("05-single.conf", BRIDGE);
        node.write("10-oci.conflist-current", TestNode.OCI);
        node.link("10-oci.conflist", "10-oci.conflist-current");

        RealLauncher.Run before = RealLauncher.run(node, "detect");
        assertThat(before.out()).contains("chosen: oci-vcn-native").contains("/etc/cni/net.d/05-single.conf").contains("ours    no, not yet");

        RealLauncher.Run install = RealLauncher.run(node, "install");
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(node.read("05-single.conflist")).as("what containerd loads").contains("linkerd-cni");
        assertThat(node.read("10-oci.conflist-current")).as("what the adapter named").contains("linkerd-cni");

        RealLauncher.Run after = RealLauncher.run(node, "detect");
        assertThat(after.out()).contains("ours    yes, it carries the chained plugin");
    }

    @Test
    void filesAreDecidedAsGosJsonDecoderDecidesThem(TestNode node)
            throws IOException
    {
        // Invalid UTF-8 in a string: Go reads U+FFFD and the runtime loads the file, so it is the one to patch.
        Files.write(node.conf("00-utf8.conflist"),
                "{\"name\":\"utf8\",\"cniVersion\":\"0.4.0\",\"plugins\":[{\"type\":\"bridge\",\"note\":\"caf\u00e9 \"}]}".getBytes(StandardCharsets.ISO_8859_1));
        node.write("10-calico.conflist", TestNode.CALICO);
        RealLauncher.Run install = RealLauncher.run(node, "install");
        assertThat(install.code()).as(install.toString()).isZero();
        String patched = new String(Files.readAllBytes(node.conf("00-utf8.conflist")), StandardCharsets.ISO_8859_1);
        // The byte is the file's, kept as it was outside our edit (Go still reads it as U+FFFD).
        assertThat(patched).contains("linkerd-cni").contains("caf\u00e9 \"").doesNotContain("caf\u00ef\u00bf\u00bd");
    }

    @Test
    void deepNestingAndDuplicateKeysLoadAsInGo(TestNode node)
    {
        String deep = "[".repeat(5000) + "]".repeat(5000);
        node.write("00-deep.conflist", "{\"name\":\"deep\",\"plugins\":[{\"type\":\"bridge\",\"x\":" + deep + "}]}");
        node.write("01-dup.conflist", "{\"name\":\"dup\",\"plugins\":[{\"type\":\"broken\"}],\"plugins\":[{\"type\":\"bridge\"}]}");
        RealLauncher.Run install = RealLauncher.run(node, "install");
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(node.read("00-deep.conflist")).contains("linkerd-cni").contains(deep);
    }

    @Test
    void aConvertedConfKeepsItsOwnerAndModeBothWays(TestNode node)
            throws IOException
    {
        Path conf = node.write("10-single.conf", BRIDGE);
        Files.setAttribute(conf, "unix:uid", 65534);
        Files.setAttribute(conf, "unix:gid", 65534);
        Files.setPosixFilePermissions(conf, PosixFilePermissions.fromString("rw-r-----"));

        assertThat(RealLauncher.run(node, "install").code()).isZero();
        Path list = node.conf("10-single.conflist");
        assertOwnerAndMode(list);

        assertThat(RealLauncher.run(node, "uninstall").code()).isZero();
        assertOwnerAndMode(node.conf("10-single.conf"));
    }

    private static void assertOwnerAndMode(Path file)
            throws IOException
    {
        assertThat(Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS)).as(file + " owner").isEqualTo(65534);
        assertThat(Files.getAttribute(file, "unix:gid", LinkOption.NOFOLLOW_LINKS)).as(file + " group").isEqualTo(65534);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS))).isEqualTo("rw-r-----");
    }

    @Test
    void badEnvironmentIsRefusedBeforeAnythingIsWritten(TestNode node)
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Map<String, Map<String, String>> refused = Map.of(
                "a kubeconfig named like a configuration", Map.of("KUBECONFIG_FILE_NAME", "00-a.conflist"),
                "a host with a newline", Map.of("KUBERNETES_SERVICE_HOST", "10.0.0.1\ninsecure-skip-tls-verify: true"),
                "a host with a port", Map.of("KUBERNETES_SERVICE_HOST", "10.0.0.1:443"),
                "a plugin type that is a path", Map.of("CNI_NETWORK_CONFIG", "{\"type\":\"../../bin/sh\"}"),
                "two types", Map.of("CNI_NETWORK_CONFIG", "{\"type\":\"linkerd-cni\",\"type\":\"other\"}"),
                "a kubeconfig others may write", Map.of("KUBECONFIG_MODE", "0666"));
        refused.forEach((what, env) -> {
            RealLauncher.Run install = RealLauncher.run(node, env, "install");
            assertThat(install.code()).as(what + "\n" + install).isEqualTo(2);
            assertThat(node.binDir().resolve("linkerd-cni")).as(what).doesNotExist();
            assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).as(what).doesNotExist();
            assertThat(node.read("10-calico.conflist")).as(what).doesNotContain("linkerd-cni");
        });
    }

    @Test
    void aBadTokenFailsBeforeTheBinaryIsWritten(TestNode node)
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        node.serviceAccount().update("token", "not a token\n");
        RealLauncher.Run install = RealLauncher.run(node, "install");
        assertThat(install.code()).as(install.toString()).isEqualTo(1);
        assertThat(install.out()).contains("the service-account token holds characters a token never has");
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
        assertThat(node.read("10-calico.conflist")).doesNotContain("linkerd-cni");
    }

    @Test
    void aReadableKubeconfigIsWarnedAbout(TestNode node)
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        RealLauncher.Run install = RealLauncher.run(node, Map.of("KUBECONFIG_MODE", "0644"), "install");
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(install.out()).contains("WARN").contains("environment variable KUBECONFIG_MODE: mode 0644 makes the kubeconfig");
    }

    @Test
    void smallerOnesNameTheirSource(TestNode node)
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Files.createDirectories(node.conf("00-dir.conflist"));
        RealLauncher.Run detect = RealLauncher.run(node, "detect");
        assertThat(detect.out()).as("libcni skips directories").doesNotContain("00-dir.conflist");

        RealLauncher.Run adapter = RealLauncher.run(node, "install", "--adapter", "nosuch");
        assertThat(adapter.code()).isEqualTo(2);
        assertThat(adapter.out()).contains("--adapter: no adapter named 'nosuch' is installed");

        Path yaml = KubeletVolume.configMapFile(node.root().resolve("config"), "bad.yaml", "adapters:\n  cilium: { confFile: ../x }\n");
        RealLauncher.Run setting = RealLauncher.run(node, "install", "--config", yaml.toString());
        assertThat(setting.code()).as(setting.toString()).isEqualTo(2);
        assertThat(setting.out()).contains("adapters.cilium.confFile: '../x'");

        // The host's / not mounted where the flags say: every one-shot command names it instead of finding nothing.
        Files.move(node.hostRoot(), node.root().resolve("elsewhere"));
        for (String command : new String[] {"detect", "install", "uninstall"}) {
            RealLauncher.Run run = RealLauncher.run(node, command);
            assertThat(run.code()).as(command + "\n" + run).isEqualTo(2);
            assertThat(run.out()).contains(node.hostRoot() + ": the host root (hostRoot, --host-root or CONTAINER_MOUNT_PREFIX) does not exist");
        }
    }

    @Test
    void uninstallGivesBackTheBytesOfJqGoAndPythonFiles(TestNode node)
            throws IOException
    {
        Map<String, String> files = Map.of(
                "10-jq.conflist", "{\n  \"cniVersion\": \"0.3.1\",\n  \"name\": \"jq\",\n  \"plugins\": [\n    {\n      \"type\": \"bridge\"\n    }\n  ]\n}\n",
                "11-go.conflist", "{\n\t\"cniVersion\": \"1.0.0\",\n\t\"name\": \"go\",\n\t\"plugins\": [\n\t\t{\n\t\t\t\"type\": \"ptp\",\n\t\t\t\"mtu\": 1460\n\t\t}\n\t]\n}",
                "12-py.conflist", "{\"cniVersion\": \"0.4.0\", \"name\": \"py\", \"plugins\": [{\"type\": \"calico\", \"mtu\": 0}]}");
        for (Map.Entry<String, String> file : files.entrySet()) {
            Files.writeString(node.conf(file.getKey()), file.getValue());
        }
        // Each file in turn is the one the runtime loads; the others follow it.
        for (String name : new String[] {"10-jq.conflist", "11-go.conflist", "12-py.conflist"}) {
            assertThat(RealLauncher.run(node, "install").code()).isZero();
            assertThat(Files.readString(node.conf(name))).contains("linkerd-cni");
            assertThat(RealLauncher.run(node, "uninstall").code()).isZero();
            assertThat(Files.readString(node.conf(name))).as(name).isEqualTo(files.get(name));
            Files.move(node.conf(name), node.root().resolve(name));
        }
    }
}
