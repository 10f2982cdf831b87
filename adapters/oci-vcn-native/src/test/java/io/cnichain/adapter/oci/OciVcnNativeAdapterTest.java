package io.cnichain.adapter.oci;

import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.testkit.AdapterSmoke;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.Detection;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(TempNodeExtension.class)
class OciVcnNativeAdapterTest
{
    static final AdapterSettings NO_SETTINGS = AdapterSettings.empty("oci-vcn-native");

    TestNode node;
    OciVcnNativeAdapter adapter = new OciVcnNativeAdapter();

    @BeforeEach
    void setUp(TestNode node)
    {
        this.node = node;
    }

    @Test
    void loadsThroughServiceLoaderAsTheAgentDoes()
    {
        LoadedAdapter loaded = AdapterSmoke.loadBuiltIn("oci-vcn-native", OciVcnNativeAdapter.class);
        assertThat(loaded.adapter().settingNames()).isEmpty();
    }

    @Test
    void detectionNamesWhatItSaw()
    {
        node.binaries("oci-ipvlan", "oci-ptp", "oci-ipam");
        node.write("10-oci.conflist-current", TestNode.OCI);
        node.link("10-oci.conflist", "10-oci.conflist-current");
        Detection detection = adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name()));
        assertThat(detection.score()).isEqualTo(200);
        assertThat(detection.evidence()).containsExactly(
                "10-oci.conflist present (a link to /etc/cni/net.d/10-oci.conflist-current)",
                "10-oci.conflist-current present (network oci, plugins oci-ipvlan, oci-ptp)",
                "oci-ipvlan, oci-ptp, oci-ipam in the bin dir /opt/cni/bin",
                "the runtime loads 10-oci.conflist, an OCI configuration (network oci, plugins oci-ipvlan, oci-ptp)");
    }

    @Test
    void anotherPlatformsConflistCurrentIsOnlyAWeakHint()
    {
        node.write("05-cilium.conflist-current", TestNode.CILIUM);
        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name()))).isEqualTo(Detection.of(10,
                "05-cilium.conflist-current present (OCI's naming, but network cilium)"));
        node.write("06-broken.conflist-current", "{\"name\":");
        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name())).evidence()).contains("06-broken.conflist-current present (OCI's naming, but it does not parse now)");
    }

    @Test
    void theRuntimeLoadingAnotherPlatformsFileIsNoEvidence()
    {
        // Cilium chained onto OCI keeps the network name; the runtime loads Cilium's file, not OCI's.
        node.write("05-cilium.conflist", """
                {"name":"oci","cniVersion":"0.3.1","plugins":[{"type":"oci-ipvlan"},{"type":"oci-ptp"},{"type":"cilium-cni"}]}""");
        node.write("10-oci.conflist", TestNode.OCI);
        Detection detection = adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name()));
        assertThat(detection.score()).isEqualTo(100);
        assertThat(detection.evidence()).containsExactly("10-oci.conflist present");
    }

    @Test
    void aDanglingPrimaryLinkIsStillOcisNameButNothingToPatch()
    {
        node.link("10-oci.conflist", "10-oci.conflist-current");
        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name()))).isEqualTo(Detection.of(100, "10-oci.conflist present (a link that does not resolve)"));
        assertThat(adapter.authoritativeConfigs(node.snapshot(), NO_SETTINGS)).isEmpty();
    }

    @Test
    void notOciScoresZero()
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name()))).isEqualTo(Detection.none());
        assertThat(adapter.authoritativeConfigs(node.snapshot(), NO_SETTINGS)).isEmpty();
    }

    @Test
    void patchesEveryConflistCurrentEachOnceUnderTheNameTheRuntimeSees()
    {
        node.write("10-oci.conflist-current", TestNode.OCI);
        node.link("10-oci.conflist", "10-oci.conflist-current");
        node.link("20-alias.conflist", "10-oci.conflist-current");
        node.write("30-oci.conflist-current", TestNode.OCI);
        node.writeAt(node.host("/etc/cni/oci/40-oci.conflist-current"), TestNode.OCI);
        node.link("40-oci.conflist", "../oci/40-oci.conflist-current");
        List<ConfigTarget> targets = adapter.authoritativeConfigs(node.snapshot(), NO_SETTINGS);
        assertThat(targets).extracting(t -> t.path() + " => " + t.resolvedFile()).containsExactly(
                "/etc/cni/net.d/10-oci.conflist => /etc/cni/net.d/10-oci.conflist-current",
                "/etc/cni/net.d/40-oci.conflist => /etc/cni/oci/40-oci.conflist-current",
                "/etc/cni/net.d/30-oci.conflist-current => /etc/cni/net.d/30-oci.conflist-current");
        assertThat(targets.get(2).reason()).contains("not yet exposed by a link");
    }

    @Test
    void conflistCurrentThatDoesNotResolveIsSkipped()
    {
        node.link("10-oci.conflist-current", "nowhere");
        node.fifo(node.conf("20-oci.conflist-current"));
        assertThat(adapter.authoritativeConfigs(node.snapshot(), NO_SETTINGS)).isEmpty();
    }

    @Test
    void backupsOfConflistCurrentAreNotConfigurations()
    {
        node.write("10-oci.conflist-current.cilium_bak", TestNode.OCI);
        node.write(".10-oci.conflist-current", TestNode.OCI);
        assertThat(adapter.authoritativeConfigs(node.snapshot(), NO_SETTINGS)).isEmpty();
        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name()))).isEqualTo(Detection.none());
    }
}
