package io.cnichain.agent.loop;

import io.cnichain.agent.loop.AgentPolicy.FightPolicy;
import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** Another writer that undoes our patch at once, as Cilium's exclusive mode does, against one that rewrites now and then. */
@ExtendWith(TempNodeExtension.class)
class LoopFightTest
{
    /**
     * A revert within 100 ms is quick; 3 make a fight; back-off 150 ms doubling to 300 ms (longer than the quick-revert
     * window, so only a revert timed from when it was seen counts as quick at the end of a back-off); over after
     * 150 ms of peace.
     */
    static final AgentPolicy FIGHTS = new AgentPolicy(RunningLoop.FAST.notParsed(), RunningLoop.FAST.refusedWrite(),
            new FightPolicy(Duration.ofMillis(100), 3, Duration.ofSeconds(10), RunningLoop.backoff(150, 300, 0, 150), Duration.ofMillis(100)),
            RunningLoop.FAST.stuckAfter());

    /** The agent's own fight policy in seconds (a back-off from 1 s to 60 s, a quiet of 1 s), on the loop's manual clock. */
    static final AgentPolicy SECONDS_FIGHTS = new AgentPolicy(RunningLoop.FAST.notParsed(), RunningLoop.FAST.refusedWrite(),
            new FightPolicy(Duration.ofMillis(250), 3, Duration.ofSeconds(30), RunningLoop.backoff(1000, 60_000, 0, 10_000), Duration.ofSeconds(1)),
            RunningLoop.FAST.stuckAfter());

    static final String FIGHT = "another writer keeps undoing our entry in /etc/cni/net.d/05-cilium.conflist; backing off ";

    @Test
    void quickRevertsAreBackedOffFromLongerEachTimeNotReadyWithTheHintThenTheFightEnds(TestNode node)
            throws Exception
    {
        Path file = node.write("05-cilium.conflist", TestNode.CILIUM);
        String original = node.read("05-cilium.conflist");
        try (RunningLoop loop = RunningLoop.start(node, FIGHTS, new LoopTestAdapter())) {
            loop.awaitPatched(file);
            AtomicBoolean fighting = new AtomicBoolean(true);
            Thread other = undoingAtOnce(node, file, original, fighting);
            try {
                // The loop's time stands still: every revert is quick, and the third makes a fight.
                loop.awaitCount("Backing off: /etc/cni/net.d/05-cilium.conflist was undone", 1);
                loop.barrier();
                assertThat(loop.status.ready()).isFalse();
                assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason).startsWith(FIGHT)
                        .endsWith("Hint: " + LoopTestAdapter.FIGHT_HINT));
                // No write until the back-off is over, one when it is, undone at once: the next step is longer.
                for (int step = 2; step <= 3; step++) {
                    // The revert of our last write is seen before time moves, as the quick revert it is.
                    undone(loop, file);
                    long writes = loop.metric("cnichain_patches_written_total");
                    Duration backoff = Duration.ofMillis(Math.round(Double.parseDouble(RunningLoop.afterNextWrite(loop.lines("Backing off").getLast())) * 1000));
                    loop.advance(backoff.minusMillis(1));
                    loop.barrier();
                    assertThat(loop.metric("cnichain_patches_written_total")).as("writes before the back-off is over").isEqualTo(writes);
                    loop.advance(Duration.ofMillis(1));
                    loop.awaitCount("Backing off: /etc/cni/net.d/05-cilium.conflist was undone", step);
                    // The write is counted after it is logged, before the pass ends.
                    loop.barrier();
                    assertThat(loop.metric("cnichain_patches_written_total")).as("writes when the back-off is over").isEqualTo(writes + 1);
                }
            }
            finally {
                fighting.set(false);
                other.join();
            }
            assertThat(loop.lines("Backing off: /etc/cni/net.d/05-cilium.conflist")).extracting(RunningLoop::afterNextWrite)
                    .containsExactly("0.15", "0.3", "0.3");
            // One write per back-off: the revert that came while we waited is counted as the quick revert it was.
            List<String> writesAndSteps = loop.lines("/etc/cni/net.d/05-cilium.conflist").stream()
                    .filter(line -> line.contains("Created CNI config") || line.contains("Put our entry back") || line.contains("Backing off"))
                    .map(line -> line.contains("Backing off") ? "step" : "write")
                    .toList();
            int firstStep = writesAndSteps.indexOf("step");
            assertThat(writesAndSteps.subList(firstStep, writesAndSteps.size())).containsExactly("step", "write", "step", "write", "step");
            assertThat(loop.lines("Backing off").get(0)).contains("was undone 3 times within 10 s, each time less than 100 ms after our write; "
                    + "another writer is fighting over it. Next write in 0.15 s. Hint: " + LoopTestAdapter.FIGHT_HINT);

