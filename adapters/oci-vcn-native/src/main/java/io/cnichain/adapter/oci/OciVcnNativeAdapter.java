package io.cnichain.adapter.oci;

import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.CniConfig;
import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.Detection;
import io.cnichain.spi.NodeView;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * OCI VCN-Native keeps its real configuration in {@code NAME.conflist-current} and exposes it to the runtime as
 * {@code NAME.conflist}, a link to it; the platform's daemon rewrites the file. The authoritative files are:
 * every {@code *.conflist-current} file of the conf dir, patched even while no link exposes it (so it is
 * already patched when the platform links it), seen through its link when there is one; every runtime-loadable
 * link whose target is a {@code *.conflist-current} elsewhere; and {@code 10-oci.conflist} itself when the
 * platform writes it as a regular file.
 */
public final class OciVcnNativeAdapter
        implements CniPlatformAdapter
{
    public static final String NAME = "oci-vcn-native";
    public static final String CURRENT_SUFFIX = ".conflist-current";
    public static final String PRIMARY_FILE = "10-oci.conflist";
    public static final String NETWORK_NAME = "oci";
    public static final List<String> PLUGIN_TYPES = List.of("oci-ipvlan", "oci-ptp");
    public static final List<String> BINARIES = List.of("oci-ipvlan", "oci-ptp", "oci-ipam");

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public String description()
    {
        return "OCI VCN-Native: NAME.conflist-current behind the NAME.conflist link, patched even before the link exists";
    }

    @Override
    public Detection detect(NodeView node, AdapterSettings settings)
    {
        List<String> evidence = new ArrayList<>();
        boolean ownFile = false;
        boolean namingOnly = false;
        Optional<ConfigEntry> primary = node.entry(PRIMARY_FILE);
        if (primary.isPresent()) {
            ownFile = true;
            ConfigEntry entry = primary.get();
            evidence.add(PRIMARY_FILE + " present" + (!entry.isSymlink() ? ""
                    : entry.resolvedFile().isPresent() ? " (a link to " + entry.resolvedFile().get() + ")" : " (a link that does not resolve)"));
        }
        for (ConfigEntry entry : currentFiles(node)) {
            Optional<CniConfig> config = node.parse(entry).config();
            if (config.isPresent() && isOci(config.get())) {
                ownFile = true;
                evidence.add(entry.name() + " present (network " + config.get().networkName() + ", plugins "
                        + String.join(", ", config.get().pluginTypes()) + ")");
            }
            else {
                namingOnly = true;
                evidence.add(entry.name() + " present (OCI's naming, but " + (config.isPresent() ? "network " + config.get().networkName() : "it does not parse now")
                        + ")");
            }
        }
        int score = ownFile ? Detection.PLATFORM_FILE : namingOnly ? Detection.HINT : 0;
        List<String> binaries = new ArrayList<>();
        for (String binary : BINARIES) {
            if (node.hasBinary(binary)) {
                binaries.add(binary);
            }
        }
        if (!binaries.isEmpty()) {
            score += Detection.PLATFORM_BINARY;
            evidence.add(String.join(", ", binaries) + " in the bin dir " + node.binDir());
        }
        Optional<ConfigEntry> effective = node.effectiveConfig();
        if (effective.isPresent() && isOciFile(effective.get())) {
            Optional<CniConfig> config = node.parse(effective.get()).config();
            if (config.isPresent() && isOci(config.get())) {
                score += Detection.PLATFORM_PLUGIN_LOADED;
                evidence.add("the runtime loads " + effective.get().name() + ", an OCI configuration (network " + config.get().networkName()
                        + ", plugins " + String.join(", ", config.get().pluginTypes()) + ")");
            }
        }
        return new Detection(score, evidence);
    }

    @Override
    public List<ConfigTarget> authoritativeConfigs(NodeView node, AdapterSettings settings)
    {
        Map<Path, ConfigTarget> byTarget = new LinkedHashMap<>();
        // Links the runtime loads first, so that each file is reported under the name the runtime sees.
        for (ConfigEntry entry : node.entries()) {
            if (!entry.runtimeLoadable() || !entry.resolves()) {
                continue;
            }
            Path file = entry.resolvedFile().orElseThrow();
            if (entry.isSymlink() && entry.resolvedFileName().orElseThrow().endsWith(CURRENT_SUFFIX)) {
                byTarget.putIfAbsent(file, ConfigTarget.of(entry,
                        "OCI's configuration " + entry.resolvedFileName().get() + ", exposed to the runtime by the link " + entry.name()));
            }
            else if (entry.name().equals(PRIMARY_FILE)) {
                byTarget.putIfAbsent(file, ConfigTarget.of(entry, "OCI's configuration file " + PRIMARY_FILE));
            }
        }
        for (ConfigEntry entry : currentFiles(node)) {
            if (entry.resolves()) {
                byTarget.putIfAbsent(entry.resolvedFile().orElseThrow(), ConfigTarget.of(entry,
                        "OCI's configuration, not yet exposed by a link; patched so it is ready when the platform links it"));
            }
        }
        return List.copyOf(byTarget.values());
    }

    private static List<ConfigEntry> currentFiles(NodeView node)
    {
        List<ConfigEntry> files = new ArrayList<>();
        for (ConfigEntry entry : node.entries()) {
            if (entry.name().endsWith(CURRENT_SUFFIX) && !node.isNeverConfig(entry.name())) {
                files.add(entry);
            }
        }
        return files;
    }

    /** A file this adapter patches: the primary's name, or a link to a {@code .conflist-current}. */
    private static boolean isOciFile(ConfigEntry entry)
    {
        return entry.name().equals(PRIMARY_FILE) || entry.resolvedFileName().isPresent() && entry.resolvedFileName().get().endsWith(CURRENT_SUFFIX);
    }

    private static boolean isOci(CniConfig config)
    {
        if (config.networkName().equals(NETWORK_NAME)) {
            return true;
        }
        for (String type : PLUGIN_TYPES) {
            if (config.hasPluginType(type)) {
                return true;
            }
        }
        return false;
    }
}
