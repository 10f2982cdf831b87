package io.cnichain.agent.loop;

import io.cnichain.testkit.KubeletVolume;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A ConfigMap edited under a running agent: the kubelet swaps the volume's {@code ..data} and deletes the old files.
 * The agent keeps its start-up configuration, says once (log, {@code /readyz} detail, gauge) that a restart applies
 * the change, and goes on patching.
 */
@ExtendWith(TempNodeExtension.class)
class LoopConfigChangeTest
{
    private static final String GAUGE = ConfigFileNotice.METRIC_NAME;

    @Test
    void aDataSwapIsSaidOnceAndTheAgentKeepsPatching(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        KubeletVolume config = KubeletVolume.project(node.root().resolve("config"), Map.of("cni-chain.yaml", "logLevel: info\n"));
        try (RunningLoop loop = RunningLoop.start(node, config.file("cni-chain.yaml"))) {
            assertThat(loop.metrics()).contains(GAUGE + " 0");
            Path started = config.dataDirectory();

            config.update("cni-chain.yaml", "logLevel: debug\n");
            assertThat(started).as("the old payload, deleted by the kubelet").doesNotExist();
            loop.awaitLog("holds another configuration since this agent started; it keeps its start-up configuration until restarted");
            loop.await(() -> loop.metrics().contains(GAUGE + " 1"), loop::metrics);
            assertThat(loop.status.details()).anyMatch(detail -> detail.contains("a restart applies it"));

            // A second edit is not said again; the primary's rewrite is still repaired.
            config.update("cni-chain.yaml", "logLevel: warn\n");
            node.write("10-calico.conflist", TestNode.CALICO);
            loop.awaitPatched(file);
            assertThat(loop.count("since this agent started")).isEqualTo(1);
            assertThat(loop.status.ready()).isTrue();

            // Edited back: nothing is owed any more.
            config.update("cni-chain.yaml", "logLevel: info\n");
            loop.awaitLog("holds the start-up configuration again; no restart owed");
            assertThat(loop.metrics()).contains(GAUGE + " 0");
        }
    }

    @Test
    void aKeyRemovedFromTheConfigMapIsSaidAndNothingElseChanges(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        KubeletVolume config = KubeletVolume.project(node.root().resolve("config"), Map.of("cni-chain.yaml", "logLevel: info\n", "other", "x"));
        Path yaml = config.file("cni-chain.yaml");
        try (RunningLoop loop = RunningLoop.start(node, yaml)) {
            config.update(Map.of("other", "y"));
            assertThat(Files.exists(yaml)).isFalse();
            // Said as the check found it: before the kubelet removes the link (then through ..data) or after.
            loop.awaitLog(yaml + ": does not exist");
            assertThat(loop.count("since this agent started; it keeps its start-up configuration until restarted")).isEqualTo(1);
            node.write("10-calico.conflist", TestNode.CALICO);
            loop.awaitPatched(file);
        }
    }
}
