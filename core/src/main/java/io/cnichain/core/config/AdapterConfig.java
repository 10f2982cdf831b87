package io.cnichain.core.config;

import io.cnichain.spi.AdapterSettings;

import java.nio.file.Path;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Which adapter decides, where plugin jars are, and what each adapter is told.
 *
 * @param choice     {@code auto}, one name, or a list tried in order
 * @param pluginsDir container path of third-party adapter jars
 * @param settings   per-adapter settings ({@code adapters.<name>}), by adapter name
 * @param overrides  for an adapter name provided twice (built-in and plugin, or two plugins), which provider wins:
 *                   "built-in" or a plugin's Plugin-Id
 */
public record AdapterConfig(AdapterChoice choice, Path pluginsDir, Map<String, Map<String, String>> settings, Map<String, String> overrides)
{
    public AdapterConfig
    {
        requireNonNull(choice, "choice is null");
        requireNonNull(pluginsDir, "pluginsDir is null");
        settings = Map.copyOf(settings);
        overrides = Map.copyOf(overrides);
    }

    /**
     * @param adapterName an adapter's name
     * @return its settings (empty when none are configured)
     */
    public AdapterSettings settingsFor(String adapterName)
    {
        return new AdapterSettings(adapterName, settings.getOrDefault(adapterName, Map.of()));
    }
}
