package io.cnichain.core.plugins;

import org.pf4j.InvalidPluginDescriptorException;
import org.pf4j.ManifestPluginDescriptorFinder;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * pf4j's manifest descriptor finder, with refusals an operator can act on: pf4j says "Cannot read manifest" for a
 * file that is not a jar, throws a {@link NullPointerException} for a jar without a manifest, and, in an expanded
 * zip, takes the first {@code MANIFEST.MF} found anywhere below it. Here a jar's manifest is its
 * {@code META-INF/MANIFEST.MF} and an expanded zip's is {@code classes/META-INF/MANIFEST.MF}, the place pf4j's
 * own zip reader looks.
 */
final class AdapterDescriptorFinder
        extends ManifestPluginDescriptorFinder
{
    static final String ZIP_MANIFEST = "classes/" + JarFile.MANIFEST_NAME;

    @Override
    protected Manifest readManifest(Path pluginPath)
    {
        if (Files.isDirectory(pluginPath)) {
            Path file = pluginPath.resolve(ZIP_MANIFEST);
            if (!Files.isRegularFile(file)) {
                throw noDescriptor(ZIP_MANIFEST);
            }
            try (InputStream in = Files.newInputStream(file)) {
                return new Manifest(in);
            }
            catch (IOException e) {
                throw new InvalidPluginDescriptorException(ZIP_MANIFEST + " cannot be read: " + firstLine(e.toString()));
            }
        }
        Manifest manifest;
        try (JarFile jar = new JarFile(pluginPath.toFile())) {
            manifest = jar.getManifest();
        }
        catch (IOException e) {
            throw new InvalidPluginDescriptorException("not a readable jar: " + firstLine(e.toString()));
        }
        if (manifest == null) {
            throw noDescriptor(JarFile.MANIFEST_NAME);
        }
        return manifest;
    }

    private static InvalidPluginDescriptorException noDescriptor(String manifest)
    {
        return new InvalidPluginDescriptorException("it has no plugin descriptor (" + manifest + " with Plugin-Id, Plugin-Version and "
                + "Plugin-Requires); see adapters/README.md");
    }

    private static String firstLine(String text)
    {
        return text == null ? "" : text.lines().findFirst().orElse("").strip();
    }
}
