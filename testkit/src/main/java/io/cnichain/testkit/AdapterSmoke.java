package io.cnichain.testkit;

import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.GuardedAdapter;
import io.cnichain.core.adapters.LoadedAdapter;
import org.opentest4j.AssertionFailedError;

/**
 * The smoke test every adapter on the agent's classpath should have: found through {@code META-INF/services} by
 * {@link java.util.ServiceLoader}, exactly as the agent finds it, and handed out behind the core's guard.
 */
public final class AdapterSmoke
{
    private AdapterSmoke() {}

    /**
     * @param name           the adapter's name
     * @param implementation its class
     * @return the adapter as the agent's registry hands it out (behind the guard), for further checks
     * @throws AssertionFailedError when it is not found, another class answers to the name, or anything on the
     *                              class path failed to load
     */
    public static LoadedAdapter loadBuiltIn(String name, Class<?> implementation)
    {
        AdapterRegistry registry = AdapterRegistry.fromClassLoader(implementation.getClassLoader());
        if (!registry.problems().isEmpty()) {
            throw new AssertionFailedError("adapters on the class path failed to load: " + registry.problems());
        }
        LoadedAdapter loaded = registry.find(name).orElseThrow(() -> new AssertionFailedError("no adapter named '" + name
                + "' found by ServiceLoader (found: " + registry.names() + "); is it listed in META-INF/services/io.cnichain.spi.CniPlatformAdapter?"));
        if (!(loaded.adapter() instanceof GuardedAdapter guarded) || guarded.adapterClass() != implementation) {
            throw new AssertionFailedError("adapter '" + name + "' is " + loaded.adapter() + ", not " + implementation.getName());
        }
        if (loaded.disabledReason().isPresent()) {
            throw new AssertionFailedError("adapter '" + name + "' loaded disabled: " + loaded.disabledReason().get());
        }
        return loaded;
    }
}
