package io.cnichain.distribution;

import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ConfigLoader;
import org.junit.jupiter.api.Test;

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
        assertThat(shipped).usingRecursiveComparison().ignoringFields("configFile", "plugin.source", "adapters.choice.source").isEqualTo(defaults);
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
