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
 * A write the filesystem refuses (here an immutable directory or file, {@code chattr +i}) is tried again on its own
 * back-off, each try once it is due, and succeeds once it is writable again, which sends no event at all.
 */
@NeedsRoot(commands = "chattr")
@ExtendWith(TempNodeExtension.class)
class LoopRefusedWriteTest
{
    /** {@link RunningLoop#FAST}, with refused writes tried again after 10, 20, then every 40 ms. */
    static final AgentPolicy POLICY = new AgentPolicy(RunningLoop.FAST.notParsed(), RunningLoop.backoff(10, 40, 0, 0), RunningLoop.FAST.fights(),
            RunningLoop.FAST.stuckAfter());

    @Test
    void aRefusedPatchIsTriedAgainOnTheBackOffAndSucceedsOnceTheDirectoryIsWritableWithoutAnyEvent(TestNode node)
            throws Exception
    {
        // The runtime's file behind a link, in a directory of its own: the conf dir stays writable for the barrier.
        Path directory = node.host("/etc/cni/oci");
        Path file = node.writeAt(directory.resolve("10-oci.conflist-current"), TestNode.OCI);
        node.link("10-oci.conflist", "../oci/10-oci.conflist-current");
        try (RunningLoop loop = RunningLoop.start(node, POLICY, new LoopTestAdapter())) {
            loop.awaitPatched(file);
            loop.awaitReady();
            try {
                NeedsRootExtension.run("chattr", "+i", directory.toString());
                // The primary rewrites its file in place (allowed: the file itself is not immutable); our temp file cannot be made.
                node.rewriteInPlaceAt(file, TestNode.OCI);
                triedOnTheBackOff(loop, "/etc/cni/oci/10-oci.conflist-current");
                assertThat(loop.lines("Trying /etc/cni/oci/10-oci.conflist-current again")).containsExactly(
                        "DEBUG Trying /etc/cni/oci/10-oci.conflist-current again in 10 ms (try 1 after a refused write)",
                        "DEBUG Trying /etc/cni/oci/10-oci.conflist-current again in 20 ms (try 2 after a refused write)",
                        "DEBUG Trying /etc/cni/oci/10-oci.conflist-current again in 40 ms (try 3 after a refused write)",
                        "DEBUG Trying /etc/cni/oci/10-oci.conflist-current again in 40 ms (try 4 after a refused write)");
                assertThat(loop.lines("WARN Not patching /etc/cni/net.d/10-oci.conflist")).first().asString()
                        .contains("cannot be written").contains("Operation not permitted");
                assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason)
                        .startsWith("/etc/cni/oci/10-oci.conflist-current: cannot be written: ").contains("Operation not permitted"));
                assertThat(loop.metrics()).contains("cnichain_ready 0");
                assertThat(PluginList.plugins(file)).containsExactly("oci-ipvlan", "oci-ptp");
                assertThat(tempFiles(directory)).isEmpty();

                // The primary's next rewrite is tried at once, but the back-off goes on: a primary that writes often
                // must not keep our refused writes at the first step, not even when a pass catches its file mid-write.
                long caughtEmpty = loop.count("10-oci.conflist-current: is empty; not patched");
                Files.write(file, new byte[0]);
                loop.barrier();
                assertThat(loop.count("10-oci.conflist-current: is empty; not patched")).as("the pass saw the file mid-write").isEqualTo(caughtEmpty + 1);
                node.rewriteInPlaceAt(file, TestNode.OCI);
                loop.barrier();
                loop.advance(Duration.ofMillis(1));
                loop.awaitLog("Trying /etc/cni/oci/10-oci.conflist-current again in 40 ms (try 5 after a refused write)");
                assertThat(loop.count("(try 1 after a refused write)")).isEqualTo(1);
            }
            finally {
                NeedsRootExtension.run("chattr", "-i", directory.toString());
            }
            // No event tells the loop: its own timer does.
            loop.advance(Duration.ofMillis(40));
            loop.awaitPatched(file);
            loop.awaitReady();
            loop.barrier();
            long tries = loop.count("Trying /etc/cni/oci/10-oci.conflist-current again");
            loop.advance(Duration.ofMinutes(1));
            loop.barrier();
            assertThat(loop.count("Trying /etc/cni/oci/10-oci.conflist-current again")).as("no more tries once it succeeded").isEqualTo(tries);
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
                triedOnTheBackOff(loop, "our binaries and kubeconfig");
                assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason).startsWith("/opt/cni/bin: "))
                        .anySatisfy(reason -> assertThat(reason).contains("the linkerd-cni binary is not installed"));
                assertThat(PluginList.plugins(file)).as("no configuration may name a missing binary").containsExactly("calico", "portmap");
                assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
            }
            finally {
                NeedsRootExtension.run("chattr", "-i", node.binDir().toString());
            }
            loop.advance(Duration.ofMillis(40));
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
                triedOnTheBackOff(loop, "/etc/cni/net.d/10-bridge.conf");
                loop.barrier();
                // One conversion per try (the first, then after 10, 20, 40 and 40 ms), not one per echo of the list we wrote.
                assertThat(loop.count("Renaming /etc/cni/net.d/10-bridge.conf extension to .conflist")).isEqualTo(5);
                assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason)
                        .startsWith("/etc/cni/net.d/10-bridge.conf: cannot be deleted: ").contains("Operation not permitted"));
                assertThat(conf).exists();
                assertThat(PluginList.patched(conflist)).isTrue();
            }
            finally {
                NeedsRootExtension.run("chattr", "-i", conf.toString());
            }
            loop.advance(Duration.ofMillis(40));
            loop.await(() -> !Files.exists(conf), () -> conf + " is still there");
            loop.awaitPatched(conflist);
            loop.awaitReady();
        }
    }

    /**
     * A file whose write was refused stops being the runtime's (the link now leads to another): its retry, due, is no
     * reason to wake again and again; the loop rests between two barriers as it does on any idle node.
     */
    @Test
    void aRefusedFileThatIsNoLongerTheRuntimesLeavesNoRetryBehind(TestNode node)
            throws Exception
    {
        Path directory = node.host("/etc/cni/oci");
        Path file = node.writeAt(directory.resolve("10-oci.conflist-current"), TestNode.OCI);
        Path other = node.writeAt(node.host("/etc/cni/oci-next").resolve("10-oci.conflist-current"), TestNode.OCI);
        node.link("10-oci.conflist", "../oci/10-oci.conflist-current");
        try (RunningLoop loop = RunningLoop.start(node, POLICY, new LoopTestAdapter())) {
            loop.awaitPatched(file);
            try {
                NeedsRootExtension.run("chattr", "+i", directory.toString());
                node.rewriteInPlaceAt(file, TestNode.OCI);
                loop.awaitLog("Trying /etc/cni/oci/10-oci.conflist-current again in 10 ms (try 1 after a refused write)");
                node.relink("10-oci.conflist", "../oci-next/10-oci.conflist-current");
                loop.awaitPatched(other);
                loop.advance(Duration.ofMillis(10));
                loop.barrier();
                long before = loop.status.wakeUpsStarted();
                for (int i = 0; i < 20; i++) {
                    loop.barrier();
                }
                // A barrier's file is created and deleted: two events, one or two wake-ups. Left behind, the due retry made 157.
                assertThat(loop.status.wakeUpsStarted() - before).as("wake-ups over 20 barriers").isLessThanOrEqualTo(40);
            }
            finally {
                NeedsRootExtension.run("chattr", "-i", directory.toString());
            }
        }
    }

    /** The first try, then one at each due time of the back-off (10, 20, 40, 40 ms), nothing a millisecond before. */
    private static void triedOnTheBackOff(RunningLoop loop, String what)
    {
        long[] delays = {10, 20, 40, 40};
        for (int attempt = 1; attempt <= delays.length; attempt++) {
            loop.awaitLog("Trying " + what + " again in " + delays[attempt - 1] + " ms (try " + attempt + " after a refused write)");
            loop.advance(Duration.ofMillis(delays[attempt - 1] - 1));
            loop.barrier();
            assertThat(loop.count("Trying " + what + " again")).as("tries before try %d is due", attempt + 1).isEqualTo(attempt);
            if (attempt < delays.length) {
                loop.advance(Duration.ofMillis(1));
            }
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
