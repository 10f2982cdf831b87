package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import io.cnichain.testkit.NeedsRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static io.cnichain.testkit.PluginList.plugins;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conf dir or the bin dir on a small tmpfs, filled up: the primary's configuration stays whole and loadable, one
 * clear error says why, readiness is false with the reason, and once space is freed (a resize of the tmpfs: no event on
 * any file) the agent succeeds by itself, on its retry timer.
 */
@NeedsRoot(commands = {"mount", "umount"})
@ExtendWith(TempNodeExtension.class)
class FaultDiskFullTest
{
    @Test
    void aFullConfDirKeepsTheOriginalNotReadyWithTheReasonAndThePatchFollowsOnceSpaceIsFreed(TestNode node)
            throws Exception
    {
        try (Cleanup cleanup = new Cleanup()) {
            cleanup.tmpfs(node.confDir(), "256k");
            Path file = node.write("10-calico.conflist", FaultKillStormTest.calico(0));
            Primary primary = cleanup.add(Primary.idle(file, FaultKillStormTest::calico));
            Observer observer = cleanup.add(Observer.start(node.confDir(), node.binDir().resolve("linkerd-cni"),
                    Observer.Rules.strict().primaryWritesInPlace(primary::inPlaceSequence)));
            AgentProcess agent = cleanup.add(AgentProcess.start(node, "--log-level", "debug"));
            awaitPatched(agent, file);
            Await.until(Duration.ofSeconds(10), () -> agent.get("/readyz").status() == 200, agent::log);

            long filled = fill(node.conf("filler.bin"));
            // Calico's way: in place, which needs no new space; our patch needs a temp file, which cannot be made.
            primary.writeNext(Primary.Mode.IN_PLACE);
            Await.until(Duration.ofSeconds(10), () -> agent.get("/readyz").body().contains("No space left on device"), agent::log);
            AgentProcess.Response ready = agent.get("/readyz");
            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.body()).contains("/etc/cni/net.d/10-calico.conflist: cannot be written: ").contains("No space left on device");
            assertThat(agent.get("/metrics").body()).contains("cnichain_ready 0");
            // A few tries on the back-off (0.25, 0.5, 1 s ...), each failing the same way.
            agent.awaitCount("Trying /etc/cni/net.d/10-calico.conflist again in 1000 ms", 1);
            assertThat(plugins(file)).as("the primary's file, whole and loadable").containsExactly("calico", "portmap");
            assertThat(Observer.generation(java.nio.file.Files.readAllBytes(file))).hasValue(1);
            assertThat(FaultKillStormTest.tempFiles(node.confDir())).isEmpty();
            List<String> errors = agent.log().lines().filter(line -> line.contains("No space left on device")).toList();
            assertThat(errors).isNotEmpty().allSatisfy(line -> assertThat(line)
                    .contains("WARN").contains("Not patching /etc/cni/net.d/10-calico.conflist: /etc/cni/net.d/10-calico.conflist: cannot be written: "));
            assertThat(agent.log()).doesNotContain("Exception").doesNotContain("\tat ");

            long freed = System.nanoTime();
            Cleanup.resize(node.confDir(), "1m");
            awaitPatched(agent, file);
            long recoveredMs = (System.nanoTime() - freed) / 1_000_000;
            Await.until(Duration.ofSeconds(10), () -> agent.get("/readyz").status() == 200, agent::log);
            observer.close();
            assertThat(observer.violations()).isEmpty();
            assertThat(recoveredMs).as("recovery comes from the retry timer, within its current delay").isLessThan(5_000);
            FaultSettings.report("disk full (conf dir)", filled + " bytes of filler; " + errors.size() + " refused tries, each one WARN line; patched "
                    + recoveredMs + " ms after space was freed (no event); " + observer.samples() + " samples, none broken");
        }
    }

    @Test
    void aFullBinDirKeepsEveryConfigurationFromNamingTheMissingBinaryUntilItFits(TestNode node)
            throws Exception
    {
        try (Cleanup cleanup = new Cleanup()) {
            cleanup.tmpfs(node.binDir(), "64k");
            long filled = fill(node.binDir().resolve("filler.bin"));
            Path file = node.write("10-calico.conflist", TestNode.CALICO);
            Observer observer = cleanup.add(Observer.start(node.confDir(), node.binDir().resolve("linkerd-cni"), Observer.Rules.strict()));
            AgentProcess agent = cleanup.add(AgentProcess.start(node, "--log-level", "debug"));
            Await.until(Duration.ofSeconds(10), () -> agent.get("/readyz").body().contains("No space left on device"), agent::log);
            AgentProcess.Response ready = agent.get("/readyz");
            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.body()).contains("/opt/cni/bin/linkerd-cni: cannot be written: ")
                    .contains("/opt/cni/bin/linkerd-cni: the linkerd-cni binary is not installed");
            agent.awaitCount("Trying our binaries and kubeconfig again in 500 ms", 1);
            Barrier.await(agent, node);
            assertThat(plugins(file)).as("no configuration may name a missing binary").containsExactly("calico", "portmap");
            assertThat(FaultKillStormTest.tempFiles(node.binDir())).isEmpty();

            long freed = System.nanoTime();
            Cleanup.resize(node.binDir(), "1m");
            awaitPatched(agent, file);
            long recoveredMs = (System.nanoTime() - freed) / 1_000_000;
            Await.until(Duration.ofSeconds(10), () -> agent.get("/readyz").status() == 200, agent::log);
            observer.close();
            assertThat(observer.violations()).isEmpty();
            FaultSettings.report("disk full (bin dir)", filled + " bytes of filler; binary installed and file patched " + recoveredMs
                    + " ms after space was freed (no event); " + observer.samples() + " samples, none broken");
        }
    }

    @Test
    void sigtermWhileTheDiskIsFullExitsOneInTimeAndLeavesOurWholeEntryWithItsBinary(TestNode node)
            throws Exception
    {
        try (Cleanup cleanup = new Cleanup()) {
            cleanup.tmpfs(node.confDir(), "256k");
            Path file = node.write("10-calico.conflist", TestNode.CALICO);
            AgentProcess agent = cleanup.add(AgentProcess.start(node, "--shutdown-timeout", "10", "--log-level", "debug"));
            awaitPatched(agent, file);
            // At rest first: the patch swaps the new file in and only then deletes the displaced one, whose page, freed
            // after the fill, would give uninstall the room it must not have (one run in a full CI).
            Barrier.await(agent, node);
            assertThat(FaultKillStormTest.tempFiles(node.confDir())).isEmpty();
            String patched = Files2.read(file);
            fill(node.conf("filler.bin"));

            long signalled = System.nanoTime();
            assertThat(agent.terminate(Duration.ofSeconds(15))).as(agent.log()).isEqualTo(1);
            long exitMs = (System.nanoTime() - signalled) / 1_000_000;
            assertThat(agent.log()).contains("Failed to remove linkerd-cni from /etc/cni/net.d/10-calico.conflist")
                    .contains("No space left on device")
                    .contains("keeping the kubeconfig and the binaries: [/etc/cni/net.d/10-calico.conflist] still name linkerd-cni")
                    .contains("Exiting with 2 cleanup failure(s)");
            assertThat(Files2.read(file)).as("our entry, whole: a file naming our plugin keeps its binary").isEqualTo(patched);
            assertThat(node.binDir().resolve("linkerd-cni")).exists();
            assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).exists();
            assertThat(FaultKillStormTest.tempFiles(node.confDir())).isEmpty();
            FaultSettings.report("SIGTERM, disk full", "exit 1 after " + exitMs + " ms, entry, binary and kubeconfig kept");
        }
    }

    /** Writes zeros into a new file until the filesystem is full; returns how many bytes it took. */
    static long fill(Path filler)
            throws IOException
    {
        long written = 0;
        try (FileChannel channel = FileChannel.open(filler, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer block = ByteBuffer.allocate(4096);
            while (true) {
                block.clear();
                written += channel.write(block);
            }
        }
        catch (IOException e) {
            if (!String.valueOf(e.getMessage()).contains("No space left on device")) {
                throw e;
            }
        }
        return written;
    }
}
