package io.cnichain.distribution;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.install.BinaryInstaller;
import io.cnichain.core.json.CniJson;
import io.cnichain.testkit.KubeletVolume;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

/** install, detect and uninstall through the command line, on temp node roots, with the built-in adapters. */
@ExtendWith(TempNodeExtension.class)
class CliTest
{
    TestNode node;

    @BeforeEach
    void setUp(TestNode node)
    {
        this.node = node;
    }

    @Test
    void ociLayoutWithARelativeLink()
            throws IOException
    {
        node.binaries("oci-ipvlan", "oci-ptp", "oci-ipam");
        node.write("10-oci.conflist-current", TestNode.OCI);
        node.link("10-oci.conflist", "10-oci.conflist-current");
        roundTrip("10-oci.conflist", "10-oci.conflist-current", "10-oci.conflist-current");
    }

    @Test
    void ociLayoutWithAnAbsoluteLink()
            throws IOException
    {
        node.write("10-oci.conflist-current", TestNode.OCI);
        node.link("10-oci.conflist", "/etc/cni/net.d/10-oci.conflist-current");
        roundTrip("10-oci.conflist", "/etc/cni/net.d/10-oci.conflist-current", "10-oci.conflist-current");
    }

    @Test
    void linkIntoAnotherDirectory()
            throws IOException
    {
        Path real = node.writeAt(node.host("/etc/cni/oci/10-oci.conflist-current"), TestNode.OCI);
        node.link("10-oci.conflist", "../oci/10-oci.conflist-current");
        String before = Files.readString(real);
        assertThat(Cli.run(node, "install").code()).isZero();
        assertThat(Files.isSymbolicLink(node.conf("10-oci.conflist"))).isTrue();
        assertThat(plugins(Files.readString(real))).containsExactly("oci-ipvlan", "oci-ptp", "linkerd-cni");
        assertThat(Cli.run(node, "uninstall").code()).isZero();
        assertThat(CniJson.parse(Files.readAllBytes(real))).isEqualTo(CniJson.parse(before.getBytes(StandardCharsets.UTF_8)));
    }

    private void roundTrip(String link, String linkText, String targetName)
            throws IOException
    {
        Path target = node.conf(targetName);
        String before = Files.readString(target);

        Cli.Result detect = Cli.run(node, "detect", "--output", "json");
        assertThat(detect.code()).as(detect.toString()).isZero();
        JsonNode report = CniJson.parse(detect.out().getBytes(StandardCharsets.UTF_8));
        assertThat(report.at("/chosen").asText()).isEqualTo("oci-vcn-native");
        assertThat(report.at("/effective/path").asText()).isEqualTo("/etc/cni/net.d/" + link);
        assertThat(report.at("/effective/target").asText()).isEqualTo("/etc/cni/net.d/" + targetName);
        assertThat(report.at("/targets/0/plan").asText()).isEqualTo("append linkerd-cni as plugin #3");
        assertThat(Files.readString(target)).as("detect changes nothing").isEqualTo(before);

        Cli.Result install = Cli.run(node, "install");
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(install.err()).contains("File /etc/cni/net.d/" + link + " resolves to /etc/cni/net.d/" + targetName)
                .contains("Created CNI config /etc/cni/net.d/" + targetName)
                .contains("Wrote linkerd CNI binaries to /opt/cni/bin");
        assertThat(Files.isSymbolicLink(node.conf(link))).isTrue();
        assertThat(Files.readSymbolicLink(node.conf(link)).toString()).isEqualTo(linkText);
        assertThat(plugins(Files.readString(target))).containsExactly("oci-ipvlan", "oci-ptp", "linkerd-cni");
        assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).exists();
        assertThat(node.binDir().resolve("linkerd-cni")).exists();

        Cli.Result again = Cli.run(node, "install");
        assertThat(again.code()).isZero();
        assertThat(again.err()).doesNotContain("Created CNI config");

