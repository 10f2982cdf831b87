package io.cnichain.core.plugins;

import io.cnichain.spi.SpiVersion;
import org.pf4j.CompoundPluginLoader;
import org.pf4j.CompoundPluginRepository;
import org.pf4j.DefaultPluginLoader;
import org.pf4j.DefaultPluginManager;
import org.pf4j.ExtensionFinder;
import org.pf4j.InvalidPluginDescriptorException;
import org.pf4j.JarPluginLoader;
import org.pf4j.PluginClassLoader;
import org.pf4j.PluginDescriptor;
import org.pf4j.PluginDescriptorFinder;
import org.pf4j.PluginLoader;
import org.pf4j.PluginRepository;
import org.pf4j.PluginRuntimeException;
import org.pf4j.PluginStatusProvider;
import org.pf4j.PluginWrapper;
import org.pf4j.RuntimeMode;
import org.pf4j.util.FileUtils;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * pf4j's {@link DefaultPluginManager}, changed only where the agent's rules need it (each override says which
 * rule). What stays pf4j's: loading and resolving, the jar loader and the expanded-zip loader, the
 * manifest descriptor reader, the extension factory and the version manager. Plugins are loaded and resolved,
 * never started: no {@code Plugin-Class} code runs.
 */
final class AdapterPluginManager
        extends DefaultPluginManager
{
    private static final Pattern PLUGIN_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final Pattern EXACT_VERSION = Pattern.compile("\\d+\\.\\d+\\.\\d+");

    private final PluginDirectory directory;

    AdapterPluginManager(PluginDirectory directory)
    {
        super(directory.root());
        // pf4j creates its repository inside its own constructor, before this one can pass the directory in.
        this.directory = directory;
        this.pluginRepository = directory;
        setSystemVersion(SpiVersion.CURRENT);
    }

    AdapterServiceFinder finder()
    {
        return (AdapterServiceFinder) extensionFinder;
    }

    @Override
    public RuntimeMode getRuntimeMode()
    {
        // Deployment only: pf4j reads the system property pf4j.mode, and development mode loads other directories.
        return RuntimeMode.DEPLOYMENT;
    }

    @Override
    protected PluginRepository createPluginRepository()
    {
        // The gate and the private zip expansion live in PluginDirectory, which the constructor installs.
        return new CompoundPluginRepository();
    }

    @Override
    protected PluginDescriptorFinder createPluginDescriptorFinder()
    {
        // The manifest is the one descriptor: pf4j's default reads plugin.properties first, which would win over it.
        return new AdapterDescriptorFinder();
    }

    @Override
    protected ExtensionFinder createExtensionFinder()
    {
        // Adapters are named by the plugin's own META-INF/services/io.cnichain.spi.CniPlatformAdapter, nothing else.
        AdapterServiceFinder finder = new AdapterServiceFinder(this);
        addPluginStateListener(finder);
        return finder;
    }

    @Override
    protected PluginStatusProvider createPluginStatusProvider()
    {
        // A jar in the directory is a plugin: pf4j's provider would let enabled.txt/disabled.txt disable it.
        return new AlwaysEnabled();
    }

    @Override
    protected PluginLoader createPluginLoader()
    {
        // pf4j's jar and expanded-zip loaders, with the class loader that shares only the SPI and SLF4J.
        return new CompoundPluginLoader()
                .add(new JarPluginLoader(this)
                {
                    @Override
                    protected PluginClassLoader createPluginClassLoader(Path pluginPath, PluginDescriptor pluginDescriptor)
                    {
                        return PluginClassLoaders.create(pluginManager, pluginDescriptor);
                    }
                })
                .add(new DefaultPluginLoader(this)
                {
                    @Override
                    protected PluginClassLoader createPluginClassLoader(Path pluginPath, PluginDescriptor pluginDescriptor)
                    {
                        return PluginClassLoaders.create(pluginManager, pluginDescriptor);
                    }
                });
    }

    @Override
    protected PluginWrapper loadPluginFromPath(Path pluginPath)
    {
        // DefaultPluginManager expands a zip beside itself, in the plugins directory; PluginDirectory has done it.
        if (FileUtils.isZipFile(pluginPath)) {
            throw new PluginRuntimeException("a zip is loaded from the directory PluginDirectory expanded it into, not from " + pluginPath);
        }
        return super.loadPluginFromPath(pluginPath);
    }

    @Override
    protected void validatePluginDescriptor(PluginDescriptor descriptor)
    {
        // Plugin-Requires is required and must contain this SPI; no Plugin-Dependencies; one plugin per Plugin-Id.
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
                    + "for example 'Plugin-Requires: " + SpiVersion.COMPATIBLE_RANGE + "' (this agent's SPI is " + SpiVersion.CURRENT + ")");
        }
        if (!descriptor.getDependencies().isEmpty()) {
            throw new InvalidPluginDescriptorException("Plugin-Dependencies is set, but adapter plugins cannot depend on other plugins; "
                    + "bundle what it needs in the jar");
        }
        boolean compatible;
        try {
            // As pf4j's isPluginValid does: a bare version means "this version or later".
            compatible = getVersionManager().checkVersionConstraint(SpiVersion.CURRENT, EXACT_VERSION.matcher(requires).matches() ? ">=" + requires : requires);
        }
        catch (RuntimeException e) {
            throw new InvalidPluginDescriptorException("Plugin-Requires '" + requires + "' is not a version range such as '" + SpiVersion.COMPATIBLE_RANGE
                    + "' (" + e.getMessage() + ")");
        }
        if (!compatible) {
            throw new InvalidPluginDescriptorException("built for SPI " + requires + " (Plugin-Requires), but this agent's SPI is " + SpiVersion.CURRENT);
        }
        PluginWrapper other = getPlugin(id);
        if (other != null) {
            throw new InvalidPluginDescriptorException("Plugin-Id '" + id + "' is already used by " + directory.sourceOf(other.getPluginPath())
                    + "; one plugin per id");
        }
    }

    /** Every plugin enabled, and no status file read or written. */
    private static final class AlwaysEnabled
            implements PluginStatusProvider
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
        public void enablePlugin(String pluginId)
        {
            // Always enabled already.
        }
    }
}
