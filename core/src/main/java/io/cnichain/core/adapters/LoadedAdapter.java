package io.cnichain.core.adapters;

import io.cnichain.spi.CniPlatformAdapter;

import static java.util.Objects.requireNonNull;

/**
 * An adapter the registry found, with where it came from.
 *
 * @param adapter  the adapter
 * @param version  its implementation version, or "unknown"
 * @param origin   built into the agent, elsewhere on the classpath, or from a plugin jar
 * @param location the jar or directory it was loaded from, for messages
 */
public record LoadedAdapter(CniPlatformAdapter adapter, String version, Origin origin, String location)
{
    public LoadedAdapter
    {
        requireNonNull(adapter, "adapter is null");
        requireNonNull(version, "version is null");
        requireNonNull(origin, "origin is null");
        requireNonNull(location, "location is null");
    }

    public String name()
    {
        return adapter.name();
    }

    /** Where an adapter came from. */
    public enum Origin
    {
        BUILT_IN("built-in"),
        CLASSPATH("classpath"),
        PLUGIN("plugin jar");

        private final String label;

        Origin(String label)
        {
            this.label = label;
        }

        public String label()
        {
            return label;
        }
    }
}
