package io.cnichain.spi;

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
}
