package io.cnichain.distribution;

import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ConfigLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The real distribution directory and its launcher script, as other tools start the agent. */
class LauncherTest
{
    static final Path HOME = Path.of(System.getProperty("cnichain.distribution", "target/cni-chain"));

    @Test
    void layoutIsTheContract()
    {
        assertThat(HOME.resolve("bin/cni-chain")).isExecutable();
        assertThat(HOME.resolve("lib")).isDirectoryContaining(p -> p.getFileName().toString().startsWith("cni-chain-cli-"));
        assertThat(HOME.resolve("plugins")).isEmptyDirectory();
        assertThat(HOME.resolve("conf/cni-chain.yaml")).isRegularFile();
    }

    @Test
    void shippedConfigurationIsValidAndHoldsTheDefaults()
    {
        AgentConfig shipped = ConfigLoader.load(Optional.of(HOME.resolve("conf/cni-chain.yaml")), Map.of(), Map.of());
        AgentConfig defaults = ConfigLoader.load(Optional.empty(), Map.of(), Map.of());
        // Every value, not a few: only where it came from may differ.
        assertThat(shipped).usingRecursiveComparison().ignoringFields("configFile", "configDigest", "plugin.source", "adapters.choice.source").isEqualTo(defaults);
    }

    @Test
    void versionAndDemoRunThroughTheLauncher()
            throws Exception
    {
        Run version = run("--version");
        assertThat(version.code()).isZero();
        assertThat(version.out()).startsWith("cni-chain 0.1.0");

        Run demo = run("demo");
        assertThat(demo.code()).as(demo.out()).isZero();
        assertThat(demo.out()).contains("File /etc/cni/net.d/10-oci.conflist resolves to /etc/cni/net.d/10-oci.conflist-current")
                .contains("Created CNI config /etc/cni/net.d/10-oci.conflist-current")
                .contains("+       \"type\": \"linkerd-cni\",")
                .contains("10-oci.conflist -> 10-oci.conflist-current   (link)")
                .contains("Sandbox removed");
    }

    /** The kept sandbox's hint is a command that works as printed, from any directory, and restores the node. */
    @Test
    void theDemosUninstallHintWorksAsPrintedFromAnotherDirectory(@TempDir Path elsewhere)
            throws Exception
    {
        Run demo = run("demo", "--keep");
        assertThat(demo.code()).as(demo.out()).isZero();
        String hint = demo.out().lines().filter(line -> line.startsWith("  try: ")).findFirst().orElseThrow().substring("  try: ".length());
        Path sandbox = Path.of(demo.out().lines().filter(line -> line.startsWith("Sandbox kept at ")).findFirst().orElseThrow()
                .substring("Sandbox kept at ".length()));
        try {
            Process process = new ProcessBuilder("sh", "-c", hint).directory(elsewhere.toFile()).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).as(out).isZero();
            assertThat(out).contains("Removing linkerd-cni binary: /opt/cni/bin/linkerd-cni");
            assertThat(sandbox.resolve("host/opt/cni/bin/linkerd-cni")).doesNotExist();
            assertThat(sandbox.resolve("host/etc/cni/net.d/10-oci.conflist-current")).content().doesNotContain("linkerd-cni");
        }
        finally {
            try (var walk = Files.walk(sandbox)) {
                for (Path path : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }

    /** The agent is compiled for Java 25: an older runtime is refused in one line naming it, not with a LinkageError's stack. */
    @Test
    void anOlderJavaIsRefusedInOneLineThatNamesIt(@TempDir Path temp)
            throws Exception
    {
        Path java17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
        assumeTrue(Files.isExecutable(java17.resolve("bin/java")), "Debian's Java 17 at " + java17);
        Run real = run(Map.of("JAVA_HOME", java17.toString()), "--version");
        String version = Files.readAllLines(java17.resolve("release")).stream().filter(line -> line.startsWith("JAVA_VERSION="))
                .map(line -> line.substring("JAVA_VERSION=".length()).replace("\"", "")).findFirst().orElseThrow();
        assertThat(real.code()).as(real.out()).isEqualTo(2);
        assertThat(real.out()).isEqualTo("cni-chain: needs Java 25 or later; " + java17 + "/bin/java is Java " + version
                + " (set JAVA_HOME to a Java 25 runtime)\n");

        // Runtimes that only echo their options: the release file decides, or, without one, the first line of java -version.
        for (String older : List.of("1.8.0_292", "21.0.3", "24.0.2")) {
            Path home = fakeRuntime(temp.resolve(older), Optional.of(older));
            assertThat(run(Map.of("JAVA_HOME", home.toString()), "--version").out()).as(older)
                    .isEqualTo("cni-chain: needs Java 25 or later; " + home + "/bin/java is Java " + older + " (set JAVA_HOME to a Java 25 runtime)\n");
        }
        Path noRelease = fakeRuntime(temp.resolve("no-release"), Optional.empty());
        Run asked = run(Map.of("JAVA_HOME", noRelease.toString()), "--version");
        assertThat(asked.out()).isEqualTo("cni-chain: needs Java 25 or later; " + noRelease + "/bin/java is Java 17.0.2 (set JAVA_HOME to a Java 25 "
                + "runtime)\n");
        Run none = run(Map.of("JAVA_HOME", temp.resolve("nothing").toString()), "--version");
        assertThat(none.code()).isEqualTo(2);
        assertThat(none.out()).isEqualTo("cni-chain: needs Java 25 or later, and found none: " + temp.resolve("nothing/bin/java")
                + " is not a program (set JAVA_HOME to a Java 25 runtime)\n");

        for (String current : List.of("25", "25.0.3", "26-ea")) {
            Run run = run(Map.of("JAVA_HOME", fakeRuntime(temp.resolve(current), Optional.of(current)).toString()), "--version");
            assertThat(run.code()).as(run.out()).isZero();
            assertThat(run.out().lines()).as(current).contains("-XX:+UseSerialGC", "-XX:TrimNativeHeapInterval=30000", "--enable-native-access=ALL-UNNAMED");
        }
    }

    /**
     * A runtime's home whose java prints its arguments, one a line (and, asked for its version, Java 17.0.2's answer).
     *
     * @param version the release file's JAVA_VERSION, or none without a release file
     */
    private static Path fakeRuntime(Path home, Optional<String> version)
            throws IOException
    {
        Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\nif [ \"$1\" = -version ]; then echo 'openjdk version \"17.0.2\" 2022-01-18' >&2; exit 0; fi\n"
                + "for a in \"$@\"; do printf '%s\\n' \"$a\"; done\n");
        assertThat(java.toFile().setExecutable(true)).isTrue();
        if (version.isPresent()) {
            Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\"" + version.get() + "\"\n");
        }
        return home;
    }

    private static Run run(Map<String, String> env, String... args)
            throws IOException, InterruptedException
    {
        List<String> command = new java.util.ArrayList<>(List.of(HOME.resolve("bin/cni-chain").toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        builder.environment().remove("CNI_CHAIN_JAVA_OPTS");
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), out);
    }

    private static Run run(String... args)
            throws IOException, InterruptedException
    {
        return run(Map.of(), args);
    }

    record Run(int code, String out) {}
}
