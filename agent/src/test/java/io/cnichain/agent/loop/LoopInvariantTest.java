package io.cnichain.agent.loop;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;

import static io.cnichain.testkit.PluginList.patched;
import static org.assertj.core.api.Assertions.assertThat;

/** Readiness says the runtime's file carries our entry only when it does. */
@ExtendWith(TempNodeExtension.class)
class LoopInvariantTest
{
    @Test
    void theRuntimesFileOutOfTheAllowedRootsKeepsTheAgentNotReadyWithTheReason(TestNode node)
            throws Exception
    {
        Path outside = node.writeAt(node.host("/etc/passwd"), TestNode.CALICO);
        String before = node.readAt(outside);
        node.link("04-out.conflist", "/etc/passwd");
        Path calico = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason)
                    .startsWith("the runtime loads /etc/cni/net.d/04-out.conflist, which cannot be patched: ").contains("outside the allowed roots"));
            assertThat(loop.metrics()).contains("cnichain_ready 0");
            assertThat(node.readAt(outside)).isEqualTo(before);
            assertThat(loop.count("ERROR the runtime loads /etc/cni/net.d/04-out.conflist")).as("said once").isEqualTo(1);

            // The link goes: the runtime now loads the next file, which gets our entry, and the agent is ready.
            Files.delete(node.conf("04-out.conflist"));
            loop.awaitPatched(calico);
            loop.awaitReady();
            assertThat(loop.metrics()).contains("cnichain_ready 1");
        }
    }

    @Test
    void anAdapterNamingAnotherFileDoesNotTakeTheRuntimesFileAway(TestNode node)
            throws Exception
    {
        Path single = node.write("05-single.conf", "{\"cniVersion\":\"0.4.0\",\"name\":\"single\",\"type\":\"bridge\"}");
        Path own = node.write("10-own.conflist-current", TestNode.OCI);
        try (RunningLoop loop = RunningLoop.start(node, RunningLoop.FAST, LoopTestAdapter.naming("10-own.conflist-current"))) {
            loop.awaitPatched(own);
            loop.awaitPatched(node.conf("05-single.conflist"));
            assertThat(single).doesNotExist();
            loop.awaitReady();

            // The primary writes its .conf again: the runtime loads it, so it is converted again, and readiness waits.
            node.write("05-single.conf", "{\"cniVersion\":\"0.4.0\",\"name\":\"single\",\"type\":\"bridge\"}");
            loop.await(() -> !Files.exists(node.conf("05-single.conf")) && patched(node.conf("05-single.conflist")),
                    () -> "05-single.conf was not converted again");
            loop.awaitReady();
        }
    }

    /**
     * A conversion renames: 10-x.conf would become 10-x.conflist, which sorts after 10-x.conf.conflist, a list of another
     * network that the runtime would then load. The agent leaves both alone and is not ready, saying why.
     */
    @Test
    void aConversionThatWouldHandTheRuntimeAnotherFileIsRefusedAndSaidInReadiness(TestNode node)
            throws Exception
    {
        Path first = node.write("05-a.conflist", TestNode.CALICO);
        node.write("10-x.conf", "{\"cniVersion\":\"0.3.1\",\"name\":\"x\",\"type\":\"bridge\"}");
        Path other = node.write("10-x.conf.conflist", "{\"cniVersion\":\"0.3.1\",\"name\":\"y\",\"plugins\":[{\"type\":\"bridge\"}]}");
        String before = node.read("10-x.conf.conflist");
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(first);
            loop.awaitReady();
            Files.delete(first);
            loop.await(() -> loop.status.notReady().stream().anyMatch(reason -> reason.contains("would hand the runtime /etc/cni/net.d/10-x.conf.conflist")),
                    () -> "not ready for the refused conversion: " + loop.status.notReady());
            assertThat(node.conf("10-x.conflist")).doesNotExist();
            assertThat(node.read("10-x.conf.conflist")).isEqualTo(before);
            assertThat(other).exists();
        }
    }

    /**
     * The runtime does not load that name, but the adapter has the last word: the file's appearance after start, and the
     * primary's rewrite of it, each run a pass that patches it.
     */
    @Test
    void aFileOnlyTheAdapterNamesIsPatchedWhenItAppearsAndWhenItsPrimaryRewritesIt(TestNode node)
            throws Exception
    {
        Path calico = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node, RunningLoop.FAST, LoopTestAdapter.naming("10-own.conflist-current"))) {
            loop.awaitPatched(calico);
            loop.awaitReady();
            Path own = node.write("10-own.conflist-current", TestNode.OCI);
            loop.awaitPatched(own);
            loop.awaitReady();
            long writes = loop.metric("cnichain_patches_written_total");

            node.replaceAtomically("10-own.conflist-current", TestNode.OCI);
            loop.await(() -> loop.metric("cnichain_patches_written_total") > writes, () -> "the primary's rewrite was not patched");
            loop.awaitPatched(own);
            loop.awaitReady();
        }
    }

    /**
     * Patched ahead of the runtime, which loads no file yet: ready would lift the start-up fence, and the primary's first
     * file the runtime loads could come without our entry.
     */
    @Test
    void aFileOnlyTheAdapterNamesKeepsTheAgentNotReadyUntilTheRuntimeLoadsAFile(TestNode node)
            throws Exception
    {
        Path own = node.write("10-own.conflist-current", TestNode.OCI);
        try (RunningLoop loop = RunningLoop.start(node, RunningLoop.FAST, LoopTestAdapter.naming("10-own.conflist-current"))) {
            loop.awaitPatched(own);
            loop.barrier();
            assertThat(loop.status.notReady()).containsExactly("no CNI configuration in /etc/cni/net.d that the runtime loads yet (patched ahead of it: "
                    + "/etc/cni/net.d/10-own.conflist-current)");
            assertThat(loop.metrics()).contains("cnichain_ready 0\n");

            Files.createSymbolicLink(node.conf("10-own.conflist"), Path.of("10-own.conflist-current"));
            loop.awaitReady();
            assertThat(node.read("10-own.conflist-current")).isEqualTo(node.read("10-own.conflist"));
        }
    }

    @Test
    void aFirstFileTooLargeToReadWholeKeepsTheAgentNotReady(TestNode node)
            throws Exception
    {
        // A valid list padded past maxConfigBytes (1 MiB): the runtime may well load it, and we cannot tell what it holds.
        Files.writeString(node.conf("05-big.conflist"), "{\"cniVersion\":\"0.4.0\",\"name\":\"big\",\"plugins\":[{\"type\":\"bridge\"}]}"
                + " ".repeat(2 << 20));
        Path calico = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(calico);
            loop.barrier();
            assertThat(loop.status.ready()).isFalse();
            assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason)
                    .startsWith("/etc/cni/net.d/05-big.conflist sorts before the effective configuration and cannot be read whole (")
                    .contains("the runtime may load it"));

            Files.delete(node.conf("05-big.conflist"));
            loop.awaitReady();
        }
    }

    @Test
    void aFileOnlyAnOlderLibcniLoadsKeepsTheAgentNotReady(TestNode node)
            throws Exception
    {
        // libcni 1.3 rejects cniVersions that are not versions; libcni 1.1 (containerd 1.6) knows no cniVersions and loads it.
        node.write("05-net.conflist", "{\"cniVersion\":\"0.4.0\",\"name\":\"net\",\"cniVersions\":[\"1.x\"],\"plugins\":[{\"type\":\"bridge\"}]}");
        Path calico = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(calico);
            loop.barrier();
            assertThat(loop.status.ready()).isFalse();
            assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason)
                    .startsWith("libcni 1.1 (containerd 1.6) loads /etc/cni/net.d/05-net.conflist, which libcni 1.3 rejects (")
                    .contains("on a node whose runtime links libcni 1.1 it runs without our entry"));
        }
    }

    @Test
    void theFileAnOlderLibcniLoadsInsteadIsPatchedToo(TestNode node)
            throws Exception
    {
        // disableCheck as a string: libcni 1.3 loads it, libcni 1.1 rejects it and loads the next file. Both carry our entry.
        Path first = node.write("05-net.conflist", "{\"cniVersion\":\"0.4.0\",\"name\":\"net\",\"disableCheck\":\"true\",\"plugins\":[{\"type\":\"bridge\"}]}");
        Path calico = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(first);
            loop.awaitPatched(calico);
            loop.awaitReady();
        }
    }
}
