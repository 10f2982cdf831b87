package io.cnichain.distribution.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.json.CniJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The layouts a primary leaves in the conf dir, each made of real plugins ({@code bridge} with
 * {@code host-local}, and {@code portmap}) standing in for the platform's own binaries.
 */
public enum Layout
{
    PLAIN_CONFLIST("plain", "a plain .conflist")
    {
        @Override
        public Primary lay(RuntimeNode node)
        {
            Net net = Net.of(node, this, "1.0.0");
            Path file = write(node.conf("10-bridge.conflist"), node.primaryList(net.name, net.cniVersion, net.bridge, net.subnet));
            return net.primary(this, file, file, file, file, Optional.empty(), List.of("bridge", "portmap"));
        }
    },
    CONF_CONVERTED("conf", "a .conf converted to .conflist")
    {
        @Override
        public Primary lay(RuntimeNode node)
        {
            Net net = Net.of(node, this, "0.4.0");
            Path conf = write(node.conf("10-bridge.conf"), node.primarySingle(net.name, net.cniVersion, net.bridge, net.subnet));
            Path conflist = node.conf("10-bridge.conflist");
            return net.primary(this, conflist, conflist, conf, conf, Optional.empty(), List.of("bridge"));
        }
    },
    OCI_RELATIVE_LINK("oci", "an OCI-style relative link to a .conflist-current")
    {
        @Override
        public Primary lay(RuntimeNode node)
        {
            Net net = Net.of(node, this, "0.3.1");
            Path current = write(node.conf("10-oci.conflist-current"), node.primaryList(net.name, net.cniVersion, net.bridge, net.subnet));
            Path link = link(node.conf("10-oci.conflist"), "10-oci.conflist-current");
            return net.primary(this, link, current, link, current, Optional.of("10-oci.conflist-current"), List.of("bridge", "portmap"));
        }
    },
    ABSOLUTE_LINK("abslink", "an absolute link to a file in another directory")
    {
        @Override
        public Primary lay(RuntimeNode node)
        {
            Net net = Net.of(node, this, "1.0.0");
            // Outside the conf dir's parent, so the allowed roots must name it (YAML, as an operator would).
            Path elsewhere = node.root().resolve("var/lib/primary");
            Path real = write(elsewhere.resolve("10-primary.conflist"), node.primaryList(net.name, net.cniVersion, net.bridge, net.subnet));
            Path link = link(node.conf("10-primary.conflist"), real.toString());
            node.yaml("allowedRoots: [" + node.confDir().getParent() + ", " + elsewhere + "]\n");
            return net.primary(this, link, real, link, real, Optional.of(real.toString()), List.of("bridge", "portmap"));
        }
    },
    CILIUM_NAMED("cilium", "a Cilium-named file, 05-cilium.conflist")
    {
        @Override
        public Primary lay(RuntimeNode node)
        {
            Net net = Net.of(node, this, "0.3.1");
            Path file = write(node.conf("05-cilium.conflist"), node.primaryList(net.name, net.cniVersion, net.bridge, net.subnet));
            return net.primary(this, file, file, file, file, Optional.empty(), List.of("bridge", "portmap"));
        }
    };

    private final String label;
    private final String description;

    Layout(String label, String description)
    {
        this.label = label;
        this.description = description;
    }

    public String label()
    {
        return label;
    }

    /** Writes the primary's files into the node's conf dir (and elsewhere, for a link). */
    public abstract Primary lay(RuntimeNode node);

    @Override
    public String toString()
    {
        return description;
    }

    public static Path write(Path file, String content)
    {
        try {
            Files.createDirectories(file.getParent());
            return Files.writeString(file, content);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Path link(Path link, String target)
    {
        try {
            return Files.createSymbolicLink(link, Path.of(target));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private record Net(String name, String cniVersion, String bridge, String subnet)
    {
        static Net of(RuntimeNode node, Layout layout, String cniVersion)
        {
            return new Net(node.network(layout.label), cniVersion, node.bridge("a"), node.sandbox().subnet());
        }

        Primary primary(Layout layout, Path installedEntry, Path installedFile, Path restoredEntry, Path restoredFile, Optional<String> linkText,
                List<String> types)
        {
            JsonNode original = RuntimeNode.json(restoredFile);
            return new Primary(layout, name, cniVersion, bridge, subnet, types, installedEntry, installedFile, restoredEntry, restoredFile, linkText,
                    original);
        }
    }

    /**
     * A primary as laid out.
     *
     * @param layout         which layout
     * @param network        its network name (podman's --network)
     * @param cniVersion     its cniVersion
     * @param bridge         the bridge its bridge plugin makes
     * @param subnet         its pod subnet
     * @param primaryTypes   its plugins, in order
     * @param installedEntry the conf-dir entry the runtime loads after install
     * @param installedFile  the file behind it, where our entry is written
     * @param restoredEntry  the conf-dir entry the runtime loads after uninstall (and before install)
     * @param restoredFile   the file behind it
     * @param linkText       the link's text, when the entry is a link
     * @param original       the primary's configuration before install
     */
    public record Primary(Layout layout, String network, String cniVersion, String bridge, String subnet, List<String> primaryTypes, Path installedEntry,
                   Path installedFile, Path restoredEntry, Path restoredFile, Optional<String> linkText, JsonNode original)
    {
        public Primary
        {
            requireNonNull(layout, "layout is null");
            primaryTypes = List.copyOf(primaryTypes);
            requireNonNull(linkText, "linkText is null");
        }

        /** The subnet's first three octets and a dot, e.g. "10.231.4.". */
        public String subnetPrefix()
        {
            return subnet.substring(0, subnet.lastIndexOf('.') + 1);
        }

        public String originalText()
        {
            return new String(CniJson.write(original), StandardCharsets.UTF_8);
        }
    }
}
