package io.cnichain.distribution.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.json.CniJson;
import io.cnichain.distribution.runtime.Layout;
import io.cnichain.distribution.runtime.RuntimeNode;
import io.cnichain.distribution.runtime.RuntimeRequirements;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** The node layouts the drop-in is proven on, made of the real bridge, host-local and portmap plugins. */
enum DropInLayout
{
    /** OCI's {@code 10-oci.conflist -> 10-oci.conflist-current}, the real-runtime suite's own layout. */
    OCI_LINK("oci")
    {
        @Override
        Primary lay(RuntimeNode node)
        {
            Layout.Primary primary = Layout.OCI_RELATIVE_LINK.lay(node);
            return new Primary(primary.network(), primary.subnetPrefix(), primary.primaryTypes(), primary.installedEntry(), primary.installedFile(),
                    primary.linkText(), primary.original(), List.of());
        }
    },
    /**
     * Calico's {@code 10-calico.conflist}, its {@code calico-kubeconfig} beside it, and its binaries: {@code calico}
     * and {@code calico-ipam} are the real bridge and host-local plugins under Calico's names (neither reads the
     * {@code type} it is called as), so the calico adapter finds Calico and the runtime still gets an address.
     */
    CALICO("calico")
    {
        @Override
        Primary lay(RuntimeNode node)
        {
            String network = node.network(label());
            String subnet = node.sandbox().subnet();
            ObjectNode calico = node.bridgePlugin(node.bridge("a"), subnet);
            calico.put("type", "calico");
            ((ObjectNode) calico.get("ipam")).put("type", "calico-ipam");
            ObjectNode list = CniJson.mapper().createObjectNode();
            list.put("name", network);
            list.put("cniVersion", "0.3.1");
            list.putArray("plugins").add(calico).addObject().put("type", "portmap").put("snat", true).putObject("capabilities").put("portMappings", true);
            try {
                Files.copy(RuntimeRequirements.PLUGIN_DIR.resolve("bridge"), node.binDir().resolve("calico"));
                Files.copy(RuntimeRequirements.PLUGIN_DIR.resolve("host-local"), node.binDir().resolve("calico-ipam"));
                Files.writeString(node.conf("calico-kubeconfig"), "# Calico's own kubeconfig\n");
                Path file = Files.write(node.conf("10-calico.conflist"), CniJson.write(list));
                return new Primary(network, subnet.substring(0, subnet.lastIndexOf('.') + 1), List.of("calico", "portmap"), file, file, Optional.empty(),
                        RuntimeNode.json(file), List.of("calico", "calico-ipam"));
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    private final String label;

    DropInLayout(String label)
    {
        this.label = label;
    }

    String label()
    {
        return label;
    }

    /** Writes the primary's files and binaries into the node. */
    abstract Primary lay(RuntimeNode node);

    /**
     * A primary as laid out.
     *
     * @param network         its network name (podman's --network)
     * @param subnetPrefix    its subnet's first three octets and a dot
     * @param primaryTypes    its plugins, in order
     * @param installedEntry  the conf-dir entry the runtime loads
     * @param installedFile   the file behind it, where the entry is written
     * @param linkText        the link's text, when the entry is a link
     * @param original        its configuration before install
     * @param platformBinaries binaries of the platform it added to the bin dir, besides the real-runtime suite's
     */
    record Primary(String network, String subnetPrefix, List<String> primaryTypes, Path installedEntry, Path installedFile, Optional<String> linkText,
                   JsonNode original, List<String> platformBinaries)
    {
        Primary
        {
            requireNonNull(network, "network is null");
            primaryTypes = List.copyOf(primaryTypes);
            requireNonNull(linkText, "linkText is null");
            platformBinaries = List.copyOf(platformBinaries);
        }

        String originalText()
        {
            return new String(CniJson.write(original), StandardCharsets.UTF_8);
        }
    }
}
