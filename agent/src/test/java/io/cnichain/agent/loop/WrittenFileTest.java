package io.cnichain.agent.loop;

import io.cnichain.agent.loop.AgentPolicy.FightPolicy;
import io.cnichain.core.engine.FileOutcome;
import io.cnichain.core.fs.linux.FileSystemCalls.Identity;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The record of one file, decided from what it is told: the loop's tests show the same on real files. */
class WrittenFileTest
{
    static final long MS = 1_000_000;
    static final FileOutcome.Written OURS = FileOutcome.Written.of(Path.of("/etc/cni/net.d/05-cilium.conflist"), "ours".getBytes(StandardCharsets.UTF_8));

    final WrittenFile file = new WrittenFile(FightPolicy.defaults());

    /** Our write at {@code at}, undone {@code after} ms later; @return the back-off our next write, at {@code next}, entered */
    private Optional<Duration> undoneAndWrittenAgain(long at, long after, long next)
    {
        file.changedByAnother(at + after * MS);
        return file.wrote(Optional.of(OURS), true, false, next);
    }

    @Test
    void quickRevertsPastTheThresholdStartABackOffThatDoublesUpToItsCap()
    {
        file.wrote(Optional.of(OURS), true, false, 0);
        long now = 0;
        for (int revert = 1; revert < 5; revert++) {
            assertThat(undoneAndWrittenAgain(now, 50, now + 60 * MS)).as("revert %d", revert).isEmpty();
            now += 60 * MS;
        }
        assertThat(undoneAndWrittenAgain(now, 50, now + 60 * MS)).contains(Duration.ofSeconds(1));
        now += 60 * MS;
        assertThat(file.mayWrite(now + 999 * MS)).isEqualTo(WrittenFile.Write.NOT_YET);
        assertThat(file.mayWrite(now + 1000 * MS)).isEqualTo(WrittenFile.Write.NOW);
        Duration backoff = Duration.ofSeconds(1);
        for (int step = 0; step < 10; step++) {
            long next = now + backoff.toNanos();
            backoff = undoneAndWrittenAgain(now, 10, next).orElseThrow();
            now = next;
        }
        assertThat(backoff).as("capped").isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void aPrimaryRewritingEverySecondIsNoFightNorAreQuickRevertsSpreadBeyondTheWindow()
    {
        file.wrote(Optional.of(OURS), true, false, 0);
        for (long second = 0; second < 100; second++) {
            assertThat(undoneAndWrittenAgain(second * 1000 * MS, 1000, (second + 1) * 1000 * MS)).isEmpty();
        }
        for (long at = 100_000 * MS; at < 300_000 * MS; at += 8000 * MS) {
            assertThat(undoneAndWrittenAgain(at, 50, at + 8000 * MS)).isEmpty();
        }
        assertThat(file.fighting()).isFalse();
    }

    @Test
    void aRevertCountedAfterTheBackOffIsAsQuickAsItWasAndTheNextBackOffRunsFromOurWrite()
    {
        long now = fight();
        long written = now + Duration.ofSeconds(1).toNanos();
        assertThat(undoneAndWrittenAgain(now, 10, written)).contains(Duration.ofSeconds(2));
        assertThat(file.mayWrite(written + Duration.ofSeconds(2).toNanos() - 1)).isEqualTo(WrittenFile.Write.NOT_YET);
        assertThat(file.due(written)).hasValue(written + FightPolicy.defaults().quiet().toNanos());
    }

    @Test
    void theFightEndsOnceTheFileKeptOurWriteLongEnough()
    {
        long now = fight();
        assertThat(file.keptLongEnough(now + Duration.ofSeconds(9).toNanos())).isFalse();
        assertThat(file.keptLongEnough(now + Duration.ofSeconds(10).toNanos())).isTrue();
        file.fightOver();
        assertThat(file.fighting()).isFalse();
        assertThat(file.mayWrite(now)).isEqualTo(WrittenFile.Write.NOW);
    }

    /**
     * Hostile trial, finding 3: a writer once seen rewriting on its own earned an early write after every revert, a
     * second apart, for the whole fight. It stays such a writer (a storm may end right after an undo), but each early
     * write it undoes at once doubles the quiet the next one takes.
     */
    @Test
    void aRewriteOfItsOwnEarnsEarlyWritesEachWaitingTwiceTheQuietOfTheLast()
    {
        long start = fight();
        long written = start + 1000 * MS;
        assertThat(undoneAndWrittenAgain(start, 10, written)).contains(Duration.ofSeconds(2));
        file.changedByAnother(written + 10 * MS);
        file.looked(Optional.of(new Identity(1, 2, 3, 4, 5)), written + 10 * MS);
        assertThat(file.mayWrite(written + 1900 * MS)).as("it only undid ours").isEqualTo(WrittenFile.Write.NOT_YET);

        // Half a second after our write it rewrites the file on its own, then leaves it alone: one write after the quiet time.
        assertThat(file.looked(Optional.of(new Identity(1, 2, 3, 4, 6)), written + 500 * MS)).isTrue();
        file.changedByAnother(written + 500 * MS);
        assertThat(file.mayWrite(written + 1499 * MS)).isEqualTo(WrittenFile.Write.NOT_YET);
        assertThat(file.mayWrite(written + 1500 * MS)).isEqualTo(WrittenFile.Write.EARLY);

        // The early write is undone at once, and that is all the writer does: the next waits for a quiet of 2 s.
        long early = written + 1500 * MS;
        assertThat(file.wrote(Optional.of(OURS), true, true, early)).contains(Duration.ofSeconds(4));
        file.changedByAnother(early + 5 * MS);
        assertThat(file.mayWrite(early + 2004 * MS)).isEqualTo(WrittenFile.Write.NOT_YET);
        assertThat(file.mayWrite(early + 2005 * MS)).isEqualTo(WrittenFile.Write.EARLY);
        long next = early + 2005 * MS;
        assertThat(file.wrote(Optional.of(OURS), true, true, next)).contains(Duration.ofSeconds(8));
        file.changedByAnother(next + 5 * MS);
        assertThat(file.mayWrite(next + 4004 * MS)).isEqualTo(WrittenFile.Write.NOT_YET);
        assertThat(file.mayWrite(next + 4005 * MS)).isEqualTo(WrittenFile.Write.EARLY);
    }

    /**
     * A writer that undoes our entry at once and rewrites its file half a second later, after every undo: each early
     * write it undoes doubles the quiet the next one takes, so that it is not written against every 1.5 s for ever.
     */
    @Test
    void eachEarlyWriteUndoneAtOnceDoublesTheQuietTheNextTakesUntilTheFightEnds()
    {
        long now = fightAtTheCap();
        Duration quiet = FightPolicy.defaults().quiet();
        for (int cycle = 1; cycle <= 4; cycle++) {
            file.changedByAnother(now + 10 * MS);
            file.changedByAnother(now + 500 * MS);
            long quietFrom = now + 500 * MS;
            assertThat(file.quiet()).as("cycle %d", cycle).isEqualTo(quiet);
            assertThat(file.mayWrite(quietFrom + quiet.toNanos() - 1)).as("cycle %d", cycle).isEqualTo(WrittenFile.Write.NOT_YET);
            assertThat(file.mayWrite(quietFrom + quiet.toNanos())).as("cycle %d", cycle).isEqualTo(WrittenFile.Write.EARLY);
            now = quietFrom + quiet.toNanos();
            file.wrote(Optional.of(OURS), true, true, now);
            quiet = quiet.multipliedBy(2);
        }
        // Undone at once once more: now the writer has had its 8 s early write undone too.
        file.changedByAnother(now + 10 * MS);
        file.wrote(Optional.of(OURS), true, false, now + Duration.ofSeconds(60).toNanos());
        assertThat(file.quiet()).isEqualTo(Duration.ofSeconds(16));
        file.fightOver();
        assertThat(file.quiet()).as("a new fight starts afresh").isEqualTo(FightPolicy.defaults().quiet());
    }

    /** A storm of its own rewrites undoes an early write too; once it is seen going on past the quiet, its end is trusted afresh. */
    @Test
    void aWriterSeenChangingTheFileLongerAfterTheUndoThanItsQuietIsGivenTheFirstQuietAgain()
    {
        long now = earlyWriteUndoneAtOnce(fightAtTheCap());
        assertThat(file.quiet()).isEqualTo(Duration.ofSeconds(2));
        for (long at = 100; at <= 2000; at += 100) {
            file.changedByAnother(now + at * MS);
        }
        assertThat(file.quiet()).as("changes 2 s after the undo").isEqualTo(Duration.ofSeconds(2));
        file.changedByAnother(now + 2100 * MS);
        assertThat(file.quiet()).as("changes 2.1 s after the undo").isEqualTo(FightPolicy.defaults().quiet());
    }

    /**
     * A storm of its own rewrites undoes an early write at once and ends a tenth of a second later, too soon to be seen
     * rewriting again: it was seen so earlier in the fight, and its quiet earns the next early write, not the back-off's
     * end (up to a minute away).
     */
    @Test
    void aStormThatEndsAMomentAfterUndoingAnEarlyWriteEarnsTheNext()
    {
        long now = earlyWriteUndoneAtOnce(fightAtTheCap());
        file.changedByAnother(now + 100 * MS);
        assertThat(file.mayWrite(now + 2099 * MS)).isEqualTo(WrittenFile.Write.NOT_YET);
        assertThat(file.mayWrite(now + 2100 * MS)).as("2 s after its last change, inside a back-off of %s", file.backoff())
                .isEqualTo(WrittenFile.Write.EARLY);
    }

    /** A directory swap loses the events of the early write's undo: the passes that follow for other reasons write no more until the quiet. */
    @Test
    void anEarlyWriteUndoneUnseenEarnsNoOtherBeforeTheQuietSinceIt()
    {
        long now = fightAtTheCap();
        file.changedByAnother(now + 10 * MS);
        file.changedByAnother(now + 500 * MS);
        long early = now + 1500 * MS;
        file.wrote(Optional.of(OURS), true, true, early);
        assertThat(file.mayWrite(early + 5 * MS)).isEqualTo(WrittenFile.Write.NOT_YET);
        assertThat(file.mayWrite(early + 999 * MS)).isEqualTo(WrittenFile.Write.NOT_YET);
        assertThat(file.mayWrite(early + 1000 * MS)).isEqualTo(WrittenFile.Write.EARLY);
    }

    @Test
    void anEarlyWriteThatEndsTheFightStartsNoCountForTheNext()
    {
        long now = fight();
        for (int revert = 1; revert <= FightPolicy.defaults().threshold(); revert++) {
            file.changedByAnother(now + 300 * MS);
            now += 2000 * MS;
            file.wrote(Optional.of(OURS), true, true, now);
        }
        assertThat(file.fighting()).as("slow reverts ended it").isFalse();
        file.changedByAnother(now + 10 * MS);
        assertThat(file.quiet()).isEqualTo(FightPolicy.defaults().quiet());
    }

    @Test
    void aRetryIsTakenWhenDueOnlyAndTheLastGivesUpOnceUntilTheFileChanges()
    {
        var schedule = AgentPolicy.defaults().notParsed();
        assertThat(file.notPatched(false, schedule, 0)).contains(new WrittenFile.Retry(Optional.of(Duration.ofMillis(25)), 1));
        assertThat(file.notPatched(false, schedule, 24 * MS)).as("a pass before the retry is due").isEmpty();
        assertThat(file.due(24 * MS)).hasValue(25 * MS);
        long now = 25 * MS;
        for (int retry = 2; retry <= 8; retry++) {
            WrittenFile.Retry taken = file.notPatched(false, schedule, now).orElseThrow();
            assertThat(taken.number()).isEqualTo(retry);
            now += taken.next().orElseThrow().toNanos();
        }
        assertThat(file.notPatched(false, schedule, now)).contains(new WrittenFile.Retry(Optional.empty(), 9));
        assertThat(file.notPatched(false, schedule, now + 100_000 * MS)).as("said once").isEmpty();
        assertThat(file.due(now)).isEmpty();

        file.retryAfresh(false);
        assertThat(file.notPatched(false, schedule, now)).contains(new WrittenFile.Retry(Optional.of(Duration.ofMillis(25)), 1));
    }

    /**
     * The writer undoes our write of {@code now} at once, rewrites its file half a second later, then leaves it alone:
     * our early write after the quiet of 1 s is undone at once too. @return when that early write was
     */
    private long earlyWriteUndoneAtOnce(long now)
    {
        file.changedByAnother(now + 10 * MS);
        file.changedByAnother(now + 500 * MS);
        long early = now + 1500 * MS;
        assertThat(file.mayWrite(early)).isEqualTo(WrittenFile.Write.EARLY);
        file.wrote(Optional.of(OURS), true, true, early);
        file.changedByAnother(early + 5 * MS);
        return early;
    }

    /** @return when our last write was: every one undone at once until the back-off is at its cap, 60 s, so that early writes fall well inside it */
    private long fightAtTheCap()
    {
        long now = fight();
        for (Duration backoff = Duration.ofSeconds(1); backoff.compareTo(Duration.ofSeconds(60)) < 0; ) {
            long next = now + backoff.toNanos();
            backoff = undoneAndWrittenAgain(now, 10, next).orElseThrow();
            now = next;
        }
        return now;
    }

    /** @return when the fight started: five quick reverts a tenth of a second apart */
    private long fight()
    {
        file.wrote(Optional.of(OURS), true, false, 0);
        long now = 0;
        for (int revert = 1; revert <= 5; revert++) {
            undoneAndWrittenAgain(now, 10, now + 100 * MS);
            now += 100 * MS;
        }
        assertThat(file.fighting()).isTrue();
        return now;
    }
}
