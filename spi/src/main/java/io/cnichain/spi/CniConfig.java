package io.cnichain.spi;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A summary of a valid CNI configuration, enough for an adapter to recognise its platform without parsing
 * JSON itself.
 *
 * @param format      a single-plugin configuration or a plugin list
 * @param networkName the network's {@code name}
 * @param cniVersion  the {@code cniVersion}, when present
 * @param pluginTypes the {@code type} of every plugin, in order (one for a single-plugin configuration)
 */
public record CniConfig(Format format, String networkName, Optional<String> cniVersion, List<String> pluginTypes)
{
    public CniConfig
    {
        requireNonNull(format, "format is null");
        requireNonNull(networkName, "networkName is null");
        requireNonNull(cniVersion, "cniVersion is null");
        pluginTypes = List.copyOf(requireNonNull(pluginTypes, "pluginTypes is null"));
    }

    /**
     * @param type a plugin type, for example {@code "cilium-cni"}
     * @return whether a plugin of that type is in the configuration
     */
    public boolean hasPluginType(String type)
    {
        return pluginTypes.contains(type);
    }

    /** The two shapes of a CNI configuration. */
    public enum Format
    {
        /** A single plugin ({@code .conf}, {@code .json}): the top level has a {@code type}. */
        SINGLE,
        /** A plugin list ({@code .conflist}): the top level has {@code plugins}. */
        LIST,
    }
}
