package io.cnichain.adapter.calico;

import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.testkit.AdapterSmoke;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import io.cnichain.spi.AdapterException;
import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.CniConfig;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.Detection;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(TempNodeExtension.class)
class CalicoAdapterTest
{
    TestNode node;
    CalicoAdapter adapter = new CalicoAdapter();

    @BeforeEach
    void setUp(TestNode node)
    {
        this.node = node;
    }

    @Test
    void loadsThroughServiceLoaderAsTheAgentDoes()
    {
        LoadedAdapter loaded = AdapterSmoke.loadBuiltIn("calico", CalicoAdapter.class);
        assertThat(loaded.adapter().settingNames()).containsExactly("confFile");
    }

    @Test
    void detectionNamesWhatItSaw()
            throws Exception
    {
        node.binaries("calico", "calico-ipam");
        node.write("10-calico.conflist", TestNode.CALICO);
        node.write("calico-kubeconfig", "apiVersion: v1\n");
        Files.createDirectories(node.conf("calico-tls"));
        Detection detection = adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name()));
        assertThat(detection.score()).isEqualTo(210);
        assertThat(detection.evidence()).containsExactly(
                "10-calico.conflist present",
                "calico, calico-ipam in the bin dir /opt/cni/bin",
                "the effective configuration 10-calico.conflist holds a plugin of type calico",
                "calico-kubeconfig in the conf dir",
                "calico-tls/ in the conf dir");
    }

    @Test
    void aHalfWrittenFileIsStillCalicosFile()
    {
        node.write("10-calico.conflist", "{\"name\":\"k8s-pod-network\",\"cniVersion\":\"1.0.0\",\"plu");
        Detection detection = adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name()));
        assertThat(detection.score()).isEqualTo(100);
        assertThat(detection.evidence()).singleElement().satisfies(e -> assertThat(e).startsWith("10-calico.conflist present (does not parse now: "));
        assertThat(adapter.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("calico")))
                .extracting(ConfigTarget::path).containsExactly(Path.of("/etc/cni/net.d/10-calico.conflist"));
    }

    @Test
    void leftoversAfterCiliumTookOverAreWeakEvidence()
    {
        node.write("05-cilium.conflist", TestNode.CILIUM);
        node.write("10-calico.conflist.cilium_bak", TestNode.CALICO);
        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name()))).isEqualTo(Detection.of(10,
                "10-calico.conflist.cilium_bak (a Calico configuration set aside by Cilium)"));
        assertThat(adapter.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("calico"))).isEmpty();
    }

    @Test
    void notCalicoScoresZero()
    {
        node.write("05-cilium.conflist", TestNode.CILIUM);
        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name()))).isEqualTo(Detection.none());
    }

    @Test
    void incompleteUntilCalicosOwnPluginIsThere()
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        ConfigTarget target = ConfigTarget.of(node.snapshot().entry("10-calico.conflist").orElseThrow(), "test");
        CniConfig complete = new CniConfig(CniConfig.Format.LIST, "k8s-pod-network", Optional.of("1.0.0"), List.of("calico", "portmap"));
        CniConfig partial = new CniConfig(CniConfig.Format.LIST, "k8s-pod-network", Optional.of("1.0.0"), List.of("portmap"));
        assertThat(adapter.incompleteReason(target, complete, AdapterSettings.empty("calico"))).isEmpty();
        assertThat(adapter.incompleteReason(target, partial, AdapterSettings.empty("calico"))).hasValue("it holds no plugin of type calico (plugins: portmap); "
                + "Calico rewrites its file in place, so this is taken for a file still being written");
    }

    @Test
    void calicosKubeconfigAndTlsDirectoryAreNeverConfigurationsByTheCoresOwnRules()
    {
        node.write("calico-kubeconfig", "apiVersion: v1\n");
        node.write("10-calico.conflist", TestNode.CALICO);
        try {
            java.nio.file.Files.createDirectories(node.conf("calico-tls"));
        }
        catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        var view = node.snapshot();
        assertThat(view.isNeverConfig("calico-kubeconfig")).isTrue();
        assertThat(view.entry("calico-tls").orElseThrow().runtimeLoadable()).isFalse();
        assertThat(view.entry("10-calico.conflist").orElseThrow().runtimeLoadable()).isTrue();
    }

    @Test
    void invalidConfFileValuesNameTheAdapterTheKeyAndTheValue()
    {
        for (String value : List.of("", "..", "net.d/10-calico.conflist")) {
            assertThatThrownBy(() -> adapter.authoritativeConfigs(node.snapshot(), new AdapterSettings("calico", Map.of("confFile", value))))
                    .as(value)
                    .isInstanceOfSatisfying(AdapterException.class, e -> {
                        assertThat(e.code()).isEqualTo(AdapterException.Code.INVALID_SETTING);
                        assertThat(e.getMessage()).isEqualTo("adapters.calico.confFile: '" + value
                                + "' must be a file name in the conf dir /etc/cni/net.d (or an absolute path in it)");
                    });
        }
        assertThatThrownBy(() -> adapter.authoritativeConfigs(node.snapshot(), new AdapterSettings("calico", Map.of("confFile", "/etc/cni/10-calico.conflist"))))
                .hasMessage("adapters.calico.confFile: '/etc/cni/10-calico.conflist' must name a file in the conf dir /etc/cni/net.d");
        assertThatThrownBy(() -> adapter.authoritativeConfigs(node.snapshot(), new AdapterSettings("calico", Map.of("confFile", "calico-kubeconfig"))))
                .hasMessage("adapters.calico.confFile: 'calico-kubeconfig' names a file that is never a configuration (a hidden file, a backup, a temp file or a kubeconfig)");
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(adapter.authoritativeConfigs(node.snapshot(), new AdapterSettings("calico", Map.of("confFile", "/etc/cni/net.d/10-calico.conflist"))))
                .as("an absolute path in the conf dir names the same file").extracting(ConfigTarget::path)
                .containsExactly(Path.of("/etc/cni/net.d/10-calico.conflist"));
    }
}
