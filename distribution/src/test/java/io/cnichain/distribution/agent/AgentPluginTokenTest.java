package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chart's agent, whose kubeconfig holds the plugin's own token: until the token it requests is there, the binary
 * is installed, nothing is patched, and the log says at INFO that it waits, not at ERROR that something failed. The
 * API server here refuses every connection; the test writes the token where the agent's request would, and the agent,
 * watching that directory, patches at once.
 */
@ExtendWith(TempNodeExtension.class)
class AgentPluginTokenTest
{
    @Test
    void waitingForThePluginsTokenInstallsTheBinarySaysSoOnceAndPatchesWhenItComes(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        Path tmp = Files.createDirectories(node.root().resolve("pod-tmp"));
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        Map<String, String> env = Map.of("CNI_CHAIN_PLUGIN_SERVICE_ACCOUNT", "cni-chain-plugin", "POD_NAME", "cni-chain-abcde", "POD_NAMESPACE", "cni-chain",
                "NODE_NAME", "node-1", "KUBERNETES_SERVICE_HOST", "127.0.0.1", "KUBERNETES_SERVICE_PORT", Integer.toString(closedPort),
                "CNI_CHAIN_JAVA_OPTS", "-Djava.io.tmpdir=" + tmp);
        Path kubeconfig = node.conf("ZZZ-linkerd-cni-kubeconfig");
        try (AgentProcess agent = AgentProcess.launch(node, List.of(), List.of(), env)) {
            agent.awaitLog("Not patching yet: waiting for the plugin's token, which the agent requests for service account cni-chain-plugin",
                    Duration.ofSeconds(20));
            Await.until(Duration.ofSeconds(10), () -> Files.exists(node.binDir().resolve("linkerd-cni")), agent::log);
            assertThat(PluginList.plugins(file)).doesNotContain("linkerd-cni");
            assertThat(kubeconfig).doesNotExist();
            assertThat(agent.get("/readyz").status()).isEqualTo(503);
            assertThat(agent.get("/readyz").body()).contains("waiting for the plugin's token");

            Path token = tmp.resolve("cni-chain-plugin-token/token");
            Path partial = Files.writeString(token.resolveSibling(".token.tmp"), "plugin-token-1");
            Files.move(partial, token, StandardCopyOption.ATOMIC_MOVE);
            awaitPatched(agent, file);
            assertThat(Files2.read(kubeconfig)).contains("token: plugin-token-1");

            assertThat(agent.log().lines().filter(line -> line.contains(" ERROR "))).as("waiting for our own token is no error").isEmpty();
            assertThat(agent.count("Not patching yet")).as("said once").isEqualTo(1);
            assertThat(agent.terminate(Duration.ofSeconds(25))).as(agent.log()).isZero();
        }
    }
}
