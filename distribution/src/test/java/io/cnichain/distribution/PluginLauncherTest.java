package io.cnichain.distribution;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.json.CniJson;
import io.cnichain.testkit.KubeletVolume;
import io.cnichain.testkit.PluginJarBuilder;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

import static io.cnichain.testkit.PluginJarBuilder.adapterSource;
import static io.cnichain.testkit.PluginJarBuilder.plugin;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example plugin (examples/aws-vpc-cni-adapter, as packaged) and plugins built here, dropped into a plugins
 * directory and loaded by the real distribution launcher in its own JVM, on temp node roots.
 */
class PluginLauncherTest
{
    static final Path EXAMPLES = Path.of(System.getProperty("cnichain.examplePlugins", "target/example-plugins"));
    static final String AWS = """
            {"cniVersion":"0.4.0","name":"aws-cni","disableCheck":true,"plugins":[{"name":"aws-cni","type":"aws-cni","vethPrefix":"eni","mtu":"9001"},\
            {"name":"egress-cni","type":"egress-cni","mtu":"9001","enabled":"false"},{"type":"portmap","capabilities":{"portMappings":true},"snat":true}]}""";

    @TempDir
    Path temp;

    TestNode node;
    Path plugins;

    @BeforeEach
    void setUp()
            throws IOException
    {
        node = TestNode.create(temp.resolve("node"));
        plugins = Files.createDirectory(temp.resolve("plugins"));
        Files.setPosixFilePermissions(plugins, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    static Path exampleJar()
            throws IOException
    {
        try (Stream<Path> files = Files.list(EXAMPLES)) {
            return files.filter(p -> p.getFileName().toString().startsWith("cni-chain-example-aws-vpc-cni-adapter-")).findFirst().orElseThrow();
        }
    }

    Path dropExample()
            throws IOException
    {
        Path jar = Files.copy(exampleJar(), plugins.resolve("aws-vpc-cni.jar"));
        Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("rw-r--r--"));
        return jar;
    }

    void awsNode()
    {
        node.binaries("aws-cni", "egress-cni", "portmap");
        node.write("10-aws.conflist", AWS);
    }

    @Test
    void theExampleIsAPluginJarNotPartOfTheAgent()
            throws IOException
    {
        try (Stream<Path> lib = Files.list(LauncherTest.HOME.resolve("lib"))) {
            assertThat(lib.map(p -> p.getFileName().toString())).noneMatch(name -> name.contains("example"));
        }
        assertThat(LauncherTest.HOME.resolve("plugins")).isEmptyDirectory();
        Manifest manifest;
        try (JarInputStream in = new JarInputStream(Files.newInputStream(exampleJar()))) {
            manifest = in.getManifest();
        }
        assertThat(manifest.getMainAttributes().getValue("Plugin-Id")).isEqualTo("aws-vpc-cni");
        assertThat(manifest.getMainAttributes().getValue("Plugin-Requires")).isEqualTo(">=1.0.0 & <2.0.0");
        assertThat(Cli.run(node, "adapters").out()).doesNotContain("aws-vpc-cni");
    }

    @Test
    void selectedByYamlItPatchesAndUninstalls10AwsConflist()
            throws Exception
    {
        awsNode();
        Path jar = dropExample();
        Path yaml = KubeletVolume.configMapFile(temp.resolve("config"), "cni-chain.yaml", "adapter: aws-vpc-cni\npluginsDir: " + plugins + "\n");

        Run adapters = run("adapters", "--config", yaml.toString());
        assertThat(adapters.code()).as(adapters.toString()).isZero();
        assertThat(adapters.out()).containsPattern("aws-vpc-cni\\s+0\\.1\\.0\\s+plugin jar " + jar + "\\s+enabled\\s+AWS VPC CNI");
        assertThat(adapters.out()).containsPattern("generic-symlink\\s+0\\.1\\.0\\s+built-in\\s+enabled");

        Run install = run("install", "--config", yaml.toString());
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(install.out()).contains("Loaded plugin jar " + jar + ": aws-vpc-cni@0.1.0 for SPI >=1.0.0 & <2.0.0, adapters: aws-vpc-cni")
                .contains("Using adapter aws-vpc-cni (pinned by configuration)")
                .contains("Created CNI config /etc/cni/net.d/10-aws.conflist");
        assertThat(CliTest.plugins(node.read("10-aws.conflist"))).containsExactly("aws-cni", "egress-cni", "portmap", "linkerd-cni");
        assertThat(CniJson.parse(node.read("10-aws.conflist").getBytes(StandardCharsets.UTF_8)).get("name").asText()).isEqualTo("aws-cni");

        Run uninstall = run("uninstall", "--config", yaml.toString());
        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(CliTest.plugins(node.read("10-aws.conflist"))).containsExactly("aws-cni", "egress-cni", "portmap");
    }

    @Test
    void foundByAutoDetectionOnAnAwsNode()
            throws Exception
    {
        awsNode();
        Path jar = dropExample();

        Run detect = run("detect", "--output", "json", "--plugins-dir", plugins.toString());
        assertThat(detect.code()).as(detect.toString()).isZero();
        JsonNode report = CniJson.parse(detect.out().substring(detect.out().indexOf('{')).getBytes(StandardCharsets.UTF_8));
        assertThat(report.at("/chosen").asText()).isEqualTo("aws-vpc-cni");
        assertThat(report.at("/why").asText()).isEqualTo("highest detection score, 150");
        JsonNode aws = report.at("/adapters/0");
        assertThat(aws.get("name").asText()).isEqualTo("aws-vpc-cni");
        assertThat(aws.get("origin").asText()).isEqualTo("plugin jar " + jar);
        assertThat(aws.get("state").asText()).isEqualTo("enabled");
        assertThat(report.at("/targets/0/path").asText()).isEqualTo("/etc/cni/net.d/10-aws.conflist");

        Run install = run("install", "--plugins-dir", plugins.toString());
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(CliTest.plugins(node.read("10-aws.conflist"))).containsExactly("aws-cni", "egress-cni", "portmap", "linkerd-cni");
    }

    @Test
    void theSameJarWithATamperedPluginRequiresIsRefusedAndTheAgentGoesOn()
            throws Exception
    {
        awsNode();
        Path jar = plugins.resolve("aws-vpc-cni.jar");
        rewriteManifest(exampleJar(), jar, "Plugin-Requires", ">=2.0.0 & <3.0.0");

        Run adapters = run("adapters", "--plugins-dir", plugins.toString());
        assertThat(adapters.code()).as(adapters.toString()).isZero();
        assertThat(adapters.out()).contains("  ! " + jar + ": refused: built for SPI >=2.0.0 & <3.0.0 (Plugin-Requires), but this agent's SPI is 1.0.0")
                .doesNotContainPattern("aws-vpc-cni\\s+0\\.1\\.0");

        Run install = run("install", "--plugins-dir", plugins.toString());
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(install.out()).contains("Using adapter generic-symlink");
        assertThat(CliTest.plugins(node.read("10-aws.conflist"))).containsExactly("aws-cni", "egress-cni", "portmap", "linkerd-cni");
    }

    /** A manifest's text reaches the terminal escaped: no jar can colour, move or clear the operator's screen. */
    @Test
    void theAdaptersListingEscapesWhatAJarSays()
            throws Exception
    {
        plugin("shouty").manifest("Plugin-Version", "1.0\u001b[31mPWNED").adapter("com.shouty.Shouty", adapterSource("com.shouty.Shouty", "shouty",
                "return Detection.none();", "")).writeJar(plugins, "shouty.jar");

        Run adapters = run("adapters", "--plugins-dir", plugins.toString());
        assertThat(adapters.code()).as(adapters.toString()).isZero();
        assertThat(adapters.out()).contains("1.0\\x1b[31mPWNED").doesNotContain("\u001b");
    }

    @Test
    void aPluginThatThrowsInDetectIsContained()
            throws Exception
    {
        awsNode();
        Path jar = dropExample();
        Path bad = plugin("crashy").adapter("com.crashy.CrashyAdapter", adapterSource("com.crashy.CrashyAdapter", "crashy",
                "throw new IllegalStateException(\"crashy cannot read the node\");", "")).writeJar(plugins, "crashy.jar");

        Run detect = run("detect", "--plugins-dir", plugins.toString());
        assertThat(detect.code()).as(detect.toString()).isZero();
        assertThat(detect.out()).contains("Adapter crashy (plugin jar " + bad + ") disabled: detect() threw java.lang.IllegalStateException: "
                + "crashy cannot read the node")
                .containsPattern("crashy\\s+score\\s+0\\s+plugin jar " + bad + "\\s+\\[disabled\\]")
                .contains("! adapter crashy: is disabled: detect() threw java.lang.IllegalStateException: crashy cannot read the node")
                .contains("chosen: aws-vpc-cni");
        assertThat(detect.out().lines().filter(l -> l.contains("ERROR") && l.contains("crashy"))).hasSize(1);

        Run install = run("install", "--plugins-dir", plugins.toString());
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(CliTest.plugins(node.read("10-aws.conflist"))).containsExactly("aws-cni", "egress-cni", "portmap", "linkerd-cni");
        assertThat(jar).exists();

        // Pinned, a broken adapter fails the pass with its reason; the file the runtime loads is still patched.
        Run uninstall = run("uninstall", "--plugins-dir", plugins.toString());
        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(CliTest.plugins(node.read("10-aws.conflist"))).doesNotContain("linkerd-cni");
        Run pinned = run("install", "--plugins-dir", plugins.toString(), "--adapter", "crashy");
        assertThat(pinned.code()).as(pinned.toString()).isEqualTo(1);
        assertThat(pinned.out()).contains("adapter crashy: is disabled: detect() threw");
        assertThat(CliTest.plugins(node.read("10-aws.conflist"))).containsExactly("aws-cni", "egress-cni", "portmap", "linkerd-cni");
    }

    @Test
    void twoPluginsBundlingDifferentVersionsOfALibraryEachGetTheirOwn()
            throws Exception
    {
        String usesGreeting = "public String description() { return \"greeting \" + com.example.greeting.Greeting.version(); }";
        for (String version : List.of("1", "2")) {
            plugin("greeter-" + version)
                    .source("com.example.greeting.Greeting",
                            "package com.example.greeting; public final class Greeting { public static String version() { return \"" + version + "\"; } }")
                    .adapter("com.greeter" + version + ".Adapter", adapterSource("com.greeter" + version + ".Adapter", "greeter-" + version,
                            "return Detection.none();", usesGreeting))
                    .writeJar(plugins, "greeter-" + version + ".jar");
        }

        Run adapters = run("adapters", "--plugins-dir", plugins.toString());
        assertThat(adapters.code()).as(adapters.toString()).isZero();
        assertThat(adapters.out()).containsPattern("greeter-1\\s+1\\.0\\.0\\s+plugin jar \\S+greeter-1\\.jar\\s+enabled\\s+greeting 1")
                .containsPattern("greeter-2\\s+1\\.0\\.0\\s+plugin jar \\S+greeter-2\\.jar\\s+enabled\\s+greeting 2");
    }

    @Test
    void aNameClashStopsTheAgentUntilTheYamlSaysWhichWins()
            throws Exception
    {
        awsNode();
        Path jar = plugin("my-generic").adapter("com.mine.Generic", adapterSource("com.mine.Generic", "generic-symlink",
                "return Detection.of(1, \"mine\");", "public String description() { return \"my own generic\"; }")).writeJar(plugins, "mine.jar");

        Run clash = run("detect", "--plugins-dir", plugins.toString());
        assertThat(clash.code()).as(clash.toString()).isEqualTo(2);
        assertThat(clash.out()).containsPattern("error: adapter name 'generic-symlink' is provided by built-in \\(\\S+cni-chain-adapter-generic-symlink-0\\.1\\.0\\.jar\\) "
                + "and by plugin my-generic \\(" + jar + "\\); say which wins in the YAML configuration: "
                + "adapterOverrides: \\{ generic-symlink: built-in \\} or \\{ generic-symlink: my-generic \\}");

        Path yaml = KubeletVolume.configMapFile(temp.resolve("config"), "cni-chain.yaml", "pluginsDir: " + plugins + "\nadapterOverrides: { generic-symlink: my-generic }\n");
        Run settled = run("adapters", "--config", yaml.toString());
        assertThat(settled.code()).as(settled.toString()).isZero();
        assertThat(settled.out()).containsPattern("generic-symlink\\s+1\\.0\\.0\\s+plugin jar " + jar + "\\s+enabled\\s+my own generic");
    }

    @Test
    void unsafePermissionsAreRefusedWithTheFix()
            throws Exception
    {
        Path jar = dropExample();
        Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("rw-rw-rw-"));
        Run adapters = run("adapters", "--plugins-dir", plugins.toString());
        assertThat(adapters.code()).isZero();
        assertThat(adapters.out()).contains(jar + ": refused: it is writable by anyone (mode 0666); fix: chmod go-w " + jar);
    }

