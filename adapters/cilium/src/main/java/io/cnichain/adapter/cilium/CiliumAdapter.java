package io.cnichain.adapter.cilium;

import io.cnichain.spi.AdapterException;
import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.CniConfig;
import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.Detection;
import io.cnichain.spi.NodeView;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Cilium writes one file, {@code 05-cilium.conflist} by default (its {@code write-cni-conf-when-ready} path is
 * configurable, so the file may have another name or extension), atomically through a hidden temp file
 * ({@code .05-cilium.conflistNNN}). In exclusive mode (Helm {@code cni.exclusive}, true by default) it
 * renames every other configuration to {@code *.cilium_bak} and reverts edits to its own file.
 *
 * <p>The authoritative file is the one named by the setting {@code confFile}; without it, {@code 05-cilium.conflist},
 * else a legacy {@code 05-cilium.conf} (which the core converts), else a file under another extension that
 * holds a {@code cilium-cni} plugin (for example {@code 05-cilium.conflist-current} with no link to it).
 * Backups and temp files are never patched.
 */
public final class CiliumAdapter
        implements CniPlatformAdapter
{
    public static final String NAME = "cilium";
    public static final String CONF_FILE = "confFile";
    public static final String DEFAULT_CONF_FILE = "05-cilium.conflist";
    public static final String LEGACY_CONF_FILE = "05-cilium.conf";
    public static final String PLUGIN_TYPE = "cilium-cni";
    public static final String BACKUP_SUFFIX = ".cilium_bak";

    /** Cilium renames a legacy .conf aside whatever its mode, so that backup says nothing about exclusive mode. */
    private static final String LEGACY_BACKUP = LEGACY_CONF_FILE + BACKUP_SUFFIX;
    private static final int SHOWN_BACKUPS = 3;

    static final String FIX = "set the Helm value cni.exclusive=false (agent option cni-exclusive: \"false\" in the cilium-config "
            + "ConfigMap) and restart the Cilium agents";
    static final String FIGHT_HINT = "Cilium's exclusive mode reverts every edit to its configuration file and renames other "
            + "configurations to *.cilium_bak: " + FIX;

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public String description()
    {
        return "Cilium: 05-cilium.conflist or the file named by confFile (any extension); never *.cilium_bak or temp files";
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
        List<ConfigEntry> own = ownFiles(node, settings);
        for (ConfigEntry entry : own) {
            String what = entry.name() + " present" + (isNamedFile(entry.name(), settings) ? "" : " (holds a plugin of type " + PLUGIN_TYPE + ")");
            if (entry == own.get(0)) {
                detection.add(Detection.PLATFORM_FILE, what);
            }
            else {
                detection.note(what);
            }
        }
        if (node.hasBinary(PLUGIN_TYPE)) {
            detection.add(Detection.PLATFORM_BINARY, PLUGIN_TYPE + " in the bin dir " + node.binDir());
        }
        Optional<ConfigEntry> effective = node.effectiveConfig();
        if (effective.isPresent() && holdsCilium(node, effective.get())) {
            detection.add(Detection.PLATFORM_PLUGIN_LOADED, "the effective configuration " + effective.get().name() + " holds a plugin of type " + PLUGIN_TYPE);
        }
        List<String> backups = backups(node);
        if (!backups.isEmpty()) {
            detection.add(Detection.HINT, "Cilium backups in the conf dir: " + shortList(backups));
        }
        return detection.build();
    }

    @Override
    public List<ConfigTarget> authoritativeConfigs(NodeView node, AdapterSettings settings)
    {
        Optional<String> configured = settings.fileInConfDir(CONF_FILE, node);
        if (configured.isPresent()) {
            Optional<ConfigEntry> entry = node.entry(configured.get());
            return entry.isPresent() ? List.of(target(node, entry.get(), "Cilium's configuration file (setting " + CONF_FILE + ")")) : List.of();
        }
        Optional<ConfigEntry> conflist = node.entry(DEFAULT_CONF_FILE);
        if (conflist.isPresent()) {
            return List.of(target(node, conflist.get(), "Cilium's configuration file"));
        }
        Optional<ConfigEntry> legacy = node.entry(LEGACY_CONF_FILE);
        if (legacy.isPresent()) {
            return List.of(target(node, legacy.get(), "Cilium's legacy single-plugin file (converted to a list)"));
        }
        List<ConfigEntry> others = otherExtensionFiles(node);
        if (others.isEmpty()) {
            return List.of();
        }
        return List.of(target(node, others.get(0), "Cilium's configuration under another extension (holds a plugin of type " + PLUGIN_TYPE + ")"));
    }

    @Override
    public List<String> warnings(NodeView node, AdapterSettings settings)
    {
        List<String> renamed = new ArrayList<>(backups(node));
        renamed.remove(LEGACY_BACKUP);
        if (renamed.isEmpty()) {
            return List.of();
        }
        return List.of("Cilium's exclusive mode looks active: it renamed " + shortList(renamed) + " aside, and it reverts every "
                + "edit to its own file, cni-chain's entry included; " + FIX);
    }

    @Override
    public Optional<String> fightHint()
    {
        return Optional.of(FIGHT_HINT);
    }

    /**
     * The target for Cilium's file, seen under the name the runtime loads it by: a file that is not itself a
     * runtime name (a {@code .conflist-current}) is reported through a link to it when there is one.
     */
    private static ConfigTarget target(NodeView node, ConfigEntry entry, String reason)
    {
        if (entry.runtimeLoadable()) {
            return ConfigTarget.of(entry, reason);
        }
        Path file = entry.resolvedFile().orElseThrow();
        for (ConfigEntry link : node.entries()) {
            if (link.runtimeLoadable() && link.isSymlink() && link.resolvedFile().isPresent() && link.resolvedFile().get().equals(file)) {
                return ConfigTarget.of(link, reason + ", loaded by the runtime through the link " + link.name());
            }
        }
        return ConfigTarget.of(entry, reason + ", not yet linked under a name the runtime loads");
    }

    private static boolean isNamedFile(String name, AdapterSettings settings)
    {
        Optional<String> configured = settings.get(CONF_FILE);
        return name.equals(DEFAULT_CONF_FILE) || name.equals(LEGACY_CONF_FILE)
                || configured.isPresent() && (configured.get().endsWith("/" + name) || configured.get().equals(name));
    }

    /** Cilium's own files: the one named by confFile, the default names, and files under other extensions holding Cilium's plugin. */
    private static List<ConfigEntry> ownFiles(NodeView node, AdapterSettings settings)
    {
        List<ConfigEntry> own = new ArrayList<>();
        Optional<String> configured;
        try {
            configured = settings.fileInConfDir(CONF_FILE, node);
        }
        catch (AdapterException e) {
            // An unusable setting is reported where the files are listed; detection goes on with the default names.
            configured = Optional.empty();
        }
        if (configured.isPresent()) {
            addNew(own, node.entry(configured.get()));
        }
        addNew(own, node.entry(DEFAULT_CONF_FILE));
        addNew(own, node.entry(LEGACY_CONF_FILE));
        for (ConfigEntry other : otherExtensionFiles(node)) {
            addNew(own, Optional.of(other));
        }
        return own;
    }

    private static void addNew(List<ConfigEntry> own, Optional<ConfigEntry> entry)
    {
        if (entry.isPresent() && !own.contains(entry.get())) {
            own.add(entry.get());
        }
    }

    /**
     * Files the runtime would not load by their name, that are not backups or temp files, and that hold a
     * Cilium configuration: where Cilium's file ends up when its path is configured to another extension.
     */
    private static List<ConfigEntry> otherExtensionFiles(NodeView node)
    {
        List<ConfigEntry> files = new ArrayList<>();
        for (ConfigEntry entry : node.entries()) {
            if (!entry.runtimeLoadable() && !node.isNeverConfig(entry.name()) && entry.resolves() && holdsCilium(node, entry)) {
                files.add(entry);
            }
        }
        return files;
    }

    private static boolean holdsCilium(NodeView node, ConfigEntry entry)
    {
        Optional<CniConfig> config = node.parse(entry).config();
        return config.isPresent() && config.get().hasPluginType(PLUGIN_TYPE);
    }

    private static List<String> backups(NodeView node)
    {
        List<String> backups = new ArrayList<>();
        for (ConfigEntry entry : node.entries()) {
            if (entry.name().endsWith(BACKUP_SUFFIX)) {
                backups.add(entry.name());
            }
        }
        return backups;
    }

    private static String shortList(List<String> names)
    {
        if (names.size() <= SHOWN_BACKUPS) {
            return String.join(", ", names);
        }
        return String.join(", ", names.subList(0, SHOWN_BACKUPS)) + " and " + (names.size() - SHOWN_BACKUPS) + " more";
    }
}
