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

    @Test
    void nativeHeapTrimmingIsAskedOnlyOfRuntimesThatKnowTheOption(@TempDir Path temp)
            throws Exception
    {
        Map<String, Boolean> trims = new java.util.LinkedHashMap<>();
        for (String version : List.of("17", "17.0.10", "17.0.11", "17.0.15", "17.0.11.1", "21.0.2", "21.0.3", "25", "25.0.3", "1.8.0_292")) {
            Path runtime = Files.createDirectories(temp.resolve(version).resolve("bin"));
            Path java = runtime.resolve("java");
            Files.writeString(java, "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n");
            assertThat(java.toFile().setExecutable(true)).isTrue();
            Files.writeString(runtime.getParent().resolve("release"), "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\"" + version + "\"\n");
            ProcessBuilder builder = new ProcessBuilder(HOME.resolve("bin/cni-chain").toString(), "--version").redirectErrorStream(true);
            builder.environment().put("JAVA_HOME", runtime.getParent().toString());
            builder.environment().remove("CNI_CHAIN_JAVA_OPTS");
            Process process = builder.start();
            List<String> options = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(options).as(version).contains("-XX:+UseSerialGC", "-Xms4m");
            trims.put(version, options.contains("-XX:TrimNativeHeapInterval=30000"));
        }
        assertThat(trims).containsExactly(Map.entry("17", false), Map.entry("17.0.10", false), Map.entry("17.0.11", true), Map.entry("17.0.15", true),
                Map.entry("17.0.11.1", true), Map.entry("21.0.2", false), Map.entry("21.0.3", true), Map.entry("25", true), Map.entry("25.0.3", true),
                Map.entry("1.8.0_292", false));
    }

    private static Run run(String... args)
            throws IOException, InterruptedException
    {
        List<String> command = new java.util.ArrayList<>(List.of(HOME.resolve("bin/cni-chain").toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), out);
    }

    record Run(int code, String out) {}
}
