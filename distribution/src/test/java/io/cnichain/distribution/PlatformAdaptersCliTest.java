package io.cnichain.distribution;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The platform adapters through the command line: detect's report, YAML selection and settings, their errors. */
@ExtendWith(TempNodeExtension.class)
class PlatformAdaptersCliTest
{
    TestNode node;

    @BeforeEach
    void setUp(TestNode node)
    {
        this.node = node;
    }

    @Test
    void detectShowsEveryAdaptersScoreAndEvidenceAndCiliumsWarning()
    {
        node.binaries("cilium-cni", "calico", "calico-ipam");
        node.write("05-cilium.conflist", TestNode.CILIUM);
        node.write("10-calico.conflist.cilium_bak", TestNode.CALICO);

        Cli.Result detect = Cli.run(node, "detect");
        // Cilium's exclusive mode will undo our entry: a problem, and detect says so by its exit code too.
        assertThat(detect.code()).as(detect.toString()).isEqualTo(1);
        assertThat(detect.out()).containsSubsequence(
                "Adapters",
                "    calico           score  60  built-in",
                "        - calico, calico-ipam in the bin dir /opt/cni/bin",
                "        - 10-calico.conflist.cilium_bak (a Calico configuration set aside by Cilium)",
                "  * cilium           score 210  built-in",
                "        - 05-cilium.conflist present",
                "        - cilium-cni in the bin dir /opt/cni/bin",
                "        - the effective configuration 05-cilium.conflist holds a plugin of type cilium-cni",
                "        - Cilium backups in the conf dir: 10-calico.conflist.cilium_bak",
                "    generic-symlink  score   1  built-in",
                "    oci-vcn-native   score   0  built-in",
                "  chosen: cilium (highest detection score, 210)",
                "Would patch",
                "  /etc/cni/net.d/05-cilium.conflist",
                "    why     Cilium's configuration file",
                "Problems",
                "  - Cilium's exclusive mode looks active: it renamed 10-calico.conflist.cilium_bak aside");
        assertThat(detect.out()).contains("set the Helm value cni.exclusive=false (agent option cni-exclusive: \"false\" in the cilium-config ConfigMap)");

        Cli.Result json = Cli.run(node, "detect", "--output", "json");
        JsonNode report = CniJson.parse(json.out().getBytes(StandardCharsets.UTF_8));
        assertThat(report.at("/chosen").asText()).isEqualTo("cilium");
        assertThat(report.at("/adapters").size()).isEqualTo(4);
        assertThat(json.out()).contains("exclusive mode looks active");

        Cli.Result install = Cli.run(node, "install");
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(install.err()).contains("Using adapter cilium (highest detection score, 210)")
                .contains("WARN  Cilium's exclusive mode looks active");
    }

    @Test
    void yamlPinsAnAdapterAndPassesItsSettings()
            throws IOException
    {
        node.write("05-cilium.conflist-current", TestNode.CILIUM);
        node.write("06-cilium.conflist-current", TestNode.CILIUM);
        Path yaml = KubeletVolume.configMapFile(node.root().resolve("config-pinned"), "pinned.yaml", "adapter: cilium\nadapters:\n  cilium:\n    confFile: 06-cilium.conflist-current\n");
        Cli.Result install = Cli.run(node, "install", "--config", yaml.toString());
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(install.err()).contains("Using adapter cilium (pinned by configuration)")
                .contains("Created CNI config /etc/cni/net.d/06-cilium.conflist-current");
        assertThat(node.read("06-cilium.conflist-current")).contains("linkerd-cni");
        assertThat(node.read("05-cilium.conflist-current")).doesNotContain("linkerd-cni");

        Cli.Result uninstall = Cli.run(node, "uninstall", "--config", yaml.toString());
        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(node.read("06-cilium.conflist-current")).doesNotContain("linkerd-cni");
    }

