package io.cnichain.core.adapters;

import io.cnichain.spi.CniPlatformAdapter;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * An adapter the registry found, with where it came from.
 *
 * @param adapter  the adapter (the registry hands out {@link GuardedAdapter}s)
 * @param version  its implementation version (a plugin's {@code Plugin-Version}), or "unknown"
 * @param origin   built into the agent, elsewhere on the classpath, or from a plugin jar
 * @param location the jar or directory it was loaded from, for messages
 * @param pluginId the {@code Plugin-Id} of its plugin jar, for a plugin's adapter
 */
public record LoadedAdapter(CniPlatformAdapter adapter, String version, Origin origin, String location, Optional<String> pluginId)
{
    public LoadedAdapter
    {
        requireNonNull(adapter, "adapter is null");
        requireNonNull(version, "version is null");
        requireNonNull(origin, "origin is null");
        requireNonNull(location, "location is null");
        requireNonNull(pluginId, "pluginId is null");
        if ((origin == Origin.PLUGIN) != pluginId.isPresent()) {
            throw new IllegalArgumentException("an adapter has a plugin id exactly when it comes from a plugin jar: " + location);
        }
    }

    public LoadedAdapter(CniPlatformAdapter adapter, String version, Origin origin, String location)
    {
        this(adapter, version, origin, location, Optional.empty());
    }

    public String name()
    {
        return adapter.name();
    }

    /**
     * @return the same adapter behind a {@link GuardedAdapter}
     */
    public LoadedAdapter guarded(java.time.Duration limit)
    {
        return adapter instanceof GuardedAdapter ? this
                : new LoadedAdapter(GuardedAdapter.guard(adapter, describeOrigin(), limit, origin == Origin.BUILT_IN), version, origin, location, pluginId);
    }

    /**
     * @return why the adapter is disabled, when it is (it threw, returned null or hung; see {@link GuardedAdapter})
     */
    public Optional<String> disabledReason()
    {
        return adapter instanceof GuardedAdapter guarded ? guarded.disabledReason() : Optional.empty();
    }

    /**
     * @return "enabled" or "disabled"
     */
    public String state()
    {
        return disabledReason().isPresent() ? "disabled" : "enabled";
    }

    /**
     * @return where the adapter came from, for people: "built-in", "classpath /x.jar" or "plugin jar /x.jar"
     */
    public String describeOrigin()
    {
        return origin == Origin.BUILT_IN ? origin.label() : origin.label() + " " + location;
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
