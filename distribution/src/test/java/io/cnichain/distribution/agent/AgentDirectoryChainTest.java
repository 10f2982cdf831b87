package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conf dir comes into being one level at a time while the agent, started through the launcher, is arming the
 * watch that waits for it: {@code etc}, {@code etc/cni}, {@code etc/cni/net.d} made a fraction of a millisecond apart,
 * then the primary's list. Every start must patch it. A watch armed on one level after the next level was made hears
 * nothing of it, so a fix that only looks at the wanted directory itself misses about one start in two at 0.5 ms.
 *
 * <p>{@code -Dchain.starts=N} sets the starts per pause (3 by default); the counts are printed either way.
 */
class AgentDirectoryChainTest
{
    private static final long[] PAUSES_MICROS = {0, 500, 1000, 2000, 5000};
    private static final Duration PATCH_WITHIN = Duration.ofSeconds(5);

    @Test
    void theConfDirMadeLevelByLevelWhileTheAgentArmsIsAlwaysPatched()
            throws IOException
    {
        int starts = Integer.getInteger("chain.starts", 3);
        Map<Long, Integer> missed = new LinkedHashMap<>();
        List<String> logs = new ArrayList<>();
        for (long pause : PAUSES_MICROS) {
            missed.put(pause, 0);
            for (int start = 0; start < starts; start++) {
                Path root = Files.createTempDirectory("cni-chain-chain-");
                try {
                    String log = startAndMakeTheChain(TestNode.create(root), pause);
                    if (!log.isEmpty()) {
                        missed.merge(pause, 1, Integer::sum);
                        logs.add(log);
                    }
                }
                finally {
                    deleteTree(root);
                }
            }
        }
        for (Map.Entry<Long, Integer> row : missed.entrySet()) {
            System.out.printf("directory chain: pause %.1f ms between levels: %d of %d starts missed the list%n", row.getKey() / 1000.0,
                    row.getValue(), starts);
        }
        assertThat(missed.values()).as("starts that never patched the list, by pause; their logs:\n%s", String.join("\n----\n", logs))
                .allMatch(count -> count == 0);
    }

    /** @return empty when the list was patched, else the agent's log */
    private static String startAndMakeTheChain(TestNode node, long pauseMicros)
            throws IOException
    {
        deleteTree(node.host("/etc"));
        try (AgentProcess agent = AgentProcess.launch(node, List.of(), List.of())) {
            agent.awaitLog(node.confDir() + " does not exist yet; watching for it", Duration.ofSeconds(20));
            Path level = node.hostRoot();
            for (String name : List.of("etc", "cni", "net.d")) {
                level = Files.createDirectory(level.resolve(name));
                Await.pauseMicros(pauseMicros);
            }
            Path file = node.write("10-calico.conflist", TestNode.CALICO);
            boolean patched = Await.within(PATCH_WITHIN, () -> PluginList.patched(file));
            assertThat(agent.terminate(Duration.ofSeconds(20))).as(agent.log()).isZero();
            return patched ? "" : agent.log();
        }
    }

    private static void deleteTree(Path directory)
            throws IOException
    {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(directory)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
