package io.cnichain.core.plugins;

import io.cnichain.spi.SpiVersion;
import org.pf4j.AbstractPluginManager;
import org.pf4j.BasePluginLoader;
import org.pf4j.CompoundPluginLoader;
import org.pf4j.DefaultExtensionFactory;
import org.pf4j.DefaultPluginClasspath;
import org.pf4j.DefaultPluginFactory;
import org.pf4j.DefaultVersionManager;
import org.pf4j.ExtensionFactory;
import org.pf4j.ExtensionFinder;
import org.pf4j.InvalidPluginDescriptorException;
import org.pf4j.JarPluginLoader;
import org.pf4j.JarPluginRepository;
import org.pf4j.ManifestPluginDescriptorFinder;
import org.pf4j.PluginClassLoader;
import org.pf4j.PluginDescriptor;
import org.pf4j.PluginDescriptorFinder;
import org.pf4j.PluginFactory;
import org.pf4j.PluginLoader;
import org.pf4j.PluginRepository;
import org.pf4j.PluginStatusProvider;
import org.pf4j.PluginWrapper;
import org.pf4j.RuntimeMode;
import org.pf4j.VersionManager;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * pf4j set up for adapter jars: deployment mode only; descriptors from the jar manifest; the SPI version as
 * the "system version" that {@code Plugin-Requires} is checked against; one {@link PluginClassLoaders class
 * loader} per plugin sharing only the SPI; adapters named by {@code META-INF/services}
 * ({@link AdapterServiceFinder}). Nothing of pf4j's that writes into the plugins directory is used (its zip
 * expansion beside the zip, its enabled.txt/disabled.txt status files), and no {@code Plugin-Class} lifecycle
 * code runs: plugins are loaded and resolved, never started. The directory is listed by {@link PluginJarLoader},
 * one {@link #loadPlugin} call per file, so that each failure is reported with its jar.
 */
final class AdapterPluginManager
        extends AbstractPluginManager
{
    private static final Pattern PLUGIN_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final Pattern EXACT_VERSION = Pattern.compile("\\d+\\.\\d+\\.\\d+");

    /** The jar or zip each loaded path came from (a zip is loaded from the directory it was expanded to). */
    private final Map<Path, Path> sources = new ConcurrentHashMap<>();

    AdapterPluginManager(Path pluginsDir)
    {
        super(pluginsDir);
        setSystemVersion(SpiVersion.CURRENT);
    }

    /** Records that {@code loaded} (an expanded zip) stands for {@code source}, for messages. */
    void expandedFrom(Path loaded, Path source)
    {
        sources.put(loaded, source);
    }

    Path sourceOf(Path loaded)
    {
        return sources.getOrDefault(loaded, loaded);
    }

    AdapterServiceFinder finder()
    {
        return (AdapterServiceFinder) extensionFinder;
    }

    @Override
    public RuntimeMode getRuntimeMode()
    {
        // pf4j reads a system property for this; development mode would load plugins from other places.
        return RuntimeMode.DEPLOYMENT;
    }

    @Override
    protected void validatePluginDescriptor(PluginDescriptor descriptor)
    {
        String id = descriptor.getPluginId();
        if (id == null || id.isBlank()) {
            throw new InvalidPluginDescriptorException("its manifest has no Plugin-Id (is it a cni-chain adapter plugin? "
                    + "its manifest needs Plugin-Id, Plugin-Version and Plugin-Requires)");
        }
        if (!PLUGIN_ID.matcher(id).matches()) {
            throw new InvalidPluginDescriptorException("Plugin-Id '" + id + "' is not letters, digits, dots, dashes and underscores");
        }
        if (descriptor.getVersion() == null || descriptor.getVersion().isBlank()) {
            throw new InvalidPluginDescriptorException("its manifest has no Plugin-Version");
        }
        String requires = descriptor.getRequires() == null ? "" : descriptor.getRequires().trim();
        if (requires.isEmpty() || requires.equals("*")) {
            throw new InvalidPluginDescriptorException("its manifest has no Plugin-Requires: it must name the SPI versions it was built for, "
                    + "for example 'Plugin-Requires: >=1.0.0 & <2.0.0' (this agent's SPI is " + SpiVersion.CURRENT + ")");
        }
        if (!descriptor.getDependencies().isEmpty()) {
            throw new InvalidPluginDescriptorException("Plugin-Dependencies is set, but adapter plugins cannot depend on other plugins; "
                    + "bundle what it needs in the jar");
        }
        boolean compatible;
        try {
            // As pf4j does: a bare version means "this version or later".
            compatible = getVersionManager().checkVersionConstraint(SpiVersion.CURRENT, EXACT_VERSION.matcher(requires).matches() ? ">=" + requires : requires);
        }
        catch (RuntimeException e) {
            throw new InvalidPluginDescriptorException("Plugin-Requires '" + requires + "' is not a version range such as '>=1.0.0 & <2.0.0' ("
                    + e.getMessage() + ")");
        }
        if (!compatible) {
            throw new InvalidPluginDescriptorException("built for SPI " + requires + " (Plugin-Requires), but this agent's SPI is " + SpiVersion.CURRENT);
        }
        PluginWrapper other = getPlugin(id);
        if (other != null) {
            throw new InvalidPluginDescriptorException("Plugin-Id '" + id + "' is already used by " + sourceOf(other.getPluginPath())
                    + "; one plugin per id");
        }
    }

    @Override
    protected PluginRepository createPluginRepository()
    {
        // Unused: PluginJarLoader lists the directory itself, but pf4j wants one.
        return new JarPluginRepository(getPluginsRoots());
    }

    @Override
    protected PluginFactory createPluginFactory()
    {
        return new DefaultPluginFactory();
    }

    @Override
    protected ExtensionFactory createExtensionFactory()
    {
        return new DefaultExtensionFactory();
    }

    @Override
    protected PluginDescriptorFinder createPluginDescriptorFinder()
    {
        return new ManifestPluginDescriptorFinder();
    }

    @Override
    protected ExtensionFinder createExtensionFinder()
    {
        AdapterServiceFinder finder = new AdapterServiceFinder(this);
        addPluginStateListener(finder);
        return finder;
    }

    @Override
    protected PluginStatusProvider createPluginStatusProvider()
    {
        return new PluginStatusProvider()
        {
            @Override
            public boolean isPluginDisabled(String pluginId)
            {
                return false;
            }

            @Override
            public void disablePlugin(String pluginId)
            {
                throw new UnsupportedOperationException("cni-chain disables adapters, not plugins, and writes no status file");
            }

            @Override
            public void enablePlugin(String pluginId) {}
        };
    }

    @Override
    protected PluginLoader createPluginLoader()
    {
        return new CompoundPluginLoader()
                .add(new JarPluginLoader(this)
                {
                    @Override
                    protected PluginClassLoader createPluginClassLoader(Path pluginPath, PluginDescriptor pluginDescriptor)
                    {
                        return PluginClassLoaders.create(pluginManager, pluginDescriptor);
                    }
                })
                .add(new BasePluginLoader(this, new DefaultPluginClasspath())
                {
                    // An expanded zip: classes/ and lib/*.jar.
                    @Override
                    public boolean isApplicable(Path pluginPath)
                    {
                        return Files.isDirectory(pluginPath);
                    }

                    @Override
                    protected PluginClassLoader createPluginClassLoader(Path pluginPath, PluginDescriptor pluginDescriptor)
                    {
                        return PluginClassLoaders.create(pluginManager, pluginDescriptor);
                    }
                });
    }

    @Override
    protected VersionManager createVersionManager()
    {
        return new DefaultVersionManager();
    }
}
