package io.cnichain.testkit;

import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.SpiVersion;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Builds adapter plugin jars (and pf4j zips) on the fly for tests, as pf4j's own tests do: Java sources are
 * compiled in memory against the SPI, and the jar gets a manifest descriptor and a
 * {@code META-INF/services/io.cnichain.spi.CniPlatformAdapter} file. Every knob a broken plugin needs is here:
 * no manifest, another SPI range, a class left out, the SPI bundled.
 */
public final class PluginJarBuilder
{
    public static final String SERVICES = "META-INF/services/" + CniPlatformAdapter.class.getName();
    public static final String CURRENT_RANGE = SpiVersion.COMPATIBLE_RANGE;

    private final Map<String, String> manifest = new LinkedHashMap<>();
    private final Map<String, String> sources = new LinkedHashMap<>();
    private final List<String> services = new ArrayList<>();
    private final Set<String> omitted = new LinkedHashSet<>();
    private final List<Path> classpath = new ArrayList<>();
    private final Map<String, byte[]> extraEntries = new LinkedHashMap<>();
    private boolean withManifest = true;
    private boolean bundleSpi;

    private PluginJarBuilder(String pluginId)
    {
        manifest.put("Plugin-Id", pluginId);
        manifest.put("Plugin-Version", "1.0.0");
        manifest.put("Plugin-Requires", CURRENT_RANGE);
    }

    /**
     * @param pluginId the Plugin-Id
     * @return a builder with Plugin-Version 1.0.0 and Plugin-Requires for SPI 1.x
     */
    public static PluginJarBuilder plugin(String pluginId)
    {
        return new PluginJarBuilder(pluginId);
    }

    /**
     * A whole adapter in one source: a public class {@code className} implementing the SPI, named {@code name},
     * whose methods are the given bodies (Java statements; missing ones take the SPI's default or
     * {@code Detection.none()} and an empty list).
     */
    public static String adapterSource(String className, String name, String detectBody, String extraMembers)
    {
        int dot = className.lastIndexOf('.');
        return "package " + className.substring(0, dot) + ";\n"
                + "import io.cnichain.spi.*;\nimport java.util.*;\n"
                + "public class " + className.substring(dot + 1) + " implements CniPlatformAdapter {\n"
                + "  public String name() { return \"" + name + "\"; }\n"
                + "  public Detection detect(NodeView node, AdapterSettings settings) { " + detectBody + " }\n"
                + "  public List<ConfigTarget> authoritativeConfigs(NodeView node, AdapterSettings settings) { return List.of(); }\n"
                + extraMembers + "\n}\n";
    }

    public PluginJarBuilder manifest(String key, String value)
    {
        if (value == null) {
            manifest.remove(key);
        }
        else {
            manifest.put(key, value);
        }
        return this;
    }

    public PluginJarBuilder withoutManifest()
    {
        withManifest = false;
        return this;
    }

    /** Adds a source; its class becomes part of the jar. */
    public PluginJarBuilder source(String className, String source)
    {
        sources.put(className, source);
        return this;
    }

    /** Adds an adapter class and lists it in the services file. */
    public PluginJarBuilder adapter(String className, String source)
    {
        source(className, source);
        return service(className);
    }

    /** Lists a class name in the services file (whether or not it exists). */
    public PluginJarBuilder service(String className)
    {
        services.add(className);
        return this;
    }

    /** Compiles the class but leaves it out of the jar, as a missing dependency would be. */
    public PluginJarBuilder omit(String className)
    {
        omitted.add(className);
        return this;
    }

    /**
     * Compiles the sources against the jar or directory that holds {@code type} too, without putting it into the
     * plugin: a library the plugin expects the agent to provide.
     */
    public PluginJarBuilder compileAgainst(Class<?> type)
    {
        classpath.add(locationOf(type));
        return this;
    }

    /** Puts a copy of the SPI's classes into the jar, the mistake of a plugin built without scope provided. */
    public PluginJarBuilder bundleSpi()
    {
        bundleSpi = true;
        return this;
    }

    public PluginJarBuilder entry(String name, byte[] content)
    {
        extraEntries.put(name, content);
        return this;
    }

