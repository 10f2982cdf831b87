package io.cnichain.agent.loop;

import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The loop with {@code placement: drop-in}, on real inotify: the drop-in is watched in its plugin directory and put
 * back when it goes; the primary rewriting its list costs no write of ours (there is nothing of ours in it to undo);
 * a renamed network takes the drop-in along; a drop-in of someone else's sorting after ours keeps the agent not ready.
 * The loop's invariant check ({@link RunningLoop}) holds the agent to libcni 1.3's list, drop-ins included, ending with ours.
 */
@ExtendWith(TempNodeExtension.class)
class LoopDropInTest
{
    static final String YAML = "placement: drop-in\n";

    @Test
    void theDropInIsWatchedAndPutBack(TestNode node)
            throws Exception
    {
        Path list = node.write("10-calico.conflist", TestNode.CALICO);
        String before = node.read("10-calico.conflist");
        Path dropIn = node.conf("k8s-pod-network/linkerd-cni.conf");
        try (RunningLoop loop = RunningLoop.start(node, YAML, RunningLoop.FAST, new LoopTestAdapter())) {
            loop.awaitReady();
            assertThat(dropIn).isRegularFile();
            assertThat(node.read("10-calico.conflist")).isEqualTo(before);

            Files.delete(dropIn);
            loop.awaitLog("Put our entry back in /etc/cni/net.d/k8s-pod-network/linkerd-cni.conf: another writer removed it");
            loop.awaitReady();
            assertThat(dropIn).isRegularFile();

            // The primary writes its list again: our drop-in is untouched, nothing is written.
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            loop.awaitLog("New/changed file [/etc/cni/net.d/10-calico.conflist] detected; re-installing");
            loop.barrier();
            assertThat(loop.writes("/etc/cni/net.d/k8s-pod-network/linkerd-cni.conf")).isEqualTo(2);
            assertThat(Files.readString(list)).isEqualTo(before);
            assertThat(loop.status.ready()).as(String.valueOf(loop.status.notReady())).isTrue();
        }
    }

