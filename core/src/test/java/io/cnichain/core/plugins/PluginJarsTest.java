package io.cnichain.core.plugins;

import io.cnichain.core.adapters.GuardedAdapter;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.spi.SpiVersion;
import io.cnichain.testkit.PluginJars;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static io.cnichain.testkit.PluginJarBuilder.adapterSource;
import static io.cnichain.testkit.PluginJarBuilder.plugin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The test kit's packaged-jar check, on jars built here: it loads through the agent's plugin loader. */
class PluginJarsTest
{
    @TempDir
    Path temp;

    @Test
    void aJarLoadsFromACopyInAPluginsDirectoryOfItsOwn()
            throws IOException
    {
        // Built where the agent would refuse it: the kit's copy is what is loaded.
        Path jar = plugin("acme").adapter("com.acme.Acme", adapterSource("com.acme.Acme", "acme", "return Detection.none();", "")).writeJar(temp, "acme-1.0.jar");
        Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("rw-rw-rw-"));

        LoadedAdapter acme = PluginJars.loadAdapter(jar, "acme");

        assertThat(acme.origin()).isEqualTo(LoadedAdapter.Origin.PLUGIN);
        assertThat(acme.pluginId()).contains("acme");
        Path copy = Path.of(acme.location());
        assertThat(copy).isNotEqualTo(jar).hasFileName("acme-1.0.jar").hasSameBinaryContentAs(jar);
        assertThat(Files.getPosixFilePermissions(copy.getParent())).isEqualTo(PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThat(((GuardedAdapter) acme.adapter()).adapterClass().getClassLoader()).isNotSameAs(getClass().getClassLoader());
        assertThat(Files.getPosixFilePermissions(jar)).isEqualTo(PosixFilePermissions.fromString("rw-rw-rw-"));
    }

    @Test
    void whatTheAgentWouldReportFailsTheCheckWithTheAgentsWords()
    {
        Path future = plugin("future").manifest("Plugin-Requires", ">=9.0.0")
                .adapter("com.f.F", adapterSource("com.f.F", "future", "return Detection.none();", "")).writeJar(temp, "future.jar");
        Path two = plugin("two").adapter("com.t.A", adapterSource("com.t.A", "two-a", "return Detection.none();", ""))
                .adapter("com.t.B", adapterSource("com.t.B", "two-b", "return Detection.none();", "")).writeJar(temp, "two.jar");

        assertThat(PluginJars.load(future).problems()).singleElement().asString()
                .endsWith("future.jar: refused: built for SPI >=9.0.0 (Plugin-Requires), but this agent's SPI is " + SpiVersion.CURRENT);
        assertThatThrownBy(() -> PluginJars.loadAdapter(future, "future")).isInstanceOf(AssertionFailedError.class)
                .hasMessageContaining("the agent reports problems with " + future).hasMessageContaining("built for SPI >=9.0.0");
        assertThatThrownBy(() -> PluginJars.loadAdapter(two, "two")).isInstanceOf(AssertionFailedError.class)
                .hasMessage("plugin jar " + two + " provides no adapter named 'two' (it provides: [two-a, two-b])");
    }

    @Test
    void thePackagedJarIsNamedByASystemProperty()
            throws IOException
    {
        String before = System.clearProperty(PluginJars.PACKAGED_JAR_PROPERTY);
        try {
            assertThatThrownBy(PluginJars::packagedJar).isInstanceOf(AssertionFailedError.class)
                    .hasMessageStartingWith("the system property cnichain.pluginJar is not set: run this test as a failsafe integration test");
            System.setProperty(PluginJars.PACKAGED_JAR_PROPERTY, temp.resolve("missing.jar").toString());
            assertThatThrownBy(PluginJars::packagedJar).hasMessageContaining("which does not exist: the jar is built in the package phase");
            Path jar = Files.createFile(temp.resolve("built.jar"));
            System.setProperty(PluginJars.PACKAGED_JAR_PROPERTY, jar.toString());
            assertThat(PluginJars.packagedJar()).isEqualTo(jar);
        }
        finally {
            PluginJarLoaderTest.restore(PluginJars.PACKAGED_JAR_PROPERTY, before);
        }
    }
}
