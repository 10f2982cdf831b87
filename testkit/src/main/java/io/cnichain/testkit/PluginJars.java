package io.cnichain.testkit;

import io.cnichain.core.adapters.AdapterCalls;
import io.cnichain.core.adapters.GuardedAdapter;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.core.plugins.PluginJarLoader;
import org.opentest4j.AssertionFailedError;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.CodeSource;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Loads a packaged adapter plugin jar exactly as the agent does: the jar is copied into a fresh plugins directory
 * of its own (mode 0755, the jar 0644, so it passes the agent's permission check) and loaded by the agent's real
 * plugin loader ({@link PluginJarLoader}, the code {@code cni-chain} runs for its plugins directory): the
 * descriptor and SPI range checks, a class loader of its own that shares only the SPI and SLF4J with the agent,
 * the adapters named by {@code META-INF/services}, each constructed under the time limit and guarded.
 *
 * <p>The jar exists only after Maven's {@code package} phase, which runs after {@code test}: test it in an
 * integration test ({@code *IT}, run by maven-failsafe-plugin in {@code integration-test}, after {@code package}),
 * and hand the jar's path to the test in the system property {@value #PACKAGED_JAR_PROPERTY}:
 *
 * <pre>{@code
 * <plugin>
 *   <artifactId>maven-failsafe-plugin</artifactId>
 *   <executions><execution><goals><goal>integration-test</goal><goal>verify</goal></goals></execution></executions>
 *   <configuration>
 *     <systemPropertyVariables>
 *       <cnichain.pluginJar>${project.build.directory}/${project.build.finalName}.jar</cnichain.pluginJar>
 *     </systemPropertyVariables>
 *   </configuration>
 * </plugin>
 * }</pre>
 *
 * <pre>{@code
 * class MyPluginIT
 * {
 *     @Test
 *     void thePackagedJarLoads()
 *     {
 *         LoadedAdapter mine = PluginJars.loadAdapter(PluginJars.packagedJar(), "my-platform");
 *         ...
 *     }
 * }
 * }</pre>
 *
 * The plugins directories are removed when the test JVM exits.
 */
public final class PluginJars
{
    /** The system property holding the path of the module's packaged jar; see {@link #packagedJar()}. */
    public static final String PACKAGED_JAR_PROPERTY = "cnichain.pluginJar";

    private PluginJars() {}

    /**
     * What the agent's plugin loader made of one jar.
     *
     * @param jar        the copy that was loaded, in {@code pluginsDir}
     * @param pluginsDir the plugins directory that holds only that copy
     * @param adapters   the adapters loaded, each behind the agent's guard
     * @param problems   what the agent would report, one line each (refusals, classes that failed to load)
     */
    public record Loaded(Path jar, Path pluginsDir, List<LoadedAdapter> adapters, List<String> problems)
    {
        public Loaded
        {
            requireNonNull(jar, "jar is null");
            requireNonNull(pluginsDir, "pluginsDir is null");
            adapters = List.copyOf(adapters);
            problems = List.copyOf(problems);
        }

        /**
         * @param name an adapter's name
         * @return the adapter of that name, if the jar provided one
         */
        public Optional<LoadedAdapter> find(String name)
        {
            return adapters.stream().filter(adapter -> adapter.name().equals(name)).findFirst();
        }
    }

    /**
     * The module's packaged jar, named by the system property {@value #PACKAGED_JAR_PROPERTY} (see the class
     * comment for the failsafe configuration that sets it).
     *
     * @return the jar
     * @throws AssertionFailedError when the property is not set or the jar does not exist (yet)
     */
    public static Path packagedJar()
    {
        String value = System.getProperty(PACKAGED_JAR_PROPERTY);
        if (value == null || value.isBlank()) {
            throw new AssertionFailedError("the system property " + PACKAGED_JAR_PROPERTY + " is not set: run this test as a failsafe "
                    + "integration test (*IT, mvn verify) with <" + PACKAGED_JAR_PROPERTY + ">${project.build.directory}/"
                    + "${project.build.finalName}.jar</" + PACKAGED_JAR_PROPERTY + "> in its systemPropertyVariables");
        }
        Path jar = Path.of(value);
        if (!Files.isRegularFile(jar)) {
            throw new AssertionFailedError(PACKAGED_JAR_PROPERTY + " names " + jar + ", which does not exist: the jar is built in the package "
                    + "phase, so test it in integration-test (mvn verify), not in test");
        }
        return jar;
    }

    /**
     * Copies the jar into a fresh plugins directory and loads it with the agent's plugin loader and its default
     * time limit. Nothing is asserted: see {@link Loaded#problems()}.
     *
     * @param jar a plugin jar
     * @return what was loaded and what the agent would report
     */
    public static Loaded load(Path jar)
    {
        requireNonNull(jar, "jar is null");
        Path pluginsDir;
        Path copy;
        try {
            pluginsDir = Files.createTempDirectory("cni-chain-plugins-dir-");
            pluginsDir.toFile().deleteOnExit();
            Files.setPosixFilePermissions(pluginsDir, PosixFilePermissions.fromString("rwxr-xr-x"));
            copy = Files.copy(jar, pluginsDir.resolve(jar.getFileName()));
            copy.toFile().deleteOnExit();
            Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-r--r--"));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        PluginJarLoader.Result result = new PluginJarLoader(AdapterCalls.DEFAULT_LIMIT).load(pluginsDir);
        return new Loaded(copy, pluginsDir, result.adapters(), result.problems());
    }

    /**
     * Loads the jar as {@link #load(Path)} does and checks what an adapter author wants of it: no problem
     * reported, an adapter of this name, its class loaded from the jar by a plugin class loader (not the test's
     * class path), and enabled.
     *
     * @param jar  a plugin jar
     * @param name the adapter's name
     * @return the adapter as the agent hands it out (behind the guard), for further checks
     * @throws AssertionFailedError when any of that is not so, with what the agent reported
     */
    public static LoadedAdapter loadAdapter(Path jar, String name)
    {
        Loaded loaded = load(jar);
        if (!loaded.problems().isEmpty()) {
            throw new AssertionFailedError("the agent reports problems with " + jar + ": " + loaded.problems());
        }
        LoadedAdapter adapter = loaded.find(name).orElseThrow(() -> new AssertionFailedError("plugin jar " + jar + " provides no adapter named '"
                + name + "' (it provides: " + loaded.adapters().stream().map(LoadedAdapter::name).toList() + ")"));
        if (adapter.origin() != LoadedAdapter.Origin.PLUGIN || !(adapter.adapter() instanceof GuardedAdapter guarded)) {
            throw new AssertionFailedError("adapter '" + name + "' did not come from the plugin loader: " + adapter);
        }
        Class<?> type = guarded.adapterClass();
        Optional<Path> from = locationOf(type);
        // The agent loads a private copy of the jar it checked: the class must come from the jar or from such a copy of it.
        if (type.getClassLoader() == PluginJars.class.getClassLoader() || !(from.equals(Optional.of(realPath(loaded.jar()))) || sameBytes(from, loaded.jar()))) {
            throw new AssertionFailedError("adapter '" + name + "' is " + type.getName() + " from " + from.map(Path::toString).orElse("nowhere known")
                    + " (class loader " + type.getClassLoader() + "), not from the plugin jar " + loaded.jar());
        }
        if (adapter.disabledReason().isPresent()) {
            throw new AssertionFailedError("adapter '" + name + "' loaded disabled: " + adapter.disabledReason().get());
        }
        return adapter;
    }

    private static boolean sameBytes(Optional<Path> copy, Path jar)
    {
        try {
            return copy.isPresent() && Files.mismatch(copy.get(), jar) == -1;
        }
        catch (java.io.IOException e) {
            return false;
        }
    }

    private static Optional<Path> locationOf(Class<?> type)
    {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        try {
            return source == null || source.getLocation() == null ? Optional.empty() : Optional.of(realPath(Path.of(source.getLocation().toURI())));
        }
        catch (URISyntaxException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** pf4j puts a jar's canonical path on its class path. */
    private static Path realPath(Path path)
    {
        try {
            return path.toRealPath();
        }
        catch (IOException e) {
            return path.toAbsolutePath();
        }
    }
}
