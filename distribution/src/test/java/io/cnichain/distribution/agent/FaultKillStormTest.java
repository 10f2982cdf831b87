package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;
import java.util.stream.Stream;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static io.cnichain.testkit.PluginList.plugins;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * kill -9 at random moments while a primary rewrites its file 20 times a second, then a restart, again and again: a
 * runtime looking at any moment never finds a configuration that would not load, nor a conversion with neither its
 * {@code .conf} nor its {@code .conflist}; after the last restart there is exactly one entry of ours and no temp file.
 */
@Tag("reliability")
@ExtendWith(TempNodeExtension.class)
class FaultKillStormTest
{
    static final long MIN_SAMPLES = 500;

    @Test
    void kill9DuringARenameStormNeverLeavesAnInvalidEmptyOrPartialConfiguration(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", calico(0));
        storm(node, file, file, FaultKillStormTest::calico, Observer.Rules.strict(), FaultSettings.kills(), "rename storm");
    }

    @Test
    void kill9DuringTheConversionOfAConfThatKeepsComingBackNeverLeavesNeitherFile(TestNode node)
            throws Exception
    {
        Path conf = node.write("10-bridge.conf", bridge(0));
        storm(node, conf, node.conf("10-bridge.conflist"), FaultKillStormTest::bridge, Observer.Rules.strict().converting("10-bridge"),
                Math.max(1, FaultSettings.kills() / 4), "conversion storm");
    }

    /**
     * One kill in three at a random moment of start-up (binaries, kubeconfig, first pass); the others the moment a temp
     * file of ours appears (between its creation and the rename), a random few hundred microseconds later.
     */
    private static void storm(TestNode node, Path file, Path patched, LongFunction<String> content, Observer.Rules rules, int kills, String name)
            throws Exception
    {
        long seed = FaultSettings.seed();
        Random random = new Random(seed);
        int midWrite = 0;
        long started = System.nanoTime();
        try (Cleanup cleanup = new Cleanup(); WatchService watcher = FileSystems.getDefault().newWatchService()) {
            node.confDir().register(watcher, StandardWatchEventKinds.ENTRY_CREATE);
            node.binDir().register(watcher, StandardWatchEventKinds.ENTRY_CREATE);
            Primary primary = cleanup.add(Primary.start(file, content, Primary.Mode.RENAME, 50, 50, seed));
            Observer observer = cleanup.add(Observer.start(node.confDir(), node.binDir().resolve("linkerd-cni"), rules));
            // At least the kills asked for, and for as long as the observer needs to take 500 samples (a second or so): a
            // faster agent dies sooner after each start, and a storm over before it was watched proves nothing. And until
            // one kill caught a write in progress (a few in ten do), up to ten times the kills asked for: the storm is
            // about those, and five kills can miss them all.
            int done;
            for (done = 0; done < kills || observer.samples() <= MIN_SAMPLES || midWrite == 0 && done < 10 * kills; done++) {
                drain(watcher);
                AgentProcess agent = cleanup.add(AgentProcess.launch(node, List.of(), List.of()));
                if (done % 3 == 0) {
                    Files2.pause(random.nextInt(1000));
                }
                else {
                    awaitOurTempFile(watcher, agent);
                    LockSupport.parkNanos(random.nextInt(500_000));
                }
                agent.kill();
                if (!tempFiles(node.confDir()).isEmpty() || !tempFiles(node.binDir()).isEmpty()) {
                    midWrite++;
                }
            }
            AgentProcess last = cleanup.add(AgentProcess.start(node, "--log-level", "debug"));
            awaitPatched(last, patched);
            primary.close();
            // The storm is over: the agent patches the primary's last version, then rests.
            awaitPatched(last, patched);
            Barrier.await(last, node);
            observer.close();

            assertThat(observer.violations()).as("seed " + seed).isEmpty();
            assertThat(plugins(patched)).filteredOn("linkerd-cni"::equals).hasSize(1);
            assertThat(plugins(patched)).last().isEqualTo("linkerd-cni");
            assertThat(tempFiles(node.confDir())).as("temp files of ours in the conf dir").isEmpty();
            assertThat(tempFiles(node.binDir())).as("temp files of ours in the bin dir").isEmpty();
            if (!file.equals(patched)) {
                assertThat(file).as("the .conf, converted").doesNotExist();
            }
            FaultSettings.report(name, done + " kills survived (seed " + seed + "), " + midWrite + " of them left a temp file of ours behind (killed"
                    + " mid-write); " + primary.writes() + " primary writes; " + observer.samples() + " samples, none broken; "
                    + (System.nanoTime() - started) / 1_000_000 + " ms");
            assertThat(midWrite).as("kills that caught a write in progress").isPositive();
            assertThat(last.terminate(Duration.ofSeconds(25))).as(last.log()).isZero();
        }
    }

    private static void drain(WatchService watcher)
    {
        for (WatchKey key = watcher.poll(); key != null; key = watcher.poll()) {
            key.pollEvents();
            key.reset();
        }
    }

    /**
     * Returns as soon as the agent creates a temp file in the conf dir or the bin dir: the watch is waited on, so that
     * the kill that follows lands while the write is in progress, not a pause later.
     */
    private static void awaitOurTempFile(WatchService watcher, AgentProcess agent)
    {
        Await.until(Duration.ofSeconds(30), () -> {
            WatchKey key;
            try {
                key = watcher.poll(100, TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            if (key == null) {
                return false;
            }
            boolean ours = key.pollEvents().stream().anyMatch(event -> event.context() != null
                    && event.context().toString().startsWith(AtomicFileWriter.TEMP_PREFIX));
            key.reset();
            return ours;
        }, () -> "the agent never wrote anything; its log:\n" + agent.log());
    }

    static List<Path> tempFiles(Path dir)
            throws IOException
    {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> AtomicFileWriter.isTempName(p.getFileName().toString())).toList();
        }
    }

    static String calico(long gen)
    {
        return "{\"name\":\"k8s-pod-network\",\"cniVersion\":\"1.0.0\",\"gen\":" + gen + ",\"plugins\":[{\"type\":\"calico\",\"datastore_type\":\"kubernetes\","
                + "\"ipam\":{\"type\":\"calico-ipam\"}},{\"type\":\"portmap\",\"snat\":true,\"capabilities\":{\"portMappings\":true}}]}";
    }

    static String bridge(long gen)
    {
        return "{\"cniVersion\":\"0.4.0\",\"name\":\"bridge-net\",\"type\":\"bridge\",\"gen\":" + gen + ",\"bridge\":\"cni0\","
                + "\"ipam\":{\"type\":\"host-local\",\"subnet\":\"10.22.0.0/16\"}}";
    }
}
