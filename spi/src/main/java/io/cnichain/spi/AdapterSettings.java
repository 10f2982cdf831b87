package io.cnichain.spi;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * An adapter's settings from the {@code adapters.<name>} map of the YAML configuration, as plain strings.
 * The core has already rejected keys the adapter does not list in {@link CniPlatformAdapter#settingNames()}.
 *
 * @param adapter the adapter's name, for error messages
 * @param values  the settings
 */
public record AdapterSettings(String adapter, Map<String, String> values)
{
    public AdapterSettings
    {
        requireNonNull(adapter, "adapter is null");
        values = Map.copyOf(requireNonNull(values, "values is null"));
    }

    /**
     * @param adapter the adapter's name
     * @return settings with no values
     */
    public static AdapterSettings empty(String adapter)
    {
        return new AdapterSettings(adapter, Map.of());
    }

    /**
     * @param key a setting key
     * @return the value, when set
     */
    public Optional<String> get(String key)
    {
        return Optional.ofNullable(values.get(key));
    }

    /**
     * The common setting that names the platform's own file in the configuration directory (Cilium's
     * {@code write-cni-conf-when-ready}, Calico's {@code CNI_CONF_NAME}): a file name, or an absolute host path whose
     * directory is the configuration directory. Any extension is accepted; a name that is never a configuration
     * (hidden, a backup, a kubeconfig) is not.
     *
     * @param key  the setting key, for example {@code confFile}
     * @param node the node, for its configuration directory and the core's naming rules
     * @return the file name in the configuration directory, when the setting is set
     * @throws AdapterException with {@link AdapterException.Code#INVALID_SETTING}, naming the adapter, the key and the
     *                          value, when the value is not such a name
     */
    public Optional<String> fileInConfDir(String key, NodeView node)
    {
        Optional<String> value = get(key);
        if (value.isEmpty()) {
            return Optional.empty();
        }
        String raw = value.get();
        String name = raw;
        if (raw.startsWith("/")) {
            Path path = Path.of(raw).normalize();
            if (!node.confDir().equals(path.getParent())) {
                throw invalid(key, raw, "must name a file in the conf dir " + node.confDir());
            }
            name = path.getFileName().toString();
        }
        if (name.isEmpty() || name.contains("/") || name.contains("\0") || name.equals(".") || name.equals("..")) {
            throw invalid(key, raw, "must be a file name in the conf dir " + node.confDir() + " (or an absolute path in it)");
        }
        if (node.isNeverConfig(name)) {
            throw invalid(key, raw, "names a file that is never a configuration (a hidden file, a backup, a temp file or a kubeconfig)");
        }
        return Optional.of(name);
    }

    /**
     * @param key    the setting key
     * @param value  its value
     * @param reason why the value is unusable
     * @return the exception to throw, naming {@code adapters.<name>.<key>}
     */
    public AdapterException invalid(String key, String value, String reason)
    {
        return new AdapterException(AdapterException.Code.INVALID_SETTING, "adapters." + adapter + "." + key + ": '" + value + "' " + reason);
    }
}
