package io.cnichain.core.discovery;

import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.spi.CniConfig;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which file names are configurations. Runtimes (libcni's {@code ConfFiles}, used by containerd and CRI-O) load
 * every entry that is not a directory and whose extension, as Go's {@code filepath.Ext} sees it, is exactly
 * {@code .conf}, {@code .conflist} or {@code .json}: hidden files included. Other names are never configurations on
 * any platform (other tools' temp files such as Cilium's {@code .05-cilium.conflist123}, backups, kubeconfigs):
 * events on them are noise, and no adapter may name them.
 */
public final class ConfigNames
{
    public static final List<String> RUNTIME_EXTENSIONS = List.of(".conf", ".conflist", ".json");

    private static final List<String> NEVER_CONFIG_SUFFIXES = List.of(".cilium_bak", ".tmp", ".install", ".old", ".bak", ".swp", "~");

    private ConfigNames() {}

    /**
     * @param name a file name
     * @return whether the name is never a configuration: not one the runtime loads, and a hidden file, a backup, a
     *         temp file or a kubeconfig
     */
    public static boolean isNeverConfig(String name)
    {
        if (isRuntimeLoadable(name)) {
            return false;
        }
        if (name.startsWith(".") || AtomicFileWriter.isTempName(name)) {
            return true;
        }
        for (String suffix : NEVER_CONFIG_SUFFIXES) {
            if (name.endsWith(suffix)) {
                return true;
            }
        }
        return name.toLowerCase(Locale.ROOT).contains("kubeconfig");
    }

    /**
     * @param name a file name
     * @return whether a container runtime loads a (non-directory) entry of that name as a configuration
     */
    public static boolean isRuntimeLoadable(String name)
    {
        return RUNTIME_EXTENSIONS.stream().anyMatch(name::endsWith);
    }

    /**
     * The format a runtime expects from the name alone: a {@code .conflist} is a list, a {@code .conf} or
     * {@code .json} a single plugin. Other names (a {@code .conflist-current}) say nothing.
     *
     * @param name a file name
     * @return the format the name implies
     */
    public static Optional<CniConfig.Format> formatByName(String name)
    {
        if (name.endsWith(".conflist")) {
            return Optional.of(CniConfig.Format.LIST);
        }
        if (name.endsWith(".conf") || name.endsWith(".json")) {
            return Optional.of(CniConfig.Format.SINGLE);
        }
        return Optional.empty();
    }
}