    /** Copies a jar with one manifest attribute changed, as someone editing the descriptor would. */
    static void rewriteManifest(Path source, Path target, String key, String value)
            throws IOException
    {
        try (JarInputStream in = new JarInputStream(Files.newInputStream(source))) {
            Manifest manifest = new Manifest(in.getManifest());
            manifest.getMainAttributes().put(new Attributes.Name(key), value);
            try (OutputStream file = Files.newOutputStream(target); JarOutputStream out = new JarOutputStream(file, manifest)) {
                for (JarEntry entry = in.getNextJarEntry(); entry != null; entry = in.getNextJarEntry()) {
                    out.putNextEntry(new JarEntry(entry.getName()));
                    in.transferTo(out);
                    out.closeEntry();
                }
            }
        }
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r--r--"));
    }

    /**
     * Copies of plugin jars left in the temp directory by processes that died without their shutdown hooks (kill -9,
     * a second signal, the watchdog) are deleted by the next process: five such exits with a 3 MiB jar filled the
     * DaemonSet's 16 MiB /tmp, and every start after failed. A copy whose process still lives stays. And a plugin zip
     * that would expand past the bound is refused before it is expanded.
     */
    @Test
    void abandonedPluginCopiesAreDeletedAndAZipBombIsRefused()
            throws Exception
    {
        awsNode();
        dropExample();
        Path tmp = Files.createDirectories(temp.resolve("tmp"));
        Path abandoned = Files.createDirectories(tmp.resolve("cni-chain-plugins-1111"));
        Files.createFile(abandoned.resolve(".lock"));
        Files.write(abandoned.resolve("1-example.jar"), new byte[3 << 20]);
        Path live = Files.createDirectories(tmp.resolve("cni-chain-plugins-2222"));
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(live.resolve(".lock"),
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
             java.nio.channels.FileLock held = channel.lock()) {
            try (java.util.zip.ZipOutputStream zip = new java.util.zip.ZipOutputStream(Files.newOutputStream(plugins.resolve("bomb.zip")))) {
                zip.putNextEntry(new java.util.zip.ZipEntry("lib/padding.bin"));
                byte[] zeros = new byte[1 << 20];
                for (int i = 0; i < 100; i++) {
                    zip.write(zeros);
                }
                zip.closeEntry();
            }
            Files.setPosixFilePermissions(plugins.resolve("bomb.zip"), PosixFilePermissions.fromString("rw-r--r--"));
            Path yaml = KubeletVolume.configMapFile(temp.resolve("config-tmp"), "cni-chain.yaml", "pluginsDir: " + plugins + "\n");

            Run adapters = run(java.util.Map.of("CNI_CHAIN_JAVA_OPTS", "-Djava.io.tmpdir=" + tmp), "adapters", "--config", yaml.toString());
            assertThat(adapters.out()).contains(plugins.resolve("bomb.zip") + ": refused: it expands to more than 64 MiB");
            assertThat(abandoned).as("its process is gone").doesNotExist();
            assertThat(live).as("its process holds its lock").exists();
            try (var left = Files.list(tmp)) {
                assertThat(left.map(path -> path.getFileName().toString())).as("this run's own copy went at its exit").containsExactly("cni-chain-plugins-2222");
            }
        }
    }

    /** The real launcher, with the node's flags and environment; output and log interleaved. */
    Run run(String command, String... args)
            throws IOException, InterruptedException
    {
        return run(java.util.Map.of(), command, args);
    }

    /** {@link #run(String, String...)} with more environment variables. */
    Run run(java.util.Map<String, String> env, String command, String... args)
            throws IOException, InterruptedException
    {
        List<String> line = new ArrayList<>(List.of(LauncherTest.HOME.resolve("bin/cni-chain").toString(), command));
        line.addAll(node.flags());
        line.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(line).redirectErrorStream(true);
        builder.environment().putAll(node.env());
        builder.environment().putAll(env);
        Process process = builder.start();
        String out;
        try (InputStream stream = process.getInputStream()) {
            out = new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), out);
    }

    record Run(int code, String out)
    {
        @Override
        public String toString()
        {
            return "exit " + code + "\n" + out;
        }
    }
}
