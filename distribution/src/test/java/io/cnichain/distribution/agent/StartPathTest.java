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
 * The start-up path links no lambda or method reference of ours. On Java 17 the first call through each one links it (a
 * class-data archive keeps the generated class, not the linking), at a cost of 0.1 to 0.5 ms; about 160 of them were a
 * fifth of the agent's start-up. So the code that runs from {@code main} to the first patched file (configuration, every
 * built-in adapter's detection, the first pass) uses loops and named classes. The agent runs through the launcher with the
 * JVM's class-loading log in its output; every lambda class of ours loaded before the line that reports the patch fails
 * the test.
 */
@ExtendWith(TempNodeExtension.class)
class StartPathTest
{
    @Test
    void linksNoLambdaOfOursBeforeTheFirstPatchedFile(TestNode node)
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        // Something for each adapter's detection to look at beyond the primary: a Cilium backup, an OCI-named file.
        node.write("05-cilium.conflist.cilium_bak", TestNode.CALICO);
        node.write("11-other.conflist-current", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.launch(node, List.of(), List.of(), Map.of("CNI_CHAIN_JAVA_OPTS", "-Xlog:class+load=info:stdout"))) {
            agent.awaitLog("Created CNI config /etc/cni/net.d/10-calico.conflist", Duration.ofSeconds(20));
            String log = agent.log();
            List<String> lambdas = new ArrayList<>();
            for (String line : log.lines().toList()) {
                if (line.contains("Created CNI config")) {
                    break;
                }
                if (line.contains(" io.cnichain.") && line.contains("$$Lambda$")) {
                    lambdas.add(line.strip());
                }
            }
            assertThat(log).as("the class-loading log is in the agent's output").contains("io.cnichain.cli.CniChainCli source:");
            assertThat(lambdas).as("lambdas and method references of ours linked before the first patched file; "
                    + "write these as loops or named classes").isEmpty();
        }
    }
}