    /**
     * Writes the jar with mode 0644.
     *
     * @param directory where
     * @param fileName  its name
     * @return the jar
     */
    public Path writeJar(Path directory, String fileName)
    {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        classes().forEach((name, bytes) -> entries.put(name.replace('.', '/') + ".class", bytes));
        if (!services.isEmpty()) {
            entries.put(SERVICES, (String.join("\n", services) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        if (bundleSpi) {
            entries.putAll(spiClasses());
        }
        entries.putAll(extraEntries);
        Path jar = directory.resolve(fileName);
        try (OutputStream file = Files.newOutputStream(jar);
                ZipOutputStream out = withManifest ? new JarOutputStream(file, manifest()) : new ZipOutputStream(file)) {
            for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
                out.putNextEntry(new ZipEntry(entry.getKey()));
                out.write(entry.getValue());
                out.closeEntry();
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return readable(jar);
    }

    /**
     * Writes a pf4j zip: the plugin's classes and manifest under {@code classes/}, and each library jar
     * (built with this class too) under {@code lib/}.
     */
    public Path writeZip(Path directory, String fileName, Map<String, PluginJarBuilder> libraries)
    {
        Path zip = directory.resolve(fileName);
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(zip))) {
            ByteArrayOutputStream manifestBytes = new ByteArrayOutputStream();
            manifest().write(manifestBytes);
            write(out, "classes/META-INF/MANIFEST.MF", manifestBytes.toByteArray());
            for (Map.Entry<String, byte[]> entry : classes().entrySet()) {
                write(out, "classes/" + entry.getKey().replace('.', '/') + ".class", entry.getValue());
            }
            if (!services.isEmpty()) {
                write(out, "classes/" + SERVICES, (String.join("\n", services) + "\n").getBytes(StandardCharsets.UTF_8));
            }
            Path scratch = Files.createTempDirectory("plugin-zip-lib");
            for (Map.Entry<String, PluginJarBuilder> library : libraries.entrySet()) {
                Path jar = library.getValue().withoutManifest().writeJar(scratch, library.getKey());
                write(out, "lib/" + library.getKey(), Files.readAllBytes(jar));
                Files.delete(jar);
            }
            Files.delete(scratch);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return readable(zip);
    }

    private static void write(ZipOutputStream out, String name, byte[] bytes)
            throws IOException
    {
        out.putNextEntry(new ZipEntry(name));
        out.write(bytes);
        out.closeEntry();
    }

    private static Path readable(Path file)
    {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
            return file;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Manifest manifest()
    {
        Manifest result = new Manifest();
        Attributes attributes = result.getMainAttributes();
        attributes.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.forEach((key, value) -> attributes.put(new Attributes.Name(key), value));
        return result;
    }

    /** Compiled classes by binary name, without the omitted ones. */
    private Map<String, byte[]> classes()
    {
        Map<String, byte[]> compiled = compile(sources, classpath);
        omitted.forEach(compiled::remove);
        return compiled;
    }

    /**
     * Compiles sources in memory against the SPI (found where {@link CniPlatformAdapter} was loaded from, since
     * a forked test JVM's class path may be a single manifest jar).
     */
    public static Map<String, byte[]> compile(Map<String, String> sources)
    {
        return compile(sources, List.of());
    }

    /**
     * Compiles sources in memory against the SPI and the given jars or directories.
     */
    public static Map<String, byte[]> compile(Map<String, String> sources, List<Path> classpath)
    {
        if (sources.isEmpty()) {
            return new LinkedHashMap<>();
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Map<String, ByteArrayOutputStream> outputs = new LinkedHashMap<>();
        try (StandardJavaFileManager standard = compiler.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
            List<Path> path = new ArrayList<>(List.of(spiLocation()));
            path.addAll(classpath);
            standard.setLocationFromPaths(StandardLocation.CLASS_PATH, path);
            JavaFileManager manager = new ForwardingJavaFileManager<>(standard)
            {
                @Override
                public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind, FileObject sibling)
                {
                    return new SimpleJavaFileObject(URI.create("mem:///" + className.replace('.', '/') + ".class"), kind)
                    {
                        @Override
                        public OutputStream openOutputStream()
                        {
                            return outputs.computeIfAbsent(className, n -> new ByteArrayOutputStream());
                        }
                    };
                }
            };
            List<JavaFileObject> units = new ArrayList<>();
            sources.forEach((name, text) -> units.add(new SimpleJavaFileObject(URI.create("string:///" + name.replace('.', '/') + ".java"), JavaFileObject.Kind.SOURCE)
            {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors)
                {
                    return text;
                }
            }));
            boolean ok = compiler.getTask(null, manager, diagnostics, List.of("--release", "17", "-proc:none"), null, units).call();
            if (!ok) {
                StringBuilder message = new StringBuilder("test plugin sources do not compile:");
                for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                    message.append('\n').append(d);
                }
                throw new IllegalStateException(message.toString());
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, byte[]> classes = new LinkedHashMap<>();
        outputs.forEach((name, bytes) -> classes.put(name, bytes.toByteArray()));
        return classes;
    }

    /** The SPI's class files, from its jar or classes directory. */
    private static Map<String, byte[]> spiClasses()
    {
        Path location = spiLocation();
        Map<String, byte[]> classes = new LinkedHashMap<>();
        try {
            if (Files.isDirectory(location)) {
                try (Stream<Path> walk = Files.walk(location)) {
                    for (Path file : walk.filter(p -> p.toString().endsWith(".class")).toList()) {
                        classes.put(location.relativize(file).toString(), Files.readAllBytes(file));
                    }
                }
            }
            else {
                try (java.util.jar.JarFile jar = new java.util.jar.JarFile(location.toFile())) {
                    for (var entry : jar.stream().filter(e -> e.getName().endsWith(".class")).toList()) {
                        classes.put(entry.getName(), jar.getInputStream(entry).readAllBytes());
                    }
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return classes;
    }

    private static Path spiLocation()
    {
        return locationOf(CniPlatformAdapter.class);
    }

    private static Path locationOf(Class<?> type)
    {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        }
        catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
