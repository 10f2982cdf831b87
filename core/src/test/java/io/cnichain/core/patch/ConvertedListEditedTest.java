package io.cnichain.core.patch;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.json.CniJson;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A single-plugin {@code .conf} converted to a list at install, then edited by someone (a plugin added): uninstall
 * cannot give the single plugin back, and keeps the list, without our entry and without our marker, which would name
 * a file that is no longer coming back (hostile round 4, finding 11).
 */
class ConvertedListEditedTest
{
    @Test
    void anEditedConvertedListLosesOurEntryAndOurMarker()
    {
        String single = "{\"cniVersion\":\"0.3.1\",\"name\":\"mynet\",\"type\":\"bridge\",\"bridge\":\"cni0\"}\n";
        ObjectNode entry = (ObjectNode) CniJson.parse("{\"name\":\"linkerd-cni\",\"type\":\"linkerd-cni\"}".getBytes(StandardCharsets.UTF_8));
        PatchPlan.Replace converted = (PatchPlan.Replace) ConfigFilePatcher.planInstall("10-mynet.conf", "10-mynet.conf",
                single.getBytes(StandardCharsets.UTF_8), entry);
        String list = new String(converted.content(), StandardCharsets.UTF_8);
        assertThat(list).contains(Patcher.CONVERTED_FROM);
        String edited = list.replace("{\"name\":\"linkerd-cni\"", "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}},{\"name\":\"linkerd-cni\"");

        PatchPlan plan = ConfigFilePatcher.planUninstall("10-mynet.conflist", "10-mynet.conflist", edited.getBytes(StandardCharsets.UTF_8), "linkerd-cni");
        assertThat(plan).isInstanceOf(PatchPlan.Rewrite.class);
        String left = new String(((PatchPlan.Rewrite) plan).content(), StandardCharsets.UTF_8);
        assertThat(left).doesNotContain("linkerd-cni").doesNotContain(Patcher.CONVERTED_FROM).contains("portmap").contains("\"name\":\"mynet\"");
        assertThat(CniJson.parse(left.getBytes(StandardCharsets.UTF_8)).path("plugins")).hasSize(2);
    }
}