    @Test
    void theAdapterFlagPinsToo()
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Cli.Result detect = Cli.run(node, "detect", "--adapter", "oci-vcn-native");
        assertThat(detect.code()).isZero();
        // Pinned, and every adapter's score still shown: what auto-detection would have chosen is in plain sight.
        assertThat(detect.out()).contains("  * oci-vcn-native   score   0  built-in").contains("    calico           score 150  built-in")
                .contains("chosen: oci-vcn-native (pinned by configuration)")
                .contains("adapter oci-vcn-native finds nothing to patch, but adapter calico would patch /etc/cni/net.d/10-calico.conflist")
                .contains("adapter oci-vcn-native finds nothing to patch, but adapter generic-symlink would patch /etc/cni/net.d/10-calico.conflist");
    }

    @Test
    void unknownSettingsAreErrorsNamingTheAdapterAndTheKey()
            throws IOException
    {
        Path typo = KubeletVolume.configMapFile(node.root().resolve("config-typo"), "typo.yaml", "adapters:\n  cilium: { conffile: 05-cilium.conflist }\n");
        Cli.Result result = Cli.run(node, "install", "--config", typo.toString());
        assertThat(result.code()).isEqualTo(2);
        assertThat(result.err()).contains("error: " + typo + ": key 'adapters.cilium.conffile': adapter cilium has no setting 'conffile' (its settings: confFile)");

        Path none = KubeletVolume.configMapFile(node.root().resolve("config-none"), "none.yaml", "adapters:\n  oci-vcn-native: { confFile: 10-oci.conflist }\n");
        Cli.Result noSettings = Cli.run(node, "detect", "--config", none.toString());
        assertThat(noSettings.code()).isEqualTo(2);
        assertThat(noSettings.err()).contains("key 'adapters.oci-vcn-native.confFile': adapter oci-vcn-native has no setting 'confFile' (it takes no settings)");
    }

    @Test
    void anUnusableSettingValueIsReportedAndChangesNothing()
            throws IOException
    {
        node.write("05-cilium.conflist", TestNode.CILIUM);
        String before = node.read("05-cilium.conflist");
        Path yaml = KubeletVolume.configMapFile(node.root().resolve("config-bad-value"), "bad-value.yaml", "adapters:\n  cilium: { confFile: ../05-cilium.conflist }\n");

        // A bad configuration: exit 2 before anything is done, as for any other bad value.
        Cli.Result detect = Cli.run(node, "detect", "--config", yaml.toString());
        assertThat(detect.code()).isEqualTo(2);
        assertThat(detect.err()).contains("error: " + yaml + ": adapters.cilium.confFile: '../05-cilium.conflist' must be a file name in the conf dir "
                + "/etc/cni/net.d (or an absolute path in it)");

        Cli.Result install = Cli.run(node, "install", "--config", yaml.toString());
        assertThat(install.code()).isEqualTo(2);
        assertThat(install.err()).contains("error: " + yaml + ": adapters.cilium.confFile: '../05-cilium.conflist' must be a file name");
        assertThat(node.read("05-cilium.conflist")).isEqualTo(before);
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
    }

    @Test
    void demoLaysOutEachPlatform()
    {
        Map<String, String> expected = Map.of(
                "symlink", "Using adapter generic-symlink (pinned by configuration)",
                "cilium", "Using adapter cilium (highest detection score, 210)",
                "calico", "Using adapter calico (highest detection score, 210)",
                "oci", "Using adapter oci-vcn-native (highest detection score, 200)");
        expected.forEach((platform, line) -> {
            Cli.Result demo = Cli.runRaw(node, "demo", "--platform", platform);
            assertThat(demo.code()).as(platform + "\n" + demo).isZero();
            assertThat(demo.out()).as(platform).contains(line)
                    .contains("+       \"type\": \"linkerd-cni\",")
                    .contains("Installed: the real file patched atomically")
                    .contains("Sandbox removed");
        });
        assertThat(Cli.runRaw(node, "demo", "--platform", "cilium").out())
                .contains("10-containerd-net.conflist.cilium_bak   (file")
                .contains("WARN  Cilium's exclusive mode looks active");
        assertThat(Cli.runRaw(node, "demo", "--platform", "calico").out()).contains("calico-tls/   (directory)");
        Cli.Result unknown = Cli.runRaw(node, "demo", "--platform", "flannel");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).contains("'flannel' is not a demo platform; choose one of [symlink, cilium, calico, oci]");
    }

    @Test
    void adaptersListsAllFour()
    {
        Cli.Result adapters = Cli.run(node, "adapters");
        assertThat(adapters.code()).isZero();
        assertThat(adapters.out().lines().skip(1).map(line -> line.split("\\s+")[0]).toList())
                .containsExactly("calico", "cilium", "generic-symlink", "oci-vcn-native");
        assertThat(adapters.out()).doesNotContain("! ");
    }
}
