package io.cnichain.core.plugins;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.testkit.PluginJarBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import static io.cnichain.testkit.PluginJarBuilder.adapterSource;
import static io.cnichain.testkit.PluginJarBuilder.plugin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Built-in and plugin adapters together: name clashes and adapterOverrides. */
class AgentAdaptersTest
{
    static final Duration LIMIT = Duration.ofSeconds(2);

    @TempDir
    Path temp;

    Path plugins;
    ClassLoader agent;
    Path builtInJar;

    @BeforeEach
    void setUp()
            throws IOException
    {
        plugins = Files.createDirectory(temp.resolve("plugins"));
        Files.setPosixFilePermissions(plugins, PosixFilePermissions.fromString("rwxr-xr-x"));
        // The agent's classpath: one built-in adapter named "calico" (built-in by its package).
        Path lib = Files.createDirectory(temp.resolve("lib"));
        builtInJar = plugin("unused").withoutManifest()
                .adapter("io.cnichain.adapter.calico.CalicoAdapter", adapterSource("io.cnichain.adapter.calico.CalicoAdapter", "calico",
                        "return Detection.none();", "public String description() { return \"the built-in one\"; }"))
                .writeJar(lib, "calico.jar");
        agent = new URLClassLoader(new URL[] {builtInJar.toUri().toURL()}, getClass().getClassLoader());
    }

    private void pluginNamed(String pluginId, String adapterName, String description)
    {
        String className = "com." + pluginId.replace("-", "") + ".Adapter";
        plugin(pluginId).adapter(className, adapterSource(className, adapterName, "return Detection.none();",
                "public String description() { return \"" + description + "\"; }")).writeJar(plugins, pluginId + ".jar");
    }

    private AdapterRegistry load(Map<String, String> overrides)
    {
        return AgentAdapters.load(agent, plugins, overrides, Optional.of(Path.of("/etc/cni-chain.yaml")), LIMIT);
    }

    @Test
    void builtInAndPluginAdaptersTogether()
    {
        pluginNamed("acme-aws", "aws", "from a plugin");
        AdapterRegistry registry = load(Map.of());
        assertThat(registry.names()).containsExactly("aws", "calico");
        assertThat(registry.find("calico").orElseThrow().origin()).isEqualTo(LoadedAdapter.Origin.BUILT_IN);
        assertThat(registry.find("aws").orElseThrow().describeOrigin()).isEqualTo("plugin jar " + plugins.resolve("acme-aws.jar"));
    }

    @Test
    void aPluginNamedLikeABuiltInIsAnErrorNamingBothUnlessTheYamlSaysWhichWins()
    {
        pluginNamed("acme-calico", "calico", "the plugin one");

        assertThatThrownBy(() -> load(Map.of()))
                .isInstanceOf(CniChainException.class)
                .hasMessage("adapter name 'calico' is provided by built-in (" + builtInJar + ") and by plugin acme-calico ("
                        + plugins.resolve("acme-calico.jar") + "); say which wins in the YAML configuration: "
                        + "adapterOverrides: { calico: built-in } or { calico: acme-calico }")
                .satisfies(e -> assertThat(((CniChainException) e).code()).isEqualTo(ErrorCode.BAD_CONFIG));

        assertThat(load(Map.of("calico", "acme-calico")).find("calico").orElseThrow().adapter().description()).isEqualTo("the plugin one");
        assertThat(load(Map.of("calico", "built-in")).find("calico").orElseThrow().adapter().description()).isEqualTo("the built-in one");
    }

    @Test
    void twoPluginsWithOneNameAreAnErrorUntilOneIsChosen()
    {
        pluginNamed("one", "shared", "one");
        pluginNamed("two", "shared", "two");

        assertThatThrownBy(() -> load(Map.of())).hasMessage("adapter name 'shared' is provided by plugin one (" + plugins.resolve("one.jar")
                + ") and by plugin two (" + plugins.resolve("two.jar") + "); say which wins in the YAML configuration: "
                + "adapterOverrides: { shared: one } or { shared: two }");
        assertThat(load(Map.of("shared", "two")).find("shared").orElseThrow().adapter().description()).isEqualTo("two");
    }

    @Test
    void anOverrideThatNamesNoProviderIsAnError()
    {
        pluginNamed("one", "shared", "one");
        assertThatThrownBy(() -> load(Map.of("shared", "three"))).hasMessage("/etc/cni-chain.yaml: key 'adapterOverrides.shared': 'three' provides "
                + "no adapter named 'shared' (providers: plugin one (" + plugins.resolve("one.jar") + "))");
        assertThatThrownBy(() -> load(Map.of("nosuch", "built-in"))).hasMessage("/etc/cni-chain.yaml: key 'adapterOverrides.nosuch': no adapter "
                + "named 'nosuch' is installed (installed: calico, shared)");
    }
}