    @Test
    void aRenamedNetworkTakesTheDropInAlong(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node, YAML, RunningLoop.FAST, new LoopTestAdapter())) {
            loop.awaitReady();
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO.replace("k8s-pod-network", "calico-net"));
            loop.awaitLog("Created CNI drop-in /etc/cni/net.d/calico-net/linkerd-cni.conf");
            loop.awaitLog("Removed CNI drop-in /etc/cni/net.d/k8s-pod-network/linkerd-cni.conf: no list of network 'k8s-pod-network' is loaded any more");
            loop.barrier();
            assertThat(node.conf("k8s-pod-network")).doesNotExist();
            assertThat(loop.status.ready()).isTrue();
        }
    }

    @Test
    void aDropInSortingAfterOursKeepsTheAgentNotReady(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node, YAML, RunningLoop.FAST, new LoopTestAdapter())) {
            loop.awaitReady();
            node.write("k8s-pod-network/zz-bandwidth.conf", "{\"type\":\"bandwidth\"}");
            // Written in two steps (created empty, then filled): the empty file fails the whole list for a moment, as it
            // would for the runtime; the reason that stays is the order.
            String notLast = "/etc/cni/net.d/k8s-pod-network/zz-bandwidth.conf sorts after our drop-in "
                    + "/etc/cni/net.d/k8s-pod-network/linkerd-cni.conf, so linkerd-cni is not the last plugin the runtime runs";
            loop.await(() -> loop.status.notReady().stream().anyMatch(reason -> reason.contains(notLast)), () -> "not ready for that: " + loop.status.notReady());

            Files.delete(node.conf("k8s-pod-network/zz-bandwidth.conf"));
            loop.awaitReady();
        }
    }

    @Test
    void aBrokenDropInFixedWhileNoListLoadsIsSeen(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node, YAML, RunningLoop.FAST, new LoopTestAdapter())) {
            loop.awaitReady();
            // Another tool's drop-in, empty for now: libcni then loads no list at all, and there is no target to patch.
            Path other = node.write("k8s-pod-network/zz-bandwidth.conf", "");
            loop.awaitLog("/etc/cni/net.d/10-calico.conflist cannot be loaded by libcni 1.3: /etc/cni/net.d/k8s-pod-network/zz-bandwidth.conf: is not valid JSON");
            loop.barrier();

            // Filled in place: only the plugin directory hears of it, and the list loads again.
            Files.writeString(other, "{\"type\":\"bandwidth\"}");
            String notLast = "/etc/cni/net.d/k8s-pod-network/zz-bandwidth.conf sorts after our drop-in "
                    + "/etc/cni/net.d/k8s-pod-network/linkerd-cni.conf, so linkerd-cni is not the last plugin the runtime runs";
            loop.await(() -> loop.status.notReady().stream().anyMatch(reason -> reason.contains(notLast)), () -> "not ready for that: " + loop.status.notReady());
        }
    }

    /**
     * A list before the runtime's that a broken drop-in keeps from loading, with a network of its own (and a string
     * {@code disableCheck}, so that libcni 1.1 does not load it either, and it is no target): filled in place, only its
     * plugin directory hears of it, and that list, now the one the runtime loads, is patched.
     */
    @Test
    void aBrokenDropInOfAnEarlierListFixedMakesThatListTheOnePatched(TestNode node)
            throws Exception
    {
        Path earlier = node.write("05-other.conflist", TestNode.CALICO.replace("\"name\":\"k8s-pod-network\"", "\"disableCheck\":\"true\",\"name\":\"other-network\""));
        Path broken = node.write("other-network/zz-bandwidth.conf", "");
        Path runtimes = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(runtimes);
            loop.awaitReady();
            assertThat(PluginList.patched(earlier)).as("loaded by neither libcni: no target").isFalse();
            Files.writeString(broken, "{\"type\":\"bandwidth\"}");
            loop.awaitPatched(earlier);
            loop.awaitReady();
        }
    }

    /**
     * Cilium with {@code cni.exclusive}: it renames every other {@code *.conf}, {@code *.conflist} and {@code *.json} file
     * of the conf dir to {@code *.cilium_bak} (directories are skipped) and writes its own file back when it differs. The
     * stand-in does both on every change it sees (it polls every 5 ms where Cilium uses fsnotify). With our entry in a
     * drop-in there is nothing to fight over: it never reverts, the agent never backs off, our drop-in stays.
     */
    @Test
    void anExclusiveCiliumHasNothingToFightOver(TestNode node)
            throws Exception
    {
        Path own = node.write("05-cilium.conflist", TestNode.CILIUM);
        byte[] original = Files.readAllBytes(own);
        node.write("10-flannel.conflist", TestNode.CALICO.replace("k8s-pod-network", "cbr0"));
        java.util.concurrent.atomic.AtomicInteger reverts = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger renames = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger rounds = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread cilium = new Thread(() -> {
            while (running.get()) {
                try (var entries = Files.list(node.confDir())) {
                    for (Path entry : entries.toList()) {
                        String name = entry.getFileName().toString();
                        boolean config = name.endsWith(".conf") || name.endsWith(".conflist") || name.endsWith(".json");
                        if (config && !name.equals("05-cilium.conflist") && !Files.isDirectory(entry, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                            Files.move(entry, entry.resolveSibling(name + ".cilium_bak"));
                            renames.incrementAndGet();
                        }
                    }
                    if (!java.util.Arrays.equals(Files.readAllBytes(own), original)) {
                        node.replaceAtomically("05-cilium.conflist", new String(original, java.nio.charset.StandardCharsets.UTF_8));
                        reverts.incrementAndGet();
                    }
                    rounds.incrementAndGet();
                    Thread.sleep(5);
                }
                catch (java.io.IOException e) {
                    // A file gone between the listing and the move: the next round sees it.
                }
                catch (InterruptedException e) {
                    return;
                }
            }
        }, "exclusive-cilium");
        cilium.start();
        try (RunningLoop loop = RunningLoop.start(node, YAML, RunningLoop.FAST, new LoopTestAdapter())) {
            loop.awaitReady();
            io.cnichain.testkit.Await.until(java.time.Duration.ofSeconds(10), () -> renames.get() >= 1, () -> "cilium renamed nothing");
            // Cilium rewrites its own file (an upgrade, a restart): the drop-in is not its business.
            node.replaceAtomically("05-cilium.conflist", new String(original, java.nio.charset.StandardCharsets.UTF_8));
            loop.barrier();
            // Two more rounds of the stand-in's after everything the agent did: what it would revert, it has.
            int seen = rounds.get();
            io.cnichain.testkit.Await.until(java.time.Duration.ofSeconds(10), () -> rounds.get() >= seen + 2, () -> "the stand-in stopped");
            assertThat(reverts.get()).as("Cilium never had an edit of ours to revert").isZero();
            assertThat(loop.count("backing off")).isZero();
            assertThat(Files.readAllBytes(own)).isEqualTo(original);
            assertThat(node.conf("cilium/linkerd-cni.conf")).as("Cilium renames files, not directories").isRegularFile();
            assertThat(node.conf("10-flannel.conflist.cilium_bak")).isRegularFile();
            assertThat(loop.status.ready()).as(String.valueOf(loop.status.notReady())).isTrue();
        }
        finally {
            running.set(false);
            cilium.join(5000);
        }
    }

    /** Someone deleting our drop-in the moment it appears is a fight like any other: backed off from, not fed forever. */
    @Test
    void aWriterDeletingOurDropInIsBackedOffFrom(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Path dropIn = node.conf("k8s-pod-network/linkerd-cni.conf");
        java.util.concurrent.atomic.AtomicBoolean deleting = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicInteger deletions = new java.util.concurrent.atomic.AtomicInteger();
        try (RunningLoop loop = RunningLoop.start(node, YAML, LoopFightTest.FIGHTS, new LoopTestAdapter())) {
            loop.awaitReady();
            Thread other = new Thread(() -> {
                while (deleting.get()) {
                    try {
                        if (Files.deleteIfExists(dropIn)) {
                            deletions.incrementAndGet();
                        }
                        Thread.sleep(2);
                    }
                    catch (java.io.IOException e) {
                        // gone already
                    }
                    catch (InterruptedException e) {
                        return;
                    }
                }
            }, "drop-in-deleter");
            other.start();
            try {
                loop.awaitLog("Backing off: /etc/cni/net.d/k8s-pod-network/linkerd-cni.conf was undone");
                // Backed off 150 ms, then 300: one write when each back-off is over, not one per deletion.
                for (long backoff : new long[] {150, 300}) {
                    // The deletion of the write that stepped the back-off is dealt with before time moves on: dealt with
                    // later, it would be a revert as late as the back-off, no quick one.
                    loop.await(() -> !Files.exists(dropIn), () -> dropIn + " was not deleted");
                    loop.barrier();
                    long written = loop.writes("/etc/cni/net.d/k8s-pod-network/linkerd-cni.conf");
                    loop.advance(Duration.ofMillis(backoff - 1));
                    loop.barrier();
                    assertThat(loop.writes("/etc/cni/net.d/k8s-pod-network/linkerd-cni.conf")).as("writes while backing off").isEqualTo(written);
                    loop.advance(Duration.ofMillis(1));
                    loop.awaitWrites("/etc/cni/net.d/k8s-pod-network/linkerd-cni.conf", written + 1);
                    // Deleted at once, that write steps the back-off: the deletion's event is the undoing, however late the next write.
                    loop.await(() -> !Files.exists(dropIn), () -> dropIn + " was not deleted");
                    loop.barrier();
                    assertThat(loop.writes("/etc/cni/net.d/k8s-pod-network/linkerd-cni.conf"))
                            .as("writes after the deletion; the loop said: %s", loop.lines("linkerd-cni.conf")).isEqualTo(written + 1);
                }
                assertThat(loop.status.ready()).isFalse();
            }
            finally {
                deleting.set(false);
                other.join(5000);
            }
            loop.advance(Duration.ofMillis(300));
            loop.await(() -> Files.isRegularFile(dropIn), () -> dropIn + " is not back");
            loop.advance(Duration.ofMillis(150));
            loop.awaitLog("the fight is over");
            loop.awaitReady();
            assertThat(dropIn).isRegularFile();
        }
    }

    /**
     * With placement patch, the runtime's list still gets the drop-ins of its plugin directory from libcni 1.3: a broken
     * one written there makes it load the next file, which lacks our entry. Nothing is told in the conf dir when the
     * directory exists already, so the directory itself is watched: the periodic check, on the test's clock, never runs.
     */
    @Test
    void aBrokenDropInOfTheRuntimesListIsSeen(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Path next = node.write("20-cilium.conflist", TestNode.CILIUM);
        // The plugin directory exists already (another tool made it, or an earlier drop-in): filling it tells the conf dir nothing.
        Files.createDirectories(node.conf("k8s-pod-network"));
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitReady();
            node.write("k8s-pod-network/zz-bandwidth.conf", "");
            // libcni 1.3 now loads 20-cilium.conflist: it gets our entry at once, not at the periodic check.
            loop.awaitPatched(next);
            loop.awaitReady();
            assertThat(loop.metric("cnichain_missed_events_total")).isZero();
        }
    }

    /**
     * An overflow drops the events that tell of a watched directory replaced by rename: the directories are checked by
     * their identity then, so that the watch follows the new one and a later change there is seen.
     */
    @Test
    void aPluginDirectoryReplacedAmongEventsLostToAnOverflowIsWatchedWhereItIsNow(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Path pluginDir = node.conf("k8s-pod-network");
        Path dropIn = pluginDir.resolve("linkerd-cni.conf");
        try (RunningLoop loop = RunningLoop.start(node, LoopDropInTest.YAML, RunningLoop.FAST, new LoopTestAdapter())) {
            loop.awaitReady();
            assertThat(dropIn).isRegularFile();
            // Another tool busy in the conf dir, and the plugin directory swapped for a new one among its events.
            loop.overflowHiding(() -> {
                Files.move(pluginDir, node.conf("k8s-pod-network.old"));
                Files.createDirectories(pluginDir);
            });
            loop.await(() -> Files.isRegularFile(dropIn), () -> "our drop-in was not written into the new plugin directory");
            loop.barrier();
            loop.awaitReady();

            // Our drop-in deleted in the new directory: libcni 1.3's list no longer runs linkerd-cni.
            Files.delete(dropIn);
            loop.barrier();
            assertThat(dropIn).as("put back; the agent says " + loop.status.notReady()).isRegularFile();
        }
    }
}
