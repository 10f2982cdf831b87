package io.cnichain.core.plugins;

import io.cnichain.spi.CniPlatformAdapter;
import org.pf4j.PluginClassLoader;
import org.pf4j.PluginDescriptor;
import org.pf4j.PluginManager;

import java.util.List;

/**
 * The class loader of one plugin: pf4j's {@link PluginClassLoader} (its own jar first; in an expanded zip,
 * {@code classes/} and {@code lib/*.jar}), whose parent is not the agent's class loader but {@link SharedPackages}:
 * the JDK's platform modules and, from the agent, only {@link #SHARED_PACKAGES}. So an adapter sees exactly the
 * types it compiled against and nothing of the engine (no Jackson, no pf4j, no core classes), and two plugins can
 * carry conflicting versions of one library.
 */
final class PluginClassLoaders
{
    /** Packages every plugin shares with the agent, always the agent's copy. */
    static final List<String> SHARED_PACKAGES = List.of(CniPlatformAdapter.class.getPackageName() + ".", "org.slf4j.");

    private static final ClassLoader SHARED = new SharedPackages(PluginClassLoaders.class.getClassLoader());

    private PluginClassLoaders() {}

    static PluginClassLoader create(PluginManager manager, PluginDescriptor descriptor)
    {
        return new SharingPluginClassLoader(manager, descriptor);
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

    /** @return what a plugin sees from outside itself, for messages */
    static String describeShared()
    {
        return "the agent shares only " + String.join(", ", SHARED_PACKAGES) + " and the JDK";
    }

    /**
     * pf4j's loader with its own delegation rule: pf4j sends {@code org.pf4j.} to the parent first; here the
     * shared packages are (so a plugin that bundles the SPI still gets the agent's), and {@code org.pf4j.} is
     * the plugin's own business like any other library.
     */
    private static final class SharingPluginClassLoader
            extends PluginClassLoader
    {
        SharingPluginClassLoader(PluginManager manager, PluginDescriptor descriptor)
        {
            super(manager, descriptor, SHARED);
        }

        @Override
        protected boolean shouldDelegateToParent(String className)
        {
            return shared(className);
        }
    }

    /**
     * The parent of every plugin class loader: the platform class loader (the JDK's platform modules), plus the
     * shared packages from the agent. No resource of the agent is visible through it.
     */
    private static final class SharedPackages
            extends ClassLoader
    {
        static
        {
            registerAsParallelCapable();
        }

        private final ClassLoader agent;

        SharedPackages(ClassLoader agent)
        {
            super("cni-chain-shared-packages", ClassLoader.getPlatformClassLoader());
            this.agent = agent;
        }

        @Override
        protected Class<?> findClass(String className)
                throws ClassNotFoundException
        {
            if (shared(className)) {
                return agent.loadClass(className);
            }
            throw new ClassNotFoundException(className);
        }
    }
}
