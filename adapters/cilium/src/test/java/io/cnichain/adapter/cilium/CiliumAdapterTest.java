package io.cnichain.adapter.cilium;

import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.testkit.AdapterSmoke;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import io.cnichain.spi.AdapterException;
import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.Detection;
import io.cnichain.spi.NodeView;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(TempNodeExtension.class)
class CiliumAdapterTest
{
    TestNode node;
    CiliumAdapter adapter = new CiliumAdapter();

    @BeforeEach
    void setUp(TestNode node)
    {
        this.node = node;
    }

    @Test
    void loadsThroughServiceLoaderAsTheAgentDoes()
    {
        LoadedAdapter loaded = AdapterSmoke.loadBuiltIn("cilium", CiliumAdapter.class);
        assertThat(loaded.adapter().settingNames()).containsExactly("confFile");
        assertThat(loaded.adapter().fightHint()).hasValueSatisfying(hint -> assertThat(hint)
                .contains("cni.exclusive=false", "cni-exclusive: \"false\"", "cilium-config"));
    }

    @Test
    void detectionNamesWhatItSaw()
    {
        node.binaries("cilium-cni");
        node.write("05-cilium.conflist", TestNode.CILIUM);
        node.write("10-calico.conflist.cilium_bak", TestNode.CALICO);
        Detection detection = adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name()));
        assertThat(detection.score()).isEqualTo(210);
        assertThat(detection.evidence()).containsExactly(
                "05-cilium.conflist present",
                "cilium-cni in the bin dir /opt/cni/bin",
                "the effective configuration 05-cilium.conflist holds a plugin of type cilium-cni",
                "Cilium backups in the conf dir: 10-calico.conflist.cilium_bak");
    }

    @Test
    void detectionOfAFileUnderAnotherExtension()
    {
        node.write("05-cilium.conflist-current", TestNode.CILIUM);
        node.write("05-cilium.conflist.cilium_bak", TestNode.CILIUM);
        Detection detection = adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name()));
        assertThat(detection.score()).isEqualTo(110);
        assertThat(detection.evidence()).containsExactly(
                "05-cilium.conflist-current present (holds a plugin of type cilium-cni)",
                "Cilium backups in the conf dir: 05-cilium.conflist.cilium_bak");
    }

    @Test
    void notCiliumScoresZero()
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        node.write("10-oci.conflist-current", TestNode.OCI);
        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name()))).isEqualTo(Detection.none());
        assertThat(adapter.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("cilium"))).isEmpty();
    }

    @Test
    void nothingToPatchBeforeCiliumWritesItsFile()
    {
        node.binaries("cilium-cni");
        node.write(".05-cilium.conflist991", TestNode.CILIUM);
        node.write("05-cilium.conflist.cilium_bak", TestNode.CILIUM);
        assertThat(adapter.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("cilium"))).isEmpty();
        assertThat(adapter.authoritativeConfigs(node.snapshot(), settings("05-cilium.conflist-current"))).isEmpty();
    }

    @Test
    void confFileMayBeAnAbsolutePathInTheConfDir()
    {
        node.write("cilium.json", TestNode.CILIUM);
        assertThat(adapter.authoritativeConfigs(node.snapshot(), settings("/etc/cni/net.d/cilium.json")))
                .extracting(ConfigTarget::path).containsExactly(Path.of("/etc/cni/net.d/cilium.json"));
        assertThat(adapter.authoritativeConfigs(node.snapshot(), settings("/etc/cni/net.d/../net.d/cilium.json")))
                .extracting(ConfigTarget::path).containsExactly(Path.of("/etc/cni/net.d/cilium.json"));
    }

    @Test
    void theConfiguredFileWinsOverTheDefaultName()
    {
        node.write("05-cilium.conflist", TestNode.CILIUM);
        node.write("06-cilium.conflist", TestNode.CILIUM);
        assertThat(adapter.authoritativeConfigs(node.snapshot(), settings("06-cilium.conflist")))
                .extracting(ConfigTarget::path).containsExactly(Path.of("/etc/cni/net.d/06-cilium.conflist"));
    }

    @Test
    void aDanglingConfiguredFileIsReportedNotSkipped()
    {
        node.link("05-cilium.conflist", "05-cilium.conflist-current");
        assertThatThrownBy(() -> adapter.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("cilium")))
                .isInstanceOfSatisfying(AdapterException.class, e -> {
                    assertThat(e.code()).isEqualTo(AdapterException.Code.NOT_PATCHABLE);
                    assertThat(e.getMessage()).startsWith("/etc/cni/net.d/05-cilium.conflist: cannot be patched: ");
                });
    }

    @Test
    void invalidConfFileValuesNameTheAdapterTheKeyAndTheValue()
    {
        node.write("05-cilium.conflist", TestNode.CILIUM);
        Map<String, String> reasons = Map.of(
                "", "must be a file name in the conf dir /etc/cni/net.d (or an absolute path in it)",
                "sub/05-cilium.conflist", "must be a file name in the conf dir /etc/cni/net.d (or an absolute path in it)",
                "..", "must be a file name in the conf dir /etc/cni/net.d (or an absolute path in it)",
                "/etc/cni/05-cilium.conflist", "must name a file in the conf dir /etc/cni/net.d",
                "05-cilium.conflist.cilium_bak", "names a file that is never a configuration",
                ".05-cilium.conflist123", "names a file that is never a configuration");
        reasons.forEach((value, reason) -> assertThatThrownBy(() -> adapter.authoritativeConfigs(node.snapshot(), settings(value)))
                .as(value)
                .isInstanceOfSatisfying(AdapterException.class, e -> {
                    assertThat(e.code()).isEqualTo(AdapterException.Code.INVALID_SETTING);
                    assertThat(e.getMessage()).startsWith("adapters.cilium.confFile: '" + value + "' " + reason);
                }));
    }

    @Test
    void backupsAndHiddenTempFilesAreNeverConfigurationsByTheCoresOwnRule()
    {
        NodeView view = node.snapshot();
        assertThat(view.isNeverConfig(".05-cilium.conflist734271")).isTrue();
        assertThat(view.isNeverConfig("10-calico.conflist.cilium_bak")).isTrue();
        assertThat(view.isNeverConfig("05-cilium.conflist")).isFalse();
        assertThat(view.isNeverConfig("05-cilium.conflist-current")).isFalse();
    }

    @Test
    void warnsOnlyWhenBackupsShowExclusiveMode()
    {
        node.write("05-cilium.conflist", TestNode.CILIUM);
        assertThat(adapter.warnings(node.snapshot(), AdapterSettings.empty(adapter.name()))).isEmpty();
        // Cilium sets a legacy .conf aside in every mode: not a sign of exclusive mode.
        node.write("05-cilium.conf.cilium_bak", TestNode.CILIUM_CONF);
        assertThat(adapter.warnings(node.snapshot(), AdapterSettings.empty(adapter.name()))).isEmpty();
        node.write("10-calico.conflist.cilium_bak", TestNode.CALICO);
        node.write("10-flannel.conflist.cilium_bak", TestNode.CALICO);
        node.write("20-a.conflist.cilium_bak", TestNode.CALICO);
        node.write("30-b.conflist.cilium_bak", TestNode.CALICO);
        assertThat(adapter.warnings(node.snapshot(), AdapterSettings.empty(adapter.name()))).singleElement().satisfies(w -> assertThat(w)
                .startsWith("Cilium's exclusive mode looks active: it renamed 10-calico.conflist.cilium_bak, 10-flannel.conflist.cilium_bak, "
                        + "20-a.conflist.cilium_bak and 1 more aside")
                .contains("cni.exclusive=false"));
    }

    @Test
    void aConflistCurrentIsSeenThroughAnyRuntimeLinkToIt()
    {
        node.write("05-cilium.conflist-current", TestNode.CILIUM);
        node.link("00-chain.conflist", "05-cilium.conflist-current");
        List<ConfigTarget> targets = adapter.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("cilium"));
        assertThat(targets).singleElement().satisfies(t -> {
            assertThat(t.path()).isEqualTo(Path.of("/etc/cni/net.d/00-chain.conflist"));
            assertThat(t.resolvedFile()).isEqualTo(Path.of("/etc/cni/net.d/05-cilium.conflist-current"));
            assertThat(t.reason()).contains("loaded by the runtime through the link 00-chain.conflist");
        });
    }

    private static AdapterSettings settings(String confFile)
    {
        return new AdapterSettings("cilium", Map.of("confFile", confFile));
    }
}
