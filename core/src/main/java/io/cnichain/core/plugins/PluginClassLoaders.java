package io.cnichain.core.plugins;

import io.cnichain.spi.CniPlatformAdapter;
import org.pf4j.PluginClassLoader;
import org.pf4j.PluginDescriptor;
import org.pf4j.PluginManager;

import java.util.List;

/**
 * The class loader of one plugin jar: its own classes and bundled libraries first, then the JDK. Only the SPI
 * and the logging API come from the agent (parent first), so an adapter sees exactly the types it compiled
 * against and nothing of the engine (no Jackson, no core classes, no file writer), and two plugins can carry
 * conflicting versions of one library.
 */
final class PluginClassLoaders
{
    /** Packages every plugin shares with the agent. {@code org.pf4j} is pf4j's own requirement. */
    static final List<String> SHARED_PACKAGES = List.of(
            CniPlatformAdapter.class.getPackageName() + ".",
            "org.slf4j.",
            "org.pf4j.");

    private PluginClassLoaders() {}

    static PluginClassLoader create(PluginManager manager, PluginDescriptor descriptor)
    {
        return new SpiSharingClassLoader(manager, descriptor, PluginClassLoaders.class.getClassLoader());
    }

    static boolean shared(String className)
    {
        for (String prefix : SHARED_PACKAGES) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /**
     * pf4j's loader (plugin first) with the platform class loader as its parent instead of the agent's, and
     * the shared packages delegated to the agent.
     */
    private static final class SpiSharingClassLoader
            extends PluginClassLoader
    {
        private final ClassLoader agent;

        SpiSharingClassLoader(PluginManager manager, PluginDescriptor descriptor, ClassLoader agent)
        {
            super(manager, descriptor, ClassLoader.getPlatformClassLoader());
            this.agent = agent;
        }

        @Override
        public Class<?> loadClass(String className)
                throws ClassNotFoundException
        {
            if (shared(className)) {
                return agent.loadClass(className);
            }
            return super.loadClass(className);
        }

        @Override
        protected boolean shouldDelegateToParent(String className)
        {
            // pf4j sends its own packages to the parent; ours is the platform loader, so loadClass above does it.
            return false;
        }
    }
}
