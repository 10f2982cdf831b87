package io.cnichain.distribution.runtime;

import io.cnichain.core.discovery.CniConfigParser;
import io.cnichain.core.discovery.LibcniGeneration;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.opentest4j.TestAbortedException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The parser, under libcni 1.1's rules, against containerd (libcni 1.1) on generated configurations
 * ({@link GeneratedConfigs}): each one alone in a conf dir, {@code ctr run --cni}. A jqwik property, bounded to 150
 * tries a run (about a minute); jqwik prints the seed, and {@code @Property(seed = "...")} replays it. As jqwik does
 * not run JUnit extensions, it makes its own sandbox, with the same rule: without root and the packages it is skipped
 * with the reason, and with {@code CI=true} it fails.
 */
class ContainerdParserAgreementIT
{
    private static Sandbox sandbox;
    private static RuntimeNode node;

    @BeforeContainer
    static void start()
            throws IOException
    {
        List<String> missing = RuntimeRequirements.missing();
        if (!missing.isEmpty()) {
            String what = "the real-runtime suite needs " + String.join("; ", missing);
            if (RuntimeRequirements.inCi()) {
                throw new IllegalStateException("CI=true, so this is a failure, not a skip: " + what);
            }
            Steps.say("SKIPPING ContainerdParserAgreementIT: " + what);
            throw new TestAbortedException(what);
        }
        sandbox = Sandbox.create();
        node = sandbox.node("agreement");
        node.useBridgeStub();
    }

    @AfterContainer
    static void stop()
    {
        if (sandbox != null) {
            sandbox.close();
        }
    }

    // Random cases only: the combinations' edge cases alone outnumber the tries.
    @Property(tries = 150, shrinking = ShrinkingMode.BOUNDED, edgeCases = EdgeCasesMode.NONE)
    void theParserAgreesWithContainerd(@ForAll("configs") GeneratedConfigs.Config config)
            throws IOException
    {
        try (Stream<Path> files = Files.list(node.confDir())) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        byte[] bytes = config.text().getBytes(StandardCharsets.UTF_8);
        Files.write(node.confDir().resolve(config.name()), bytes);
        Commands.Result run = sandbox.containerd().run(node, "ip", "-4", "addr", "show", "lo");
        boolean containerd = ContainerdVerdictsIT.loaded(run);
        Statistics.collect(containerd ? "containerd loads it" : "containerd rejects it");
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
        assertThat(ours).as(config.name() + " " + config.text() + ": containerd " + (containerd ? "loads it" : "rejects it") + " (" + run.err().strip() + ")"
                + "; the parser (libcni 1.1 rules) " + (ours ? "loads it" : "rejects it: " + why)).isEqualTo(containerd);
    }

    @Provide
    Arbitrary<GeneratedConfigs.Config> configs()
    {
        return GeneratedConfigs.configs();
    }
}
