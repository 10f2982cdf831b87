package io.cnichain.core.patch;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.config.PluginEntry;
import io.cnichain.core.discovery.CniConfigParser;
import io.cnichain.core.discovery.CniConfigParser.LoadedConfig;
import io.cnichain.core.json.CniJson;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A single-plugin file becomes a list with the network name and {@code cniVersion} libcni read from it: Go's decoder
 * matches a key to its field whatever its case, and the last match wins.
 */
class ConversionAsLibcniReadsTest
{
    private static final ObjectNode ENTRY = new PluginEntry((ObjectNode) CniJson.parse(PluginEntry.LINKERD_DEFAULT.getBytes(StandardCharsets.UTF_8)),
            "test").render(Path.of("/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig"));

    @Test
    void theListKeepsTheNameAndVersionTheRuntimeRead()
    {
        String text = "{\"cniVersion\":\"0.3.1\",\"name\":\"a\",\"Name\":\"b\",\"CNIVersion\":\"1.0.0\",\"type\":\"bridge\"}";
        LoadedConfig before = CniConfigParser.parse("10-bridge.conf", text.getBytes(StandardCharsets.UTF_8));
        byte[] list = converted(text);
        LoadedConfig after = CniConfigParser.parse("10-bridge.conflist", list);
        assertThat(after.summary().networkName()).as(new String(list, StandardCharsets.UTF_8)).isEqualTo("b").isEqualTo(before.summary().networkName());
        assertThat(after.summary().cniVersion()).contains("1.0.0").isEqualTo(before.summary().cniVersion());
    }

    @Test
    void aNameWrittenInCapitalsIsAName()
    {
        LoadedConfig after = CniConfigParser.parse("10-bridge.conflist", converted("{\"cniVersion\":\"1.0.0\",\"Name\":\"b\",\"type\":\"bridge\"}"));
        assertThat(after.summary().networkName()).isEqualTo("b");
        assertThat(after.summary().pluginTypes()).containsExactly("bridge", "linkerd-cni");
    }

    /** ı folds only to itself in Go: "cnıVersion" is no field, and the list keeps the version the runtime read. */
    @Test
    void aKeyGoDoesNotFoldToAFieldIsNotThatField()
    {
        String text = "{\"cniVersion\":\"0.3.1\",\"cn\u0131Version\":\"1.0.0\",\"name\":\"a\",\"type\":\"bridge\"}";
        assertThat(CniConfigParser.parse("10-bridge.conf", text.getBytes(StandardCharsets.UTF_8)).summary().cniVersion()).contains("0.3.1");
        assertThat(CniConfigParser.parse("10-bridge.conflist", converted(text)).summary().cniVersion()).contains("0.3.1");
    }

    private static byte[] converted(String single)
    {
        PatchPlan plan = ConfigFilePatcher.planInstall("10-bridge.conf", "10-bridge.conf", single.getBytes(StandardCharsets.UTF_8), ENTRY);
        assertThat(plan).isInstanceOf(PatchPlan.Replace.class);
        return ((PatchPlan.Replace) plan).content();
    }
}
