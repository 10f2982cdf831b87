package io.cnichain.adapter.calico;

import io.cnichain.spi.AdapterException;
import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.CniConfig;
import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.Detection;
import io.cnichain.spi.NodeView;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Calico's {@code install-cni} writes {@code 10-calico.conflist} (its {@code CNI_CONF_NAME}) in place, truncating
 * and then writing, on every start of {@code calico-node}, beside {@code calico-kubeconfig} and {@code calico-tls/}.
 *
 * <p>The authoritative file is the one named by the setting {@code confFile} (as {@code CNI_CONF_NAME}),
 * {@code 10-calico.conflist} by default. Because a reader can catch the file half-written, a file that parses
 * but holds no {@code calico} plugin is not complete: the core waits for the next change instead of patching
 * it (a file that does not parse is never patched anyway).
 */
public final class CalicoAdapter
        implements CniPlatformAdapter
{
    public static final String NAME = "calico";
    public static final String CONF_FILE = "confFile";
    public static final String DEFAULT_CONF_FILE = "10-calico.conflist";
    public static final String PLUGIN_TYPE = "calico";
    public static final List<String> BINARIES = List.of("calico", "calico-ipam");
    public static final String KUBECONFIG = "calico-kubeconfig";
    public static final String TLS_DIR = "calico-tls";
    /** What Cilium's exclusive mode makes of Calico's file when Cilium replaces Calico on a node. */
    private static final String CILIUM_BACKUP_PREFIX = "10-calico.";
    private static final String CILIUM_BACKUP_SUFFIX = ".cilium_bak";

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public String description()
    {
        return "Calico: 10-calico.conflist or confFile (CNI_CONF_NAME), patched only once Calico's in-place rewrite is complete";
    }

    @Override
    public Set<String> settingNames()
    {
        return Set.of(CONF_FILE);
    }

    @Override
    public Detection detect(NodeView node, AdapterSettings settings)
    {
        Detection.Builder detection = Detection.builder();
        String name = confFile(node, settings);
        Optional<ConfigEntry> own = node.entry(name);
        if (own.isPresent()) {
            Optional<String> error = node.parse(own.get()).error();
            detection.add(Detection.PLATFORM_FILE, name + " present" + (error.isPresent() ? " (does not parse now: " + error.get() + ")" : ""));
        }
        List<String> binaries = new ArrayList<>();
        for (String binary : BINARIES) {
            if (node.hasBinary(binary)) {
                binaries.add(binary);
            }
        }
        if (!binaries.isEmpty()) {
            detection.add(Detection.PLATFORM_BINARY, String.join(", ", binaries) + " in the bin dir " + node.binDir());
        }
        Optional<ConfigEntry> effective = node.effectiveConfig();
        Optional<CniConfig> loaded = effective.isPresent() ? node.parse(effective.get()).config() : Optional.empty();
        if (loaded.isPresent() && loaded.get().hasPluginType(PLUGIN_TYPE)) {
            detection.add(Detection.PLATFORM_PLUGIN_LOADED, "the effective configuration " + effective.get().name() + " holds a plugin of type " + PLUGIN_TYPE);
        }
        List<String> leftovers = new ArrayList<>();
        for (ConfigEntry entry : node.entries()) {
            if (entry.name().equals(KUBECONFIG)) {
                leftovers.add(KUBECONFIG + " in the conf dir");
            }
            else if (entry.name().equals(TLS_DIR) && entry.kind() == ConfigEntry.EntryKind.DIRECTORY) {
                leftovers.add(TLS_DIR + "/ in the conf dir");
            }
            else if (entry.name().startsWith(CILIUM_BACKUP_PREFIX) && entry.name().endsWith(CILIUM_BACKUP_SUFFIX)) {
                leftovers.add(entry.name() + " (a Calico configuration set aside by Cilium)");
            }
        }
        for (int i = 0; i < leftovers.size(); i++) {
            detection.add(i == 0 ? Detection.HINT : 0, leftovers.get(i));
        }
        return detection.build();
    }

    @Override
    public List<ConfigTarget> authoritativeConfigs(NodeView node, AdapterSettings settings)
    {
        String reason = settings.get(CONF_FILE).isPresent() ? "Calico's configuration file (setting " + CONF_FILE + ")" : "Calico's configuration file";
        Optional<ConfigEntry> entry = node.entry(confFileOrThrow(node, settings));
        return entry.isPresent() ? List.of(ConfigTarget.of(entry.get(), reason)) : List.of();
    }

    @Override
    public Optional<String> incompleteReason(ConfigTarget target, CniConfig config, AdapterSettings settings)
    {
        if (config.hasPluginType(PLUGIN_TYPE)) {
            return Optional.empty();
        }
        return Optional.of("it holds no plugin of type " + PLUGIN_TYPE + " (plugins: " + String.join(", ", config.pluginTypes())
                + "); Calico rewrites its file in place, so this is taken for a file still being written");
    }

    /** {@code confFile} is Calico's {@code CNI_CONF_NAME}: a file name in the conf dir. */
    private static String confFileOrThrow(NodeView node, AdapterSettings settings)
    {
        return settings.fileInConfDir(CONF_FILE, node).orElse(DEFAULT_CONF_FILE);
    }

    /** The same for detection, which goes on with the default name when the setting is unusable (listing the files reports it). */
    private static String confFile(NodeView node, AdapterSettings settings)
    {
        try {
            return confFileOrThrow(node, settings);
        }
        catch (AdapterException e) {
            return DEFAULT_CONF_FILE;
        }
    }
}
