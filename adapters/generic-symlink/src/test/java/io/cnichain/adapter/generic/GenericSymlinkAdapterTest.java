package io.cnichain.adapter.generic;

import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.testkit.AdapterSmoke;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.ConfigTarget;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(TempNodeExtension.class)
class GenericSymlinkAdapterTest
{
    TestNode node;
    CniPlatformAdapter adapter;

    @BeforeEach
    void setUp(TestNode node)
    {
        this.node = node;
        adapter = new GenericSymlinkAdapter();
    }

    @Test
    void loadsThroughServiceLoaderAsTheAgentDoes()
    {
        LoadedAdapter loaded = AdapterSmoke.loadBuiltIn("generic-symlink", GenericSymlinkAdapter.class);
        assertThat(loaded.adapter().settingNames()).isEmpty();
    }

    @Test
    void patchesTheEffectiveConfigurationThroughItsLinks()
    {
        node.write("10-oci.conflist-current", TestNode.OCI);
        node.link("10-oci.conflist", "10-oci.conflist-current");
        node.write("20-calico.conflist", TestNode.CALICO);
        List<ConfigTarget> targets = adapter.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("generic-symlink"));
        assertThat(targets).singleElement().satisfies(t -> {
            assertThat(t.path()).isEqualTo(Path.of("/etc/cni/net.d/10-oci.conflist"));
            assertThat(t.resolvedFile()).isEqualTo(Path.of("/etc/cni/net.d/10-oci.conflist-current"));
            assertThat(t.entry().isSymlink()).isTrue();
        });
        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name())).score()).isEqualTo(1);
        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name())).evidence()).containsExactly(
                "effective configuration 10-oci.conflist is a link to /etc/cni/net.d/10-oci.conflist-current");
    }

    @Test
    void nothingToPatchWithoutAPrimary()
    {
        node.write("10-oci.conflist-current", TestNode.OCI);
        node.write("calico-kubeconfig", "apiVersion: v1");
        assertThat(adapter.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("generic-symlink"))).isEmpty();
        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name())).matched()).isFalse();
    }

    @Test
    void aFirstConfigurationOutsideTheAllowedRootsBlocksRatherThanPatchingAFileTheRuntimeIgnores()
    {
        node.writeAt(node.host("/srv/00-x.conflist"), TestNode.CILIUM);
        node.link("00-x.conflist", "/srv/00-x.conflist");
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(adapter.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("generic-symlink"))).isEmpty();
    }

    @Test
    void skipsBrokenAndDanglingEntriesAsTheRuntimeDoes()
    {
        node.write("01-broken.conflist", "{");
        node.link("02-dangling.conflist", "nowhere");
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(adapter.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("generic-symlink")))
                .extracting(ConfigTarget::path).containsExactly(Path.of("/etc/cni/net.d/10-calico.conflist"));
    }

    @Test
    void aLoneConfigurationThatDoesNotParseYetIsNamedSoTheCoreWaitsForIt()
    {
        node.write("10-calico.conflist", "{\"name\":\"k8s-pod-network\",\"plugins\":[{\"type\":");
        assertThat(adapter.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("generic-symlink")))
                .singleElement().satisfies(t -> assertThat(t.reason()).contains("does not parse yet"));
        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name())).matched()).isFalse();
    }
}
