package io.cnichain.distribution.agent;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up path comes from the archive the build trained (an AOT cache on Java 25: classes loaded and linked,
 * lambdas and string concatenations included), which is what lets the code from {@code main} to the first patch be
 * written as it reads best. The agent runs through the launcher, as a node runs it, with the JVM's class-loading log in
 * its output: our classes loaded before the line that reports the patch must come from the archive, not from the jars.
 */
@ExtendWith(TempNodeExtension.class)
class StartPathTest
{
    @Test
    void ourClassesOnTheWayToTheFirstPatchComeFromTheTrainedArchive(TestNode node)
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        // Something for each adapter's detection to look at beyond the primary: a Cilium backup, an OCI-named file.
        node.write("05-cilium.conflist.cilium_bak", TestNode.CALICO);
        node.write("11-other.conflist-current", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.launch(node, List.of(), List.of(), Map.of("CNI_CHAIN_JAVA_OPTS", "-Xlog:class+load=info:stdout"))) {
            agent.awaitLog("Created CNI config /etc/cni/net.d/10-calico.conflist", Duration.ofSeconds(20));
            String log = agent.log();
            List<String> fromArchive = new ArrayList<>();
            List<String> fromJars = new ArrayList<>();
            for (String line : log.lines().toList()) {
                if (line.contains("Created CNI config")) {
                    break;
                }
                if (!line.contains(" io.cnichain.") || line.contains("$$Lambda") || line.contains("LambdaForm")) {
                    continue;
                }
                (line.contains("source: shared objects file") ? fromArchive : fromJars).add(line.strip());
            }
            assertThat(log).as("the class-loading log is in the agent's output").contains("io.cnichain.cli.CniChainCli source:");
            assertThat(fromArchive).as("our classes from the archive").isNotEmpty();
            // A few may load from the jars where this node differs from the training run's; most must not.
            assertThat(fromJars.size()).as("our classes loaded from the jars before the first patch, of " + (fromArchive.size() + fromJars.size())
                    + ": " + fromJars).isLessThanOrEqualTo((fromArchive.size() + fromJars.size()) / 10);
        }
    }

    /**
     * Java 25's {@code BigDecimal} computes 5^65536 in its static initializer: about 20 ms of an interpreted start, on
     * the main thread (Jackson's first parser is enough to trigger it). Nothing on the way to the first patch, nor in
     * the reactions after it, may initialize the class.
     */
    @Test
    void noBigDecimalOnTheWayToTheFirstPatchNorInAReaction(TestNode node)
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.launch(node, List.of(), List.of(), Map.of("CNI_CHAIN_JAVA_OPTS", "-Xlog:class+init=info:stdout"))) {
            agent.awaitLog("Created CNI config /etc/cni/net.d/10-calico.conflist", Duration.ofSeconds(20));
            // A primary's rewrite: the reaction, its log line included.
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            agent.awaitLog("Put our entry back in /etc/cni/net.d/10-calico.conflist", Duration.ofSeconds(10));
            String log = agent.log();
            assertThat(log).as("the class-initialization log is in the agent's output").contains("Initializing 'io/cnichain/cli/CniChainCli'");
            assertThat(log.lines().filter(line -> line.contains("Initializing 'java/math/BigDecimal'")).toList()).isEmpty();
        }
    }

    /**
     * The configuration file is read by snakeyaml's loader alone, not through its {@code Yaml} facade, which also builds
     * a dumper the agent never uses (representers, property introspection, {@code java.beans}). The AOT cache loads
     * every class it holds at every start, so the class-loading log of a run with the file, as every manifest runs the
     * agent, must name none of them: neither from the cache nor from the jars.
     */
    @Test
    void theConfigurationFileIsReadWithoutSnakeYamlsDumper(TestNode node)
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        List<String> config = List.of("--config", AgentProcess.HOME.resolve("conf/cni-chain.yaml").toString());
        try (AgentProcess agent = AgentProcess.launch(node, List.of(), config, Map.of("CNI_CHAIN_JAVA_OPTS", "-Xlog:class+load=info:stdout"))) {
            agent.awaitLog("Created CNI config /etc/cni/net.d/10-calico.conflist", Duration.ofSeconds(20));
            String log = agent.log();
            assertThat(log).as("the configuration file was parsed").contains("org.yaml.snakeyaml.composer.Composer source:");
            assertThat(log.lines().filter(line -> line.contains(" org.yaml.snakeyaml.representer.") || line.contains(" java.beans.")).toList())
                    .as("the dumper's classes").isEmpty();
        }
    }
}