            // The other writer stopped: once the back-off is over and the file has kept our entry for a while, back to normal.
            loop.advance(Duration.ofMillis(300));
            loop.awaitPatched(file);
            // Our entry is back, but one write proves nothing of the other writer: not ready until the fight is over.
            loop.barrier();
            assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason).startsWith(FIGHT));
            loop.advance(Duration.ofMillis(150));
            loop.awaitLog("/etc/cni/net.d/05-cilium.conflist has kept our entry for 0.15 s; the fight is over, back to normal speed");
            loop.awaitReady();
            assertThat(loop.metrics()).containsPattern("cnichain_fights_total [3-9]\n").contains("cnichain_ready 1");
        }
    }

    /**
     * Time passes between the pass that holds our write back and the loop's asking when to wake next (a pass takes time;
     * here the clock moves as it ends): the end of the back-off, gone by then, still wakes the loop for the write.
     */
    @Test
    void aBackOffThatEndsAsThePassHoldingOurWriteBackEndsStillEndsInAWrite(TestNode node)
            throws Exception
    {
        Path file = node.write("05-cilium.conflist", TestNode.CILIUM);
        String original = node.read("05-cilium.conflist");
        try (RunningLoop loop = RunningLoop.start(node, FIGHTS, new LoopTestAdapter())) {
            // Time stands still: every revert is quick, and the last makes a fight, backed off 150 ms from our write.
            startFight(loop, node, file, original);
            int reverts = FIGHTS.fights().threshold();
            loop.advance(Duration.ofMillis(149));
            loop.barrier();
            long writes = loop.metric("cnichain_patches_written_total");

            // The pass that sees the next revert holds our write back; the back-off ends before that pass does.
            AtomicBoolean endBackOff = new AtomicBoolean(true);
            loop.status.onReadiness(ready -> {
                if (endBackOff.getAndSet(false)) {
                    loop.clock.advance(Duration.ofMillis(1));
                }
            });
            node.replaceAtomically("05-cilium.conflist", original);
            loop.awaitWrites("/etc/cni/net.d/05-cilium.conflist", 1 + reverts + 1);
            loop.barrier();
            assertThat(endBackOff).isFalse();
            assertThat(loop.metric("cnichain_patches_written_total")).isEqualTo(writes + 1);
        }
    }

    /**
     * Mid-fight, the other writer learns to keep chained plugins: it rewrites its file in its own bytes, our entry in
     * it. Nothing is left to write, and once the file has carried our entry long enough the fight is over.
     */
    @Test
    void aWriterThatStartsKeepingOurEntryInItsOwnBytesEndsTheFight(TestNode node)
            throws Exception
    {
        Path file = node.write("05-cilium.conflist", TestNode.CILIUM);
        String original = node.read("05-cilium.conflist");
        try (RunningLoop loop = RunningLoop.start(node, FIGHTS, new LoopTestAdapter())) {
            startFight(loop, node, file, original);
            node.replaceAtomically("05-cilium.conflist", node.read("05-cilium.conflist").replace("\"enable-debug\": false", "\"enable-debug\": true"));
            loop.barrier();
            long writes = loop.metric("cnichain_patches_written_total");
            long passes = loop.metric("cnichain_reconciles_total");

            loop.advance(Duration.ofMillis(150));
            loop.barrier();
            loop.advance(Duration.ofMillis(150));
            loop.awaitLog("/etc/cni/net.d/05-cilium.conflist has kept our entry for 0.15 s; the fight is over, back to normal speed");
            loop.awaitReady();
            loop.barrier();
            assertThat(loop.metric("cnichain_patches_written_total")).as("nothing to write").isEqualTo(writes);
            assertThat(loop.metric("cnichain_reconciles_total") - passes).as("passes while the clock stood still").isLessThan(10);
            assertThat(PluginList.patched(file)).isTrue();
        }
    }

    /**
     * Our write undone with no event (a write through a hard link elsewhere: inotify reports it for neither directory),
     * once the back-off is over: the fight is not said to be over on a file without our entry. Its end is a file that
     * still holds our write; here our entry goes back first, and the fight goes on.
     */
    @Test
    void aFightIsNotOverWhileTheFileLacksOurEntryUnseen(TestNode node)
            throws Exception
    {
        AgentPolicy policy = new AgentPolicy(FIGHTS.notParsed(), FIGHTS.refusedWrite(), new FightPolicy(FIGHTS.fights().quickRevert(),
                FIGHTS.fights().threshold(), FIGHTS.fights().window(), RunningLoop.backoff(150, 300, 0, 500), FIGHTS.fights().quiet()), FIGHTS.stuckAfter());
        Path file = node.write("05-cilium.conflist", TestNode.CILIUM);
        String original = node.read("05-cilium.conflist");
        try (RunningLoop loop = RunningLoop.start(node, policy, new LoopTestAdapter())) {
            startFight(loop, node, file, original);
            loop.advance(Duration.ofMillis(150));
            loop.barrier();
            assertThat(PluginList.patched(file)).isTrue();

            undoUnseen(node, file, original);
            long writes = loop.metric("cnichain_patches_written_total");
            loop.advance(Duration.ofMillis(350));
            loop.await(() -> loop.metric("cnichain_patches_written_total") > writes, () -> "our entry did not go back");
            loop.barrier();
            assertThat(loop.count("the fight is over")).isZero();
            assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason).startsWith(FIGHT));
        }
    }

    /**
     * Our write undone with no event during the back-off: the look after the quiet time finds the file without our
     * write, and the undoing counts from then. Within the quick-revert time of our write, it is a quick revert, and the
     * next write is backed off from longer, as if an event had told.
     */
    @Test
    void aQuickRevertNoEventToldIsSeenByTheLookDuringTheBackOff(TestNode node)
            throws Exception
    {
        Path file = node.write("05-cilium.conflist", TestNode.CILIUM);
        String original = node.read("05-cilium.conflist");
        try (RunningLoop loop = RunningLoop.start(node, FIGHTS, new LoopTestAdapter())) {
            startFight(loop, node, file, original);
            undoUnseen(node, file, original);
            loop.advance(FIGHTS.fights().quiet());
            loop.barrier();
            loop.advance(Duration.ofMillis(150).minus(FIGHTS.fights().quiet()));
            loop.awaitCount("Backing off: /etc/cni/net.d/05-cilium.conflist", 2);
            assertThat(RunningLoop.afterNextWrite(loop.lines("Backing off").getLast())).isEqualTo("0.3");
        }
    }

    /**
     * After a fight, the other writer goes on rewriting its file every 120 ms: never within the 100 ms of a quick
     * revert, and never leaving our entry for the 150 ms that end a fight either. That is a primary rewriting now and
     * then, no fight: as many such reverts in a row as quick ones start a fight end it, and the agent is ready between
     * the rewrites.
     */
    @Test
    void aWriterThatGoesOnUndoingButNoLongerAtOnceEndsTheFight(TestNode node)
            throws Exception
    {
        Path file = node.write("05-cilium.conflist", TestNode.CILIUM);
        String original = node.read("05-cilium.conflist");
        try (RunningLoop loop = RunningLoop.start(node, FIGHTS, new LoopTestAdapter())) {
            startFight(loop, node, file, original);
            // The first rewrite falls in the back-off of 150 ms: our write waits for its end.
            loop.advance(Duration.ofMillis(120));
            node.replaceAtomically("05-cilium.conflist", original);
            loop.barrier();
            loop.advance(Duration.ofMillis(30));
            loop.awaitWrites("/etc/cni/net.d/05-cilium.conflist", 1 + FIGHTS.fights().threshold() + 1);
            // The write is logged before its pass ends: time moves only once the loop is at rest, as for every rewrite below.
            loop.barrier();
            for (int rewrite = 2; rewrite <= FIGHTS.fights().threshold() + 2; rewrite++) {
                loop.advance(Duration.ofMillis(120));
                node.replaceAtomically("05-cilium.conflist", original);
                loop.awaitWrites("/etc/cni/net.d/05-cilium.conflist", 1 + FIGHTS.fights().threshold() + rewrite);
                loop.awaitPatched(file);
                loop.barrier();
                if (rewrite >= FIGHTS.fights().threshold()) {
                    assertThat(loop.status.notReady()).as("after rewrite %d", rewrite).isEmpty();
                }
                else {
                    assertThat(loop.status.notReady()).as("after rewrite %d", rewrite).anySatisfy(reason -> assertThat(reason).startsWith(FIGHT));
                }
            }
            assertThat(loop.count("Backing off")).isEqualTo(1);
            assertThat(loop.lines("back to normal speed")).containsExactly("INFO /etc/cni/net.d/05-cilium.conflist was undone 3 times in a row, each time "
                    + "more than 100 ms after our write: no fight; back to normal speed");
        }
    }

    /**
     * A primary that puts its single-plugin {@code .conf} back the moment our conversion deletes it: the runtime loads
     * the {@code .conf} again (it sorts first), so each return undoes our conversion, and a fight over the {@code .conf}
     * is backed off from as one over a list is.
     */
    @Test
    void aPrimaryPuttingItsConfBackAtOnceIsAFightBackedOffFrom(TestNode node)
            throws Exception
    {
        Path single = node.write("05-single.conf", SINGLE);
        Path list = node.conf("05-single.conflist");
        try (RunningLoop loop = RunningLoop.start(node, FIGHTS, new LoopTestAdapter())) {
            loop.awaitPatched(list);
            AtomicBoolean fighting = new AtomicBoolean(true);
            Thread other = new Thread(() -> {
                while (fighting.get()) {
                    if (!Files.exists(single)) {
                        node.replaceAtomically("05-single.conf", SINGLE);
                    }
                    pause(1);
                }
            }, "other-writer");
            other.start();
            try {
                loop.awaitLog("Backing off: /etc/cni/net.d/05-single.conf was undone 3 times within 10 s");
                loop.barrier();
                assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason)
                        .startsWith("another writer keeps undoing our entry in /etc/cni/net.d/05-single.conf; backing off 0.15 s"));
                long conversions = loop.writes("/etc/cni/net.d/05-single.conflist");
                loop.advance(Duration.ofMillis(149));
                loop.barrier();
                assertThat(loop.writes("/etc/cni/net.d/05-single.conflist")).as("conversions during the back-off").isEqualTo(conversions);
            }
            finally {
                fighting.set(false);
                other.join();
            }
            loop.advance(Duration.ofMillis(1));
            loop.await(() -> !Files.exists(single) && PluginList.patched(list), () -> "05-single.conf was not converted after the back-off");
            loop.advance(Duration.ofMillis(300));
            loop.awaitLog("/etc/cni/net.d/05-single.conf has kept our entry for 0.15 s; the fight is over, back to normal speed");
            loop.awaitReady();
        }
    }

    /**
     * A primary that puts its {@code .conf} back now and then, each time well after our conversion: no fight. Our own
     * deletion of the {@code .conf} is no undoing of our write: counted as one, every return would look quick.
     */
    @Test
    void aPrimaryPuttingItsConfBackNowAndThenIsConvertedEveryTimeAndNeverBackedOffFrom(TestNode node)
            throws Exception
    {
        Path single = node.write("05-single.conf", SINGLE);
        Path list = node.conf("05-single.conflist");
        try (RunningLoop loop = RunningLoop.start(node, FIGHTS, new LoopTestAdapter())) {
            loop.awaitPatched(list);
            for (int back = 1; back <= FIGHTS.fights().threshold() + 1; back++) {
                loop.advance(FIGHTS.fights().quickRevert().multipliedBy(2));
                node.replaceAtomically("05-single.conf", SINGLE);
                loop.awaitWrites("/etc/cni/net.d/05-single.conflist", 1 + back);
                loop.await(() -> !Files.exists(single), () -> "05-single.conf was not converted again");
            }
            loop.barrier();
            assertThat(loop.count("Backing off")).isZero();
            assertThat(loop.status.notReady()).isEmpty();
        }
    }

    static final String SINGLE = "{\"cniVersion\":\"0.4.0\",\"name\":\"single\",\"type\":\"bridge\"}";

    /** Quick reverts up to the threshold: the last of our writes stands, and a back-off of 150 ms runs from it. */
    private static void startFight(RunningLoop loop, TestNode node, Path file, String original)
    {
        loop.awaitPatched(file);
        for (int revert = 1; revert <= FIGHTS.fights().threshold(); revert++) {
            node.replaceAtomically("05-cilium.conflist", original);
            loop.awaitWrites("/etc/cni/net.d/05-cilium.conflist", 1 + revert);
        }
        loop.awaitLog("Backing off: /etc/cni/net.d/05-cilium.conflist was undone");
        loop.barrier();
        assertThat(PluginList.patched(file)).isTrue();
    }

    private static void undoUnseen(TestNode node, Path file, String original)
            throws Exception
    {
        Path elsewhere = Files.createDirectories(node.root().resolve("elsewhere")).resolve("cilium");
        Files.deleteIfExists(elsewhere);
        Files.createLink(elsewhere, file);
        Files.writeString(elsewhere, original, StandardOpenOption.TRUNCATE_EXISTING);
        assertThat(PluginList.patched(file)).isFalse();
    }

    @Test
    void aPrimaryRewritingNowAndThenIsRepatchedEveryTimeAndNeverBackedOffFrom(TestNode node)
            throws Exception
    {
        Path file = node.write("10-flannel.conflist", "{\"name\":\"cbr0\",\"cniVersion\":\"0.3.1\",\"plugins\":[{\"type\":\"flannel\"},{\"type\":\"portmap\"}]}");
        String original = node.read("10-flannel.conflist");
        try (RunningLoop loop = RunningLoop.start(node, FIGHTS, new LoopTestAdapter())) {
            loop.awaitPatched(file);
            for (int rewrite = 1; rewrite <= FIGHTS.fights().threshold() + 1; rewrite++) {
                // The primary's pace: it rewrites well after the quick-revert window.
                loop.advance(FIGHTS.fights().quickRevert().multipliedBy(2));
                node.replaceAtomically("10-flannel.conflist", original);
                loop.awaitWrites("/etc/cni/net.d/10-flannel.conflist", 1 + rewrite);
                loop.awaitPatched(file);
            }
            loop.barrier();
            assertThat(loop.count("Backing off")).isZero();
            assertThat(loop.metrics()).contains("cnichain_fights_total 0\n");
            assertThat(loop.status.notReady()).isEmpty();
        }
    }

    /**
     * A writer that undoes our entry at once, as Cilium's does, and once, mid-fight, rewrote its file on its own: that
     * rewrite earns an early write (a writer that rewrites on its own may have stopped), which it undoes at once; the
     * next early write waits for a quiet twice as long, 2 s, and no write comes before.
     */
    @Test
    void oneRewriteOfItsOwnMidFightEarnsEarlyWritesEachWaitingTwiceAsLong(TestNode node)
            throws Exception
    {
        Path file = node.write("05-cilium.conflist", TestNode.CILIUM);
        String original = node.read("05-cilium.conflist");
        try (RunningLoop loop = RunningLoop.start(node, SECONDS_FIGHTS, new LoopTestAdapter())) {
            loop.awaitPatched(file);
            AtomicBoolean fighting = new AtomicBoolean(true);
            Thread other = undoingAtOnce(node, file, original, fighting);
            try {
                loop.awaitCount("Backing off: /etc/cni/net.d/05-cilium.conflist", 1);
                undone(loop, file);
                loop.advance(Duration.ofSeconds(1));
                loop.awaitCount("Backing off: /etc/cni/net.d/05-cilium.conflist", 2);
                undone(loop, file);

                // Half a second after it undid our write, the writer rewrites its file on its own, then leaves it alone.
                loop.advance(Duration.ofMillis(500));
                node.replaceAtomically("05-cilium.conflist", original);
                loop.barrier();
                long writes = loop.metric("cnichain_patches_written_total");
                loop.advance(Duration.ofSeconds(1));
                loop.awaitLog("/etc/cni/net.d/05-cilium.conflist has been left alone for 1 s; writing our entry again before the back-off ends");
                loop.awaitCount("Backing off: /etc/cni/net.d/05-cilium.conflist", 3);
                undone(loop, file);
                // The write is counted after it is logged, before the pass ends.
                loop.barrier();
                assertThat(loop.metric("cnichain_patches_written_total")).as("one early write").isEqualTo(writes + 1);
                String backoff = RunningLoop.afterNextWrite(loop.lines("Backing off").getLast());
                assertThat(backoff).isEqualTo("4");

                // The writer only undoes our entry now: the next early write waits for a quiet of 2 s, not 1.
                loop.advance(Duration.ofSeconds(1));
                loop.barrier();
                assertThat(loop.metric("cnichain_patches_written_total")).as("writes 1 s into a back-off of %s s", backoff).isEqualTo(writes + 1);
                loop.advance(Duration.ofMillis(999));
                loop.barrier();
                assertThat(loop.metric("cnichain_patches_written_total")).as("writes 1.999 s into a back-off of %s s", backoff).isEqualTo(writes + 1);
                loop.advance(Duration.ofMillis(1));
                loop.awaitLog("/etc/cni/net.d/05-cilium.conflist has been left alone for 2 s; writing our entry again before the back-off ends");
                loop.awaitCount("Backing off: /etc/cni/net.d/05-cilium.conflist", 4);
                loop.barrier();
                assertThat(loop.metric("cnichain_patches_written_total")).as("the second early write").isEqualTo(writes + 2);
            }
            finally {
                fighting.set(false);
                other.join();
            }
        }
    }

    /**
     * A writer that undoes our entry at once and, half a second after every undo, rewrites its file once more (a
     * debounced resync of its own). Each rewrite makes it look gone once it leaves the file alone, and each early write
     * it undoes doubles the quiet the next one takes: over two minutes it is written against a handful of times, not
     * every 1.5 s.
     */
    @Test
    void aWriterThatResyncsAfterEveryUndoIsNotWrittenAgainstAtItsOwnPace(TestNode node)
            throws Exception
    {
        Path file = node.write("05-cilium.conflist", TestNode.CILIUM);
        String original = node.read("05-cilium.conflist");
        try (RunningLoop loop = RunningLoop.start(node, SECONDS_FIGHTS, new LoopTestAdapter())) {
            loop.awaitPatched(file);
            AtomicBoolean fighting = new AtomicBoolean(true);
            Thread other = undoingAtOnce(node, file, original, fighting);
            List<Long> writtenAtMillis = new java.util.ArrayList<>();
            try {
                loop.awaitCount("Backing off: /etc/cni/net.d/05-cilium.conflist", 1);
                long millis = 0;
                while (millis < 120_000) {
                    undone(loop, file);
                    long writes = loop.metric("cnichain_patches_written_total");
                    loop.advance(Duration.ofMillis(500));
                    millis += 500;
                    node.replaceAtomically("05-cilium.conflist", original);
                    loop.barrier();
                    while (loop.metric("cnichain_patches_written_total") == writes && millis < 120_000) {
                        loop.advance(Duration.ofMillis(500));
                        millis += 500;
                        loop.barrier();
                    }
                    if (loop.metric("cnichain_patches_written_total") > writes) {
                        writtenAtMillis.add(millis);
                    }
                }
                // At the end of the first back-off, then early after a quiet of 1, 2, 4, 8, 16 and 32 s: the next would be
                // the back-off's own write, at 127 s.
                assertThat(writtenAtMillis).as("our writes in 120 s of the loop's time, at (ms); %d of them early", loop.count("left alone"))
                        .containsExactly(1000L, 2500L, 5000L, 9500L, 18_000L, 34_500L, 67_000L);
            }
            finally {
                fighting.set(false);
                other.join();
            }
        }
    }

    /** Waits for the other writer to undo our last write, and for the loop to have seen it. */
    private static void undone(RunningLoop loop, Path file)
    {
        loop.await(() -> !PluginList.patched(file), () -> "our write was not undone");
        loop.barrier();
    }

    /** Another writer that puts its own version back the moment it sees our entry, as Cilium's exclusive mode does. */
    static Thread undoingAtOnce(TestNode node, Path file, String original, AtomicBoolean running)
    {
        Thread other = new Thread(() -> {
            while (running.get()) {
                if (RunningLoop.read(file).contains("linkerd-cni")) {
                    node.replaceAtomically(file.getFileName().toString(), original);
                }
                pause(1);
            }
        }, "other-writer");
        other.start();
        return other;
    }

    private static void pause(long millis)
    {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