        Cli.Result uninstall = Cli.run(node, "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(uninstall.err()).contains("Removing linkerd-cni config from /etc/cni/net.d/" + link)
                .contains("Removing linkerd-cni kubeconfig: /etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig")
                .contains("Removing linkerd-cni binary: /opt/cni/bin/linkerd-cni");
        assertThat(Files.isSymbolicLink(node.conf(link))).isTrue();
        assertThat(CniJson.parse(Files.readAllBytes(target))).isEqualTo(CniJson.parse(before.getBytes(StandardCharsets.UTF_8)));
        assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).doesNotExist();
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
    }

    @Test
    void singlePluginConfRoundTrip()
            throws IOException
    {
        node.write("05-cilium.conf", TestNode.CILIUM_CONF);
        Files.setPosixFilePermissions(node.conf("05-cilium.conf"), PosixFilePermissions.fromString("rw-r-----"));
        String before = node.read("05-cilium.conf");

        Cli.Result install = Cli.run(node, "install");
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(install.err()).contains("Renaming /etc/cni/net.d/05-cilium.conf extension to .conflist")
                .contains("Removing unwanted .conf file /etc/cni/net.d/05-cilium.conf")
                .contains("Created CNI config /etc/cni/net.d/05-cilium.conflist");
        assertThat(node.listing()).containsExactly("05-cilium.conflist", "ZZZ-linkerd-cni-kubeconfig");
        JsonNode list = CniJson.parse(Files.readAllBytes(node.conf("05-cilium.conflist")));
        assertThat(list.get("name").asText()).as("the network name is kept").isEqualTo("cilium");
        assertThat(list.get("cniVersion").asText()).as("the cniVersion is kept").isEqualTo("0.3.1");
        assertThat(plugins(node.read("05-cilium.conflist"))).containsExactly("cilium-cni", "linkerd-cni");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(node.conf("05-cilium.conflist")))).isEqualTo("rw-r-----");

        Cli.Result uninstall = Cli.run(node, "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(node.listing()).containsExactly("05-cilium.conf");
        assertThat(CniJson.parse(Files.readAllBytes(node.conf("05-cilium.conf")))).isEqualTo(CniJson.parse(before.getBytes(StandardCharsets.UTF_8)));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(node.conf("05-cilium.conf")))).isEqualTo("rw-r-----");
    }

    @Test
    void nothingIsCreatedWhenNoPrimaryExists()
    {
        node.write("calico-kubeconfig", "apiVersion: v1\n");
        Cli.Result install = Cli.run(node, "install");
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(install.err()).contains("No active CNI configuration files found in /etc/cni/net.d; nothing to patch, nothing created");
        assertThat(node.listing()).containsExactly("calico-kubeconfig");
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
    }

    @Test
    void brokenFileSortingFirstIsReportedAndTheValidPrimaryPatched()
    {
        node.write("05-broken.conflist", "{\"name\":");
        node.write("10-calico.conflist", TestNode.CALICO);
        Cli.Result detect = Cli.run(node, "detect");
        assertThat(detect.out()).contains("/etc/cni/net.d/05-broken.conflist sorts before the effective configuration and cannot be loaded")
                .contains("containerd fails on it, CRI-O skips it");
        Cli.Result install = Cli.run(node, "install");
        assertThat(install.code()).isZero();
        assertThat(install.err()).contains("WARN  /etc/cni/net.d/05-broken.conflist sorts before the effective configuration");
        assertThat(plugins(node.read("10-calico.conflist"))).containsExactly("calico", "portmap", "linkerd-cni");
        assertThat(node.read("05-broken.conflist")).isEqualTo("{\"name\":");
    }

    @Test
    void missingBinaryMeansNoConfigurationNamesIt()
            throws IOException
    {
        Files.delete(node.imageBinDir().resolve("linkerd-cni"));
        node.write("10-calico.conflist", TestNode.CALICO);
        String before = node.read("10-calico.conflist");
        Cli.Result install = Cli.run(node, "install");
        assertThat(install.code()).as(install.toString()).isEqualTo(1);
        assertThat(install.err()).contains("/opt/cni/bin/linkerd-cni: the linkerd-cni binary is not installed");
        assertThat(node.read("10-calico.conflist")).isEqualTo(before);
    }

    /**
     * k3s-style: /etc/cni/net.d is a link to the runtime's real directory, with an absolute target (a host path). It
     * works out of the box: the files are read, patched and restored where they really are.
     */
    @Test
    void aConfDirThatIsALinkIsPatchedWhereItsFilesReallyAre()
            throws IOException
    {
        Path real = Files.createDirectories(node.host("/var/lib/rancher/k3s/agent/etc/cni/net.d"));
        Files.delete(node.confDir());
        Files.createSymbolicLink(node.confDir(), Path.of("/var/lib/rancher/k3s/agent/etc/cni/net.d"));
        Path file = Files.writeString(real.resolve("10-flannel.conflist"),
                "{\"name\":\"cbr0\",\"cniVersion\":\"1.0.0\",\"plugins\":[{\"type\":\"flannel\",\"delegate\":{\"isDefaultGateway\":true}},{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}}]}");
        String before = Files.readString(file);

        Cli.Result install = Cli.run(node, "install");
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(install.err()).contains("The conf dir /etc/cni/net.d is reached through a link: working in /var/lib/rancher/k3s/agent/etc/cni/net.d");
        assertThat(plugins(Files.readString(file))).containsExactly("flannel", "portmap", "linkerd-cni");
        assertThat(real.resolve("ZZZ-linkerd-cni-kubeconfig")).exists();
        assertThat(Files.isSymbolicLink(node.confDir())).isTrue();

        Cli.Result uninstall = Cli.run(node, "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(Files.readString(file)).isEqualTo(before);
        assertThat(real.resolve("ZZZ-linkerd-cni-kubeconfig")).doesNotExist();
    }

    /** Outside a pod there is no API server address: install and run say so as a configuration error, with the way out. */
    @Test
    void withoutTheApiServersAddressInstallAndRunAreConfigurationErrorsNamingKubeconfigEnabledFalse()
            throws IOException
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        String before = node.read("10-calico.conflist");
        node.env().remove("KUBERNETES_SERVICE_HOST");
        node.env().remove("KUBERNETES_SERVICE_PORT");
        for (String command : java.util.List.of("install", "run")) {
            Cli.Result result = Cli.run(node, command);
            assertThat(result.code()).as(result.toString()).isEqualTo(2);
            assertThat(result.err()).contains("KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (Kubernetes sets both in every pod)")
                    .contains("or set kubeconfig.enabled: false in the YAML file (--config) to run without a kubeconfig");
        }
        assertThat(node.read("10-calico.conflist")).isEqualTo(before);
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();

        Path yaml = KubeletVolume.configMapFile(node.root().resolve("config-no-kubeconfig"), "no-kubeconfig.yaml", "kubeconfig:\n  enabled: false\n");
        Cli.Result install = Cli.run(node, "install", "--config", yaml.toString());
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(plugins(node.read("10-calico.conflist"))).endsWith("linkerd-cni");
        assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).doesNotExist();
        assertThat(file).exists();
    }

    /** Uninstall on a host, where the image's directory is not: the configuration is restored, the binary left and said. */
    @Test
    void uninstallWithoutTheBinariesSourceRemovesWhatInstallRecordedAndOnlyThat()
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        String before = node.read("10-calico.conflist");
        assertThat(Cli.run(node, "install").code()).isZero();
        // As on a host: the image's directory is not there, but the record install kept beside the binary is.
        byte[] binary = Files.readAllBytes(node.imageBinDir().resolve("linkerd-cni"));
        Files.delete(node.imageBinDir().resolve("linkerd-cni"));
        Cli.Result uninstall = Cli.run(node, "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(uninstall.err()).contains("Removing linkerd-cni binary: /opt/cni/bin/linkerd-cni");
        assertThat(node.read("10-calico.conflist")).isEqualTo(before);
        assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).doesNotExist();
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
        assertThat(node.binDir().resolve(BinaryInstaller.RECORD)).doesNotExist();

        // Without the record too, uninstall cannot tell the binary is ours: it leaves it, says why, exits 1.
        Files.write(node.imageBinDir().resolve("linkerd-cni"), binary);
        assertThat(Cli.run(node, "install").code()).isZero();
        Files.delete(node.imageBinDir().resolve("linkerd-cni"));
        Files.delete(node.binDir().resolve(BinaryInstaller.RECORD));
        Cli.Result blind = Cli.run(node, "uninstall");
        assertThat(blind.code()).as(blind.toString()).isEqualTo(1);
        assertThat(blind.err()).contains("ERROR /opt/cni/bin/linkerd-cni: left in place: uninstall removes a binary only when it has the bytes");
        assertThat(node.binDir().resolve("linkerd-cni")).exists();
    }

    @Test
    void badConfigurationExitsTwoNamingTheKeyAndFile()
            throws IOException
    {
        Path yaml = KubeletVolume.configMapFile(node.root().resolve("config-bad"), "bad.yaml", "confDir: /etc/cni/net.d\nbinDirectory: /opt/cni/bin\n");
        Cli.Result result = Cli.run(node, "install", "--config", yaml.toString());
        assertThat(result.code()).isEqualTo(2);
        assertThat(result.err()).contains("error: " + yaml + ": unknown key 'binDirectory'");

        Cli.Result unknownAdapter = Cli.run(node, "install", "--adapter", "nosuch");
        assertThat(unknownAdapter.code()).isEqualTo(2);
        assertThat(unknownAdapter.err()).contains("no adapter named 'nosuch' is installed (installed: calico, cilium, generic-symlink, oci-vcn-native)");

        Cli.Result settings = Cli.run(node, "detect", "--config",
                KubeletVolume.configMapFile(node.root().resolve("config-settings"), "settings.yaml", "adapters:\n  generic-symlink: { confFile: x }\n").toString());
        assertThat(settings.code()).isEqualTo(2);
        assertThat(settings.err()).contains("key 'adapters.generic-symlink.confFile': adapter generic-symlink has no setting 'confFile' (it takes no settings)");

        Cli.Result usage = Cli.run(node, "install", "--no-such-flag");
        assertThat(usage.code()).isEqualTo(2);
        assertThat(usage.err()).contains("Unknown option: '--no-such-flag'");
    }

    @Test
    void uninstallDecidesEveryFileByWhatTheRuntimeDoesWithIt()
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(Cli.run(node, "install").code()).isZero();
        // A second list also holding our entry; a broken file that mentions us, which the runtime never loads; and a
        // foreign file too large for us to read whole, which does not mention us.
        node.write("20-other.conflist", "{\"name\":\"other\",\"cniVersion\":\"0.3.1\",\"plugins\":[{\"type\":\"bridge\"},{\"type\":\"linkerd-cni\"}]}");
        node.write("15-broken.conflist", "{\"plugins\":[{\"type\":\"linkerd-cni\"}");
        String broken = node.read("15-broken.conflist");
        writeLarge(node.conf("30-large.conflist"), "{\"name\":\"large\",\"plugins\":[{\"type\":\"bridge\"}]}");

        Cli.Result uninstall = Cli.run(node, "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(plugins(node.read("10-calico.conflist"))).containsExactly("calico", "portmap");
        assertThat(plugins(node.read("20-other.conflist"))).containsExactly("bridge");
        assertThat(node.read("15-broken.conflist")).as("left untouched").isEqualTo(broken);
        assertThat(uninstall.err()).contains("Skipping /etc/cni/net.d/15-broken.conflist: ").contains("(the runtime does not load it either)")
                .contains("30-large.conflist").contains("it does not mention linkerd-cni, so nothing of ours runs from it");
        assertThat(node.binDir().resolve("linkerd-cni")).as("no configuration the runtime loads names it").doesNotExist();
        assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).doesNotExist();
    }

    @Test
    void aFileTooLargeToReadThatMentionsUsKeepsTheBinaryAndKubeconfig()
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(Cli.run(node, "install").code()).isZero();
        writeLarge(node.conf("30-large.conflist"), "{\"name\":\"large\",\"plugins\":[{\"type\":\"bridge\"},{\"type\":\"linkerd-cni\"}]}");

        Cli.Result uninstall = Cli.run(node, "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isEqualTo(1);
        assertThat(uninstall.err()).contains("30-large.conflist").contains("it may run linkerd-cni");
        assertThat(plugins(node.read("10-calico.conflist"))).containsExactly("calico", "portmap");
        assertThat(node.binDir().resolve("linkerd-cni")).exists();
        assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).exists();
    }

    /** A valid configuration padded with spaces past the 1 MiB we read: the runtime, which has no limit, loads it. */
    private static void writeLarge(Path file, String json)
            throws IOException
    {
        byte[] padding = " ".repeat(2 * 1024 * 1024).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Files.write(file, json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Files.write(file, padding, java.nio.file.StandardOpenOption.APPEND);
    }

    @Test
    void uninstallKeepsTheBinaryWhileALinkOutOfTheAllowedRootsStillNamesIt()
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        // The runtime loads this list through the link, but it lies outside the allowed roots: we may not clean it.
        node.writeAt(node.host("/var/lib/elsewhere/20-other.conflist"),
                "{\"name\":\"other\",\"cniVersion\":\"0.3.1\",\"plugins\":[{\"type\":\"bridge\"},{\"type\":\"linkerd-cni\"}]}");
        node.link("20-other.conflist", "/var/lib/elsewhere/20-other.conflist");
        assertThat(Cli.run(node, "install").code()).isZero();

        Cli.Result uninstall = Cli.run(node, "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isEqualTo(1);
        assertThat(plugins(node.read("10-calico.conflist"))).containsExactly("calico", "portmap");
        assertThat(uninstall.err()).contains("/etc/cni/net.d/20-other.conflist").contains("still name linkerd-cni");
        assertThat(node.binDir().resolve("linkerd-cni")).as("a loaded config still names it").exists();

        Files.delete(node.conf("20-other.conflist"));
        Cli.Result retry = Cli.run(node, "uninstall");
        assertThat(retry.code()).as(retry.toString()).isZero();
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
    }

    /** Also what loading the configuration has to say, which comes before the format is known. */
    @Test
    void jsonLogsAreOneObjectPerLine()
            throws IOException
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Path yaml = KubeletVolume.configMapFile(node.root().resolve("config-readable"), "readable.yaml", "kubeconfig:\n  mode: \"0644\"\n");
        Cli.Result install = Cli.run(node, "install", "--log-format", "json", "--config", yaml.toString());
        assertThat(install.code()).as(install.toString()).isZero();
        java.util.List<String> lines = install.err().lines().toList();
        assertThat(lines).isNotEmpty();
        for (String line : lines) {
            JsonNode entry = CniJson.parse(line.getBytes(StandardCharsets.UTF_8));
            assertThat(entry.has("time") && entry.has("level") && entry.has("logger") && entry.has("msg")).as(line).isTrue();
        }
        assertThat(lines).anySatisfy(line -> assertThat(line).contains("\"msg\":\"Created CNI config /etc/cni/net.d/10-calico.conflist\""));
        assertThat(lines).anySatisfy(line -> assertThat(line).contains("\"level\":\"warn\"", "mode 0644 makes the kubeconfig"));
    }

    @Test
    void helpTeaches()
    {
        Cli.Result help = Cli.runRaw(node, "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("Usage: cni-chain", "install", "uninstall", "detect", "adapters", "demo",
                "DEST_CNI_NET_DIR", "Exit codes: 0 done");
        Cli.Result installHelp = Cli.runRaw(node, "install", "--help");
        assertThat(installHelp.out()).contains("--host-root", "--conf-dir", "--bin-dir", "--adapter", "--service-account-dir",
                "--log-level", "--stacktrace", "--config");
    }

    @Test
    void adaptersListsTheBuiltInOnes()
    {
        Cli.Result adapters = Cli.run(node, "adapters");
        assertThat(adapters.code()).isZero();
        assertThat(adapters.out()).contains("NAME").containsPattern("generic-symlink\\s+0\\.1\\.0|generic-symlink\\s+unknown")
                .contains("built-in");
    }

    static java.util.List<String> plugins(String conflist)
    {
        java.util.List<String> types = new java.util.ArrayList<>();
        CniJson.parse(conflist.getBytes(StandardCharsets.UTF_8)).get("plugins").forEach(p -> types.add(p.get("type").asText()));
        return types;
    }
}
