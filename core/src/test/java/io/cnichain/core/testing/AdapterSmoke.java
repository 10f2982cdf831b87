package io.cnichain.core.testing;

import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.GuardedAdapter;
import io.cnichain.core.adapters.LoadedAdapter;

import static org.assertj.core.api.Assertions.assertThat;

/** The smoke test every built-in adapter has: loaded through ServiceLoader, as the agent loads it. */
public final class AdapterSmoke
{
    private AdapterSmoke() {}

    /**
     * @param name           the adapter's name
     * @param implementation its class
     * @return the adapter as the registry hands it out (behind the core's guard), for further checks
     */
    public static LoadedAdapter loadBuiltIn(String name, Class<?> implementation)
    {
        AdapterRegistry registry = AdapterRegistry.fromClassLoader(implementation.getClassLoader());
        assertThat(registry.problems()).isEmpty();
        LoadedAdapter loaded = registry.find(name).orElseThrow(() -> new AssertionError("no adapter named " + name + " on the classpath"));
        // The registry hands out every adapter behind the core's guard (time limit, containment).
        assertThat(loaded.adapter()).isInstanceOf(GuardedAdapter.class);
        assertThat(((GuardedAdapter) loaded.adapter()).adapterClass()).isEqualTo(implementation);
        assertThat(loaded.origin()).isEqualTo(LoadedAdapter.Origin.BUILT_IN);
        assertThat(loaded.state()).isEqualTo("enabled");
        return loaded;
    }
}
