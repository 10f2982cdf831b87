package io.cnichain.distribution.runtime;

import io.cnichain.core.discovery.CniConfigParser;
import io.cnichain.core.discovery.LibcniGeneration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The parser, under libcni 1.1's rules, against containerd (libcni 1.1) on generated configurations
 * ({@link GeneratedConfigs}): each one alone in a conf dir, {@code ctr run --cni}. 150 cases a run (about a minute),
 * each made from its seed, which names the case and is in its failure; {@code -Dcnichain.seed=<seed>} with
 * {@code -Dit.test=ContainerdParserAgreementIT} runs that one case again.
 */
@RealRuntime
class ContainerdParserAgreementIT
{
    private static RuntimeNode node;
    private static int loads;
    private static int rejects;

    static LongStream theParserAgreesWithContainerd()
    {
        return GeneratedConfigs.seeds("theParserAgreesWithContainerd", 150);
    }

    @ParameterizedTest(name = "[{index}] seed {0}")
    @MethodSource
    void theParserAgreesWithContainerd(long seed, Sandbox sandbox)
            throws IOException
    {
        GeneratedConfigs.Config config = GeneratedConfigs.config(seed);
        if (node == null) {
            node = sandbox.node("agreement");
            node.useBridgeStub();
        }
        try (Stream<Path> files = Files.list(node.confDir())) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        byte[] bytes = config.text().getBytes(StandardCharsets.UTF_8);
        Files.write(node.confDir().resolve(config.name()), bytes);
        Commands.Result run = sandbox.containerd().run(node, "ip", "-4", "addr", "show", "lo");
        boolean containerd = ContainerdVerdictsIT.loaded(run);
        if (containerd) {
            loads++;
        }
        else {
            rejects++;
        }
        boolean ours;
        String why = "";
        try {
            CniConfigParser.parse(config.name(), bytes, LibcniGeneration.V1_1);
            ours = true;
        }
        catch (CniConfigParser.InvalidConfigException e) {
            ours = false;
            why = e.getMessage();
        }
        assertThat(ours).as("seed " + seed + ": " + config.name() + " " + config.text() + ": containerd " + (containerd ? "loads it" : "rejects it")
                + " (" + run.err().strip() + "); the parser (libcni 1.1 rules) " + (ours ? "loads it" : "rejects it: " + why)).isEqualTo(containerd);
    }

    // The agreement means something only when both verdicts come up often: the counts show how often each did.
    @AfterAll
    static void close()
    {
        if (node != null) {
            Steps.say("generated configurations: containerd loaded " + loads + ", rejected " + rejects);
            node.close();
        }
    }
}
