package io.cnichain.core.plugins;

import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.testkit.PluginJarBuilder;
import io.cnichain.testkit.TestNode;
import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.SpiVersion;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pf4j.Extension;
import org.pf4j.PluginManager;
import org.pf4j.RuntimeMode;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;

import static io.cnichain.testkit.PluginJarBuilder.adapterSource;
import static io.cnichain.testkit.PluginJarBuilder.plugin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Real jars built on the fly, loaded from a real directory with pf4j, as the agent does. */
class PluginJarLoaderTest
{
    static final Duration LIMIT = Duration.ofMillis(500);

    @TempDir
    Path temp;

    Path plugins;

    @BeforeEach
    void setUp()
            throws IOException
    {
        plugins = Files.createDirectory(temp.resolve("plugins"));
        Files.setPosixFilePermissions(plugins, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    PluginJarLoader.Result load()
    {
        return new PluginJarLoader(LIMIT).load(plugins);
    }

    static String greeting(String version)
    {
        return "package com.example.greeting;\npublic final class Greeting { public static String version() { return \"" + version + "\"; } }\n";
    }

    @Test
    void anAdapterFromAJarGetsItsOwnClassLoaderAndTheAgentsSpi()
    {
        Path jar = plugin("acme").manifest("Plugin-Version", "2.3.4")
                .adapter("com.acme.AcmeAdapter", adapterSource("com.acme.AcmeAdapter", "acme", "return Detection.of(7, \"acme seen\");", ""))
                .writeJar(plugins, "acme.jar");

        PluginJarLoader.Result result = load();

        assertThat(result.problems()).isEmpty();
        LoadedAdapter acme = result.adapters().get(0);
        assertThat(acme.name()).isEqualTo("acme");
        assertThat(acme.origin()).isEqualTo(LoadedAdapter.Origin.PLUGIN);
        assertThat(acme.location()).isEqualTo(jar.toString());
        assertThat(acme.describeOrigin()).isEqualTo("plugin jar " + jar);
        assertThat(acme.pluginId()).contains("acme");
        assertThat(acme.version()).isEqualTo("2.3.4");
        assertThat(acme.state()).isEqualTo("enabled");
        assertThat(acme.adapter().detect(TestNode.create(temp.resolve("node")).snapshot(), AdapterSettings.empty("x")).evidence()).containsExactly("acme seen");
    }

    /** Megabytes of blank lines in a services file would hold start-up while they are read: past 64 KiB it is refused, at once. */
    @Test
    void aServicesFilePaddedToMegabytesIsRefusedUnread()
    {
        byte[] padded = new byte[(100 << 10) + 1];
        java.util.Arrays.fill(padded, (byte) '\n');
        plugin("padded").adapter("com.acme.Padded", adapterSource("com.acme.Padded", "padded", "return Detection.of(1, \"x\");", ""))
                .entry(io.cnichain.testkit.PluginJarBuilder.SERVICES, padded).writeJar(plugins, "padded.jar");

        long start = System.nanoTime();
        PluginJarLoader.Result result = load();
        assertThat(result.adapters()).isEmpty();
        assertThat(String.join("\n", result.problems())).contains("is larger than 65536 bytes (a services file lists a few class names); not read");
        assertThat((System.nanoTime() - start) / 1_000_000).as("ms").isLessThan(5000L);
    }

    @Test
    void twoPluginsBundlingDifferentVersionsOfOneLibraryEachGetTheirOwn()
    {
        String usesGreeting = "public String description() { return \"greeting \" + com.example.greeting.Greeting.version(); }";
        plugin("one").source("com.example.greeting.Greeting", greeting("1"))
                .adapter("com.one.OneAdapter", adapterSource("com.one.OneAdapter", "one", "return Detection.none();", usesGreeting))
                .writeJar(plugins, "one.jar");
        // The second as a pf4j zip: its own classes, and the library as a jar under lib/.
        plugin("two").adapter("com.two.TwoAdapter", adapterSource("com.two.TwoAdapter", "two", "return Detection.none();", usesGreeting))
                .source("com.example.greeting.Greeting", greeting("2")).omit("com.example.greeting.Greeting")
                .writeZip(plugins, "two.zip", Map.of("greeting-2.jar", plugin("lib").source("com.example.greeting.Greeting", greeting("2"))));

        PluginJarLoader.Result result = load();

        assertThat(result.problems()).isEmpty();
        assertThat(result.adapters()).extracting(a -> a.adapter().description()).containsExactlyInAnyOrder("greeting 1", "greeting 2");
        assertThat(plugins).isDirectoryNotContaining(p -> !p.getFileName().toString().matches("one.jar|two.zip"));
    }

    @Test
    void anAdapterCannotReachTheEngine()
    {
        plugin("nosy").adapter("com.nosy.NosyAdapter", adapterSource("com.nosy.NosyAdapter", "nosy", """
                        String seen;
                        try { Class.forName("io.cnichain.core.fs.AtomicFileWriter"); seen = "engine visible"; }
                        catch (ClassNotFoundException e) { seen = "engine hidden"; }
                        return Detection.of(1, seen, "view " + node.getClass().getSimpleName());""", ""))
                .writeJar(plugins, "nosy.jar");

        LoadedAdapter nosy = load().adapters().get(0);

        assertThat(nosy.adapter().detect(TestNode.create(temp.resolve("node")).snapshot(), AdapterSettings.empty("x")).evidence())
                .containsExactly("engine hidden", "view ReadOnlyNodeView");
    }

    @Test
    void aJarWithoutDescriptorIsRefused()
    {
        Path jar = plugin("x").withoutManifest()
                .adapter("com.x.XAdapter", adapterSource("com.x.XAdapter", "x", "return Detection.none();", ""))
                .writeJar(plugins, "x.jar");
        plugin("y").manifest("Plugin-Id", null).adapter("com.y.YAdapter", adapterSource("com.y.YAdapter", "y", "return Detection.none();", ""))
                .writeJar(plugins, "y.jar");

        PluginJarLoader.Result result = load();

        assertThat(result.adapters()).isEmpty();
        assertThat(result.problems()).containsExactly(
                jar + ": refused: it has no plugin descriptor (META-INF/MANIFEST.MF with Plugin-Id, Plugin-Version and Plugin-Requires); see adapters/README.md",
                plugins.resolve("y.jar") + ": refused: its manifest has no Plugin-Id (is it a cni-chain adapter plugin? its manifest needs Plugin-Id, "
                        + "Plugin-Version and Plugin-Requires)");
    }

    @Test
    void aCorruptJarIsRefusedAndTheOthersLoad()
            throws IOException
    {
        Path corrupt = Files.write(plugins.resolve("a-corrupt.jar"), "PK\u0003\u0004 not really a zip".getBytes(StandardCharsets.UTF_8));
        Files.setPosixFilePermissions(corrupt, PosixFilePermissions.fromString("rw-r--r--"));
        plugin("good").adapter("com.good.GoodAdapter", adapterSource("com.good.GoodAdapter", "good", "return Detection.none();", ""))
                .writeJar(plugins, "b-good.jar");

        PluginJarLoader.Result result = load();

        assertThat(result.adapters()).extracting(LoadedAdapter::name).containsExactly("good");
        assertThat(result.problems()).singleElement().asString().startsWith(corrupt + ": refused: not a readable jar: java.util.zip.ZipException");
    }

    /** Named as a jar, but no file: each is a problem the adapters listing shows, with what it is. */
    @Test
    void entriesNamedAsJarsThatAreNoFilesAreProblems()
            throws Exception
    {
        Files.createDirectory(plugins.resolve("a-dir.jar"));
        Files.createSymbolicLink(plugins.resolve("b-dangling.jar"), plugins.resolve("nowhere.jar"));
        Path fifo = plugins.resolve("c-fifo.jar");
        new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor();
        plugin("good").adapter("com.good.GoodAdapter", adapterSource("com.good.GoodAdapter", "good", "return Detection.none();", ""))
                .writeJar(plugins, "d-good.jar");

        PluginJarLoader.Result result = load();

        assertThat(result.adapters()).extracting(LoadedAdapter::name).containsExactly("good");
        assertThat(result.problems()).containsExactlyInAnyOrder(plugins.resolve("a-dir.jar") + ": refused: a directory",
                plugins.resolve("b-dangling.jar") + ": refused: a link that leads to no regular file",
                fifo + ": refused: not a regular file (a FIFO, a socket or a device)");
    }

    @Test
    void aJarBuiltForAnotherSpiIsRefusedNamingTheRangeAndTheAgentsVersion()
    {
        Path jar = plugin("future").manifest("Plugin-Requires", ">=2.0.0 & <3.0.0")
                .adapter("com.f.FutureAdapter", adapterSource("com.f.FutureAdapter", "future", "return Detection.none();", ""))
                .writeJar(plugins, "future.jar");
        plugin("unbounded").manifest("Plugin-Requires", null)
                .adapter("com.u.UAdapter", adapterSource("com.u.UAdapter", "unbounded", "return Detection.none();", ""))
                .writeJar(plugins, "unbounded.jar");
        plugin("garbled").manifest("Plugin-Requires", "one point oh")
                .adapter("com.g.GAdapter", adapterSource("com.g.GAdapter", "garbled", "return Detection.none();", ""))
                .writeJar(plugins, "garbled.jar");

        PluginJarLoader.Result result = load();

        assertThat(result.adapters()).isEmpty();
        assertThat(result.problems()).containsExactly(
                jar + ": refused: built for SPI >=2.0.0 & <3.0.0 (Plugin-Requires), but this agent's SPI is " + SpiVersion.CURRENT,
                plugins.resolve("garbled.jar") + ": refused: Plugin-Requires 'one point oh' is not a version range such as '" + SpiVersion.COMPATIBLE_RANGE
                        + "' (" + result.problems().get(1).replaceAll(".*such as '[^']*' \\(", ""),
                plugins.resolve("unbounded.jar") + ": refused: its manifest has no Plugin-Requires: it must name the SPI versions it was built for, "
                        + "for example 'Plugin-Requires: " + SpiVersion.COMPATIBLE_RANGE + "' (this agent's SPI is " + SpiVersion.CURRENT + ")");
    }

    @Test
    void classesThatFailToLoadAreReportedWithTheJarAndTheReason()
    {
        Path jar = plugin("broken")
                .service("com.b.Missing")
                .adapter("com.b.NeedsHelper", adapterSource("com.b.NeedsHelper", "needs-helper", "return Detection.none();",
                        "static final Object HELPER = new com.b.Helper();"))
                .source("com.b.Helper", "package com.b; public class Helper {}").omit("com.b.Helper")
                .adapter("com.b.NotAnAdapter", "package com.b; public class NotAnAdapter {}")
                .adapter("com.b.Throws", adapterSource("com.b.Throws", "throws", "return Detection.none();",
                        "public Throws() { throw new IllegalStateException(\"no config\"); }"))
                .adapter("com.b.BadName", adapterSource("com.b.BadName", "Bad Name", "return Detection.none();", ""))
                .adapter("com.b.Fine", adapterSource("com.b.Fine", "fine", "return Detection.none();", ""))
                .writeJar(plugins, "broken.jar");

        PluginJarLoader.Result result = load();

        assertThat(result.adapters()).extracting(LoadedAdapter::name).containsExactly("fine");
        assertThat(result.problems()).hasSize(5);
        assertThat(result.problems().get(0)).isEqualTo(jar + ": adapter class com.b.Missing failed to load: it is listed in "
                + "META-INF/services/io.cnichain.spi.CniPlatformAdapter but is not in the jar");
        assertThat(result.problems().get(1)).isEqualTo(jar + ": adapter class com.b.NeedsHelper failed to load: it needs class com.b.Helper, "
                + "which is neither in the plugin nor shared by the agent (the agent shares only io.cnichain.spi., org.slf4j. and the JDK)");
        assertThat(result.problems().get(2)).isEqualTo(jar + ": adapter class com.b.NotAnAdapter failed to load: it does not implement "
                + CniPlatformAdapter.class.getName());
        assertThat(result.problems().get(3)).startsWith(jar + ": adapter class com.b.Throws failed to load: threw java.lang.IllegalStateException: "
                + "no config (at com.b.Throws.<init>");
        assertThat(result.problems().get(4)).isEqualTo(jar + ": adapter class com.b.BadName (plugin jar " + jar + "): name() returned 'Bad Name', "
                + "not a name of lower-case letters, digits and dashes");
    }

    @Test
    void pf4jIsNotSharedWithPlugins()
    {
        Path jar = plugin("needs-pf4j").compileAgainst(PluginManager.class)
                .adapter("com.p.NeedsPf4j", adapterSource("com.p.NeedsPf4j", "needs-pf4j", "return Detection.none();",
                        "static final Class<?> PF4J = org.pf4j.PluginManager.class;"))
                .writeJar(plugins, "needs-pf4j.jar");

        PluginJarLoader.Result result = load();

        assertThat(result.adapters()).isEmpty();
        assertThat(result.problems()).containsExactly(jar + ": adapter class com.p.NeedsPf4j failed to load: it needs class org.pf4j.PluginManager, "
                + "which is neither in the plugin nor shared by the agent (the agent shares only io.cnichain.spi., org.slf4j. and the JDK)");
    }

    @Test
    void anAdapterCarryingPf4jsExtensionAnnotationLoadsAndTheMissingAnnotationIsIgnored()
            throws Exception
    {
        String source = adapterSource("com.x.Annotated", "annotated",
                "return Detection.of(1, getClass().getAnnotations().length + \" annotations\");", "")
                .replace("public class Annotated", "@org.pf4j.Extension public class Annotated");
        Path jar = plugin("annotated").compileAgainst(PluginManager.class).adapter("com.x.Annotated", source).writeJar(plugins, "annotated.jar");

        PluginJarLoader.Result result = load();

        assertThat(result.problems()).isEmpty();
        assertThat(result.adapters().get(0).adapter().detect(TestNode.create(temp.resolve("node")).snapshot(), AdapterSettings.empty("x")).evidence())
                .containsExactly("0 annotations");
        // The annotation is in the class file: a loader that sees pf4j finds it.
        try (URLClassLoader withPf4j = new URLClassLoader(new URL[] {jar.toUri().toURL()}, getClass().getClassLoader())) {
            assertThat(Class.forName("com.x.Annotated", false, withPf4j).isAnnotationPresent(Extension.class)).isTrue();
        }
    }

    @Test
    void pluginDependenciesAreRefused()
    {
        Path jar = plugin("dependent").manifest("Plugin-Dependencies", "other-plugin")
                .adapter("com.d.D", adapterSource("com.d.D", "dependent", "return Detection.none();", ""))
                .writeJar(plugins, "dependent.jar");

        assertThat(load().problems()).containsExactly(jar + ": refused: Plugin-Dependencies is set, but adapter plugins cannot depend on other "
                + "plugins; bundle what it needs in the jar");
    }

    @Test
    void statusFilesAndPf4jsModePropertyChangeNothing()
            throws IOException
    {
        plugin("listed").adapter("com.l.L", adapterSource("com.l.L", "listed", "return Detection.none();", "")).writeJar(plugins, "listed.jar");
        // pf4j's defaults would read these: only "other" enabled, "listed" disabled.
        Files.writeString(plugins.resolve("enabled.txt"), "other\n");
        Files.writeString(plugins.resolve("disabled.txt"), "listed\n");
        String mode = System.setProperty("pf4j.mode", "development");
        try {
            assertThat(new AdapterPluginManager(new PluginDirectory(plugins, PluginPermissions.forThisProcess())).getRuntimeMode())
                    .isEqualTo(RuntimeMode.DEPLOYMENT);
            PluginJarLoader.Result result = load();
            assertThat(result.problems()).isEmpty();
            assertThat(result.adapters()).extracting(LoadedAdapter::name).containsExactly("listed");
        }
        finally {
            restore("pf4j.mode", mode);
        }
    }

    @Test
    void aConstructorThatHangsIsAbandonedAfterTheTimeLimit()
    {
        Path jar = plugin("slow").adapter("com.s.Slow", adapterSource("com.s.Slow", "slow", "return Detection.none();",
                "public Slow() throws Exception { Thread.sleep(60_000); }")).writeJar(plugins, "slow.jar");
        long start = System.nanoTime();

        PluginJarLoader.Result result = load();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(result.problems()).containsExactly(jar + ": adapter class com.s.Slow failed to load: did not return within 500 ms");
    }

    @Test
    void aJarThatBundlesTheSpiIsReportedAndStillGetsTheAgentsSpi()
    {
        Path jar = plugin("fat").bundleSpi()
                .adapter("com.fat.FatAdapter", adapterSource("com.fat.FatAdapter", "fat", "return Detection.of(3, \"fat\");", ""))
                .writeJar(plugins, "fat.jar");

        PluginJarLoader.Result result = load();

        assertThat(result.problems()).containsExactly(jar + ": bundles its own copy of the SPI (io/cnichain/spi/); the agent's SPI is used "
                + "instead; build it with cni-chain-spi in scope provided");
        assertThat(result.adapters()).extracting(LoadedAdapter::name).containsExactly("fat");
    }

    @Test
    void aJarWithoutServicesFileAndAReusedPluginIdAreRefused()
    {
        Path empty = plugin("empty").source("com.e.Nothing", "package com.e; public class Nothing {}").writeJar(plugins, "a-empty.jar");
        Path first = plugin("same").adapter("com.s.A", adapterSource("com.s.A", "same-a", "return Detection.none();", "")).writeJar(plugins, "b-same.jar");
        Path second = plugin("same").adapter("com.s.B", adapterSource("com.s.B", "same-b", "return Detection.none();", "")).writeJar(plugins, "c-same.jar");

        PluginJarLoader.Result result = load();

        assertThat(result.adapters()).extracting(LoadedAdapter::name).containsExactly("same-a");
        assertThat(result.problems()).containsExactly(
                empty + ": refused: it names no adapter: META-INF/services/io.cnichain.spi.CniPlatformAdapter is missing or empty",
                second + ": refused: Plugin-Id 'same' is already used by " + first + "; one plugin per id");
    }

    @Test
    void jarsOthersCanWriteAreRefusedWithTheFix()
            throws IOException
    {
        Path jar = plugin("open").adapter("com.o.Open", adapterSource("com.o.Open", "open", "return Detection.none();", "")).writeJar(plugins, "open.jar");
        Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("rw-rw-r--"));
        assertThat(load().problems()).containsExactly(jar + ": refused: it is writable by its group (mode 0664); fix: chmod go-w " + jar);

        Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(plugins, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path real = plugins.toRealPath();
        assertThat(load().problems()).containsExactly(jar + ": refused: directory " + real + " is writable by anyone (mode 0777); fix: chmod go-w " + real);

        Files.setPosixFilePermissions(plugins, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThat(load().adapters()).extracting(LoadedAdapter::name).containsExactly("open");
    }

    @Test
    void aPluginsDirectoryBelowAStickyWorldWritableDirectoryIsAccepted()
            throws IOException
    {
        // Stands in for /tmp: others may write there, but cannot rename or delete the plugins directory they do not own.
        Path sticky = Files.createDirectory(temp.resolve("sticky"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        Path below = Files.createDirectory(sticky.resolve("plugins"));
        Files.setPosixFilePermissions(below, PosixFilePermissions.fromString("rwxr-xr-x"));
        plugin("below").adapter("com.b.Below", adapterSource("com.b.Below", "below", "return Detection.none();", "")).writeJar(below, "below.jar");

        PluginJarLoader.Result result = new PluginJarLoader(LIMIT).load(below);

        assertThat(result.problems()).isEmpty();
        assertThat(result.adapters()).extracting(LoadedAdapter::name).containsExactly("below");
    }

    @Test
    void aPluginsDirectoryReachedThroughALinkInAWritableDirectoryIsRefused()
            throws IOException
    {
        // The real directory is safe; the link that leads there sits where anyone may replace it.
        Path jar = plugin("linked").adapter("com.l.Linked", adapterSource("com.l.Linked", "linked", "return Detection.none();", "")).writeJar(plugins, "linked.jar");
        Path open = Files.createDirectory(temp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path link = Files.createSymbolicLink(open.resolve("plugins"), plugins);

        PluginJarLoader.Result result = new PluginJarLoader(LIMIT).load(link);

        assertThat(result.adapters()).isEmpty();
        assertThat(result.problems()).containsExactly(link.resolve("linked.jar") + ": refused: directory " + open + " (on the way to " + link
                + ") is writable by anyone (mode 0777); fix: chmod go-w " + open);
    }

    @Test
    void whatIsLoadedIsACopyOfTheJarThatWasChecked()
            throws IOException
    {
        Path jar = plugin("copied").adapter("com.c.Copied", adapterSource("com.c.Copied", "copied", "return Detection.none();", "")).writeJar(plugins, "copied.jar");

        PluginJarLoader.Result result = load();

        assertThat(result.problems()).isEmpty();
        assertThat(result.adapters()).extracting(LoadedAdapter::name).containsExactly("copied");
        // The jar may be replaced from now on: the agent holds its own copy, private to it.
        Files.delete(jar);
        Object adapter = result.adapters().get(0).adapter();
        Class<?> type = adapter instanceof io.cnichain.core.adapters.GuardedAdapter guarded ? guarded.adapterClass() : adapter.getClass();
        assertThat(type.getProtectionDomain().getCodeSource().getLocation().getPath())
                .doesNotContain(plugins.toString()).contains("cni-chain-plugins-");
    }

    @Test
    void aStickyWorldWritablePluginsDirectoryIsRefused()
            throws IOException
    {
        Path jar = plugin("open").adapter("com.o.Open", adapterSource("com.o.Open", "open", "return Detection.none();", "")).writeJar(plugins, "open.jar");
        Files.setAttribute(plugins, "unix:mode", 01777);
        Path real = plugins.toRealPath();

        assertThat(load().problems()).containsExactly(jar + ": refused: directory " + real + " is writable by anyone (mode 1777); fix: chmod go-w " + real);
    }

    @Test
    void jarsOwnedByAnotherUserAreRefusedWhenTheAgentIsRoot()
            throws IOException
    {
        requireRoot();
        Path jar = plugin("theirs").adapter("com.t.T", adapterSource("com.t.T", "theirs", "return Detection.none();", "")).writeJar(plugins, "theirs.jar");
        Files.setAttribute(jar, "unix:uid", 4242);

        assertThat(new PluginJarLoader(LIMIT, new PluginPermissions(0)).load(plugins).problems())
                .containsExactly(jar + ": refused: it is owned by uid 4242, not root; fix: chown root " + jar);
        // An agent running as that user may load its own jars: they give it nothing it does not have.
        assertThat(new PluginJarLoader(LIMIT, new PluginPermissions(4242)).load(plugins).problems()).isEmpty();
        assertThat(new PluginJarLoader(LIMIT, new PluginPermissions(1000)).load(plugins).problems())
                .containsExactly(jar + ": refused: it is owned by uid 4242, not root nor the agent's user (uid 1000); fix: chown root " + jar);
    }

    @Test
    void aLinkedJarIsCheckedWhereItReallyIs()
            throws IOException
    {
        Path elsewhere = Files.createDirectory(temp.resolve("elsewhere"));
        Files.setPosixFilePermissions(elsewhere, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path real = plugin("linked").adapter("com.l.L", adapterSource("com.l.L", "linked", "return Detection.none();", "")).writeJar(elsewhere, "l.jar");
        Path link = Files.createSymbolicLink(plugins.resolve("l.jar"), real);

        assertThat(load().problems()).containsExactly(link + ": refused: directory " + elsewhere.toRealPath() + " is writable by anyone (mode 0777); "
                + "fix: chmod go-w " + elsewhere.toRealPath());
    }

    @Test
    void noDirectoryMeansNoPluginsAndOtherFilesAreIgnored()
            throws IOException
    {
        assertThat(new PluginJarLoader(LIMIT).load(temp.resolve("missing")).adapters()).isEmpty();
        assertThat(new PluginJarLoader(LIMIT).load(temp.resolve("missing")).problems()).isEmpty();
        Files.writeString(plugins.resolve("README.txt"), "drop jars here");
        Files.writeString(plugins.resolve(".hidden.jar"), "not loaded");
        assertThat(load().problems()).isEmpty();
    }

    static void restore(String key, String value)
    {
        if (value == null) {
            System.clearProperty(key);
        }
        else {
            System.setProperty(key, value);
        }
    }

    static void requireRoot()
    {
        boolean root = new PluginPermissions(0).agentUid() == PluginPermissions.forThisProcess().agentUid();
        if (!root && "true".equals(System.getenv("CI"))) {
            fail("this test needs root, and CI runs as root");
        }
        assumeTrue(root, "needs root to chown");
    }
}
