package io.cnichain.agent.loop;

import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.NeedsRoot;
import io.cnichain.testkit.NeedsRootExtension;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A write the filesystem refuses (here an immutable directory, {@code chattr +i}: no file may be created in it) is
 * tried again on its own back-off, and succeeds once the directory is writable again, which sends no event at all.
 */
@NeedsRoot(commands = "chattr")
@ExtendWith(TempNodeExtension.class)
class LoopRefusedWriteTest
{
    /** {@link RunningLoop#FAST}, with refused writes tried again after 10, 20, then every 40 ms. */
    static final AgentPolicy POLICY = new AgentPolicy(RunningLoop.FAST.retryDelays(), RunningLoop.FAST.fights(), RunningLoop.FAST.stuckAfter(),
            List.of(Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(40)));

    @Test
    void aRefusedPatchIsTriedAgainOnTheBackOffAndSucceedsOnceTheDirectoryIsWritableWithoutAnyEvent(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node, POLICY, new LoopTestAdapter())) {
            loop.awaitPatched(file);
            loop.awaitReady();
            try {
                NeedsRootExtension.run("chattr", "+i", node.confDir().toString());
                // The primary rewrites its file in place (allowed: the file itself is not immutable); our temp file cannot be made.
                node.rewriteInPlace("10-calico.conflist", TestNode.CALICO);
                loop.awaitCount("Trying /etc/cni/net.d/10-calico.conflist again in 40 ms", 2);
                assertThat(loop.lines("Trying /etc/cni/net.d/10-calico.conflist again")).startsWith(
                        "DEBUG Trying /etc/cni/net.d/10-calico.conflist again in 10 ms (try 1 after a refused write)",
                        "DEBUG Trying /etc/cni/net.d/10-calico.conflist again in 20 ms (try 2 after a refused write)",
                        "DEBUG Trying /etc/cni/net.d/10-calico.conflist again in 40 ms (try 3 after a refused write)",
                        "DEBUG Trying /etc/cni/net.d/10-calico.conflist again in 40 ms (try 4 after a refused write)");
                assertThat(loop.lines("WARN Not patching /etc/cni/net.d/10-calico.conflist")).first().asString()
                        .contains("cannot be written").contains("Operation not permitted");
                assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason)
                        .startsWith("/etc/cni/net.d/10-calico.conflist: cannot be written: ").contains("Operation not permitted"));
                assertThat(loop.metrics()).contains("cnichain_ready 0");
                assertThat(PluginList.plugins(file)).containsExactly("calico", "portmap");
                assertThat(tempFiles(node.confDir())).isEmpty();
            }
            finally {
                NeedsRootExtension.run("chattr", "-i", node.confDir().toString());
            }
            // No event tells the loop: its own timer does.
            loop.awaitPatched(file);
            loop.awaitReady();
            loop.barrier();
            long tries = loop.count("Trying /etc/cni/net.d/10-calico.conflist again");
            loop.barrier();
            assertThat(loop.count("Trying /etc/cni/net.d/10-calico.conflist again")).as("no more tries once it succeeded").isEqualTo(tries);
        }
    }

    @Test
    void aBinaryThatCannotBeInstalledKeepsEveryConfigurationFromNamingItUntilItIs(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        NeedsRootExtension.run("chattr", "+i", node.binDir().toString());
        try (RunningLoop loop = RunningLoop.start(node, POLICY, new LoopTestAdapter())) {
            try {
                loop.awaitCount("Trying our binaries and kubeconfig again in 40 ms", 2);
                assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason).startsWith("/opt/cni/bin: "))
                        .anySatisfy(reason -> assertThat(reason).contains("the linkerd-cni binary is not installed"));
                assertThat(PluginList.plugins(file)).as("no configuration may name a missing binary").containsExactly("calico", "portmap");
                assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
            }
            finally {
                NeedsRootExtension.run("chattr", "-i", node.binDir().toString());
            }
            loop.awaitPatched(file);
            loop.awaitReady();
            assertThat(node.binDir().resolve("linkerd-cni")).exists();
        }
    }

    @Test
    void aConfThatCannotBeDeletedIsTriedOnTheBackOffNotOnEveryEchoOfTheListWeWrote(TestNode node)
            throws Exception
    {
        Path conf = node.write("10-bridge.conf", "{\"cniVersion\":\"0.4.0\",\"name\":\"bridge-net\",\"type\":\"bridge\"}");
        Path conflist = node.conf("10-bridge.conflist");
        NeedsRootExtension.run("chattr", "+i", conf.toString());
        try (RunningLoop loop = RunningLoop.start(node, POLICY, new LoopTestAdapter())) {
            try {
                loop.awaitCount("Trying /etc/cni/net.d/10-bridge.conf again in 40 ms", 2);
                loop.barrier();
                // One conversion per try (the first, then after 10, 20 and 40 ms, and perhaps one more meanwhile), not one per
                // echo of the list we wrote: that spun, a write every few milliseconds, for as long as the .conf stayed.
                assertThat(loop.count("Renaming /etc/cni/net.d/10-bridge.conf extension to .conflist")).isBetween(4L, 6L);
                assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason)
                        .startsWith("/etc/cni/net.d/10-bridge.conf: cannot be deleted: ").contains("Operation not permitted"));
                assertThat(conf).exists();
                assertThat(PluginList.patched(conflist)).isTrue();
            }
            finally {
                NeedsRootExtension.run("chattr", "-i", conf.toString());
            }
            loop.await(() -> !Files.exists(conf), () -> conf + " is still there");
            loop.awaitPatched(conflist);
            loop.awaitReady();
        }
    }

    private static List<Path> tempFiles(Path dir)
            throws IOException
    {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList();
        }
    }
}
