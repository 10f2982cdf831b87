package io.cnichain.agent.loop;

import io.cnichain.agent.loop.AgentPolicy.FightPolicy;
import io.cnichain.agent.time.Backoff;
import io.cnichain.core.engine.FileOutcome;
import io.cnichain.core.fs.linux.FileSystemCalls.Identity;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;

/**
 * What the agent knows of one file it writes: our last write (its length and digest tell our own echo, its time a quick
 * revert), the other writer's changes since, the fight over the file, and the retry it waits for. It reads nothing itself.
 *
 * <p>A fight is another writer undoing our write almost at once, again and again, as Cilium's exclusive mode does: each
 * write then waits out a back-off, doubled by every quick revert. A writer that goes on changing the file on its own
 * after undoing ours may be gone once it leaves the file alone: one write then, before the back-off ends. Once seen,
 * it stays such a writer for the rest of the fight: a storm may end right after undoing our write, when nothing more
 * is seen of it. An early write undone at once shows the writer was not gone: the quiet the next one takes doubles, so
 * that a writer that only answers our writes is written against at a pace that falls to the back-off's, until the
 * fight ends or the writer is seen changing the file for longer after an undo than that quiet (a storm, which may end
 * at any time). As many reverts in a row that are not quick as it takes quick ones to start a fight end it: that
 * writer rewrites its file now and then, which is no fight.
 */
final class WrittenFile
{
    enum Write
    {
        NOW,
        /** In a back-off, but the writer that rewrote the file on its own has left it alone for the quiet time. */
        EARLY,
        NOT_YET,
    }

    /** @param next the wait before the next try; empty when the tries are used up */
    record Retry(Optional<Duration> next, int number) {}

    private final FightPolicy policy;
    private boolean written;
    /** Our last write; none when it deleted the file (a conversion wrote a list in its place). */
    private Optional<FileOutcome.Written> ours = Optional.empty();
    private long wroteAt;
    private OptionalLong undoneAt = OptionalLong.empty();
    private long changedAt;
    /** Whether the other writer changed the file again after undoing a write of ours, in this fight. */
    private boolean rewriting;
    private boolean wroteEarly;
    /** Stepped by each early write undone at once in this fight: the quiet the next one takes, doubled. */
    private final Backoff earlyUndone;
    private Duration quiet;
    /** Since it was undone, so that a look tells a change no event told. */
    private Optional<Identity> seen = Optional.empty();
    private long lookedAt;
    private final Deque<Long> quickReverts = new ArrayDeque<>();
    private int slowReverts;
    private final Backoff fight;
    private Duration backoff = Duration.ZERO;
    private long blockedUntil;
    private Optional<Backoff> retry = Optional.empty();
    private boolean retryRefused;
    private OptionalLong retryAt = OptionalLong.empty();
    private OptionalLong dueAt = OptionalLong.empty();

    WrittenFile(FightPolicy policy)
    {
        this.policy = policy;
        this.fight = new Backoff(policy.backoff(), new SplittableRandom());
        // Capped where no early write could come before the back-off's own. Not multipliedBy, which takes BigDecimal
        // onto the agent's start path (StartPathTest).
        Duration doubled = Duration.ofNanos(policy.quiet().toNanos() * 2);
        this.earlyUndone = new Backoff(new Backoff.Policy(doubled, policy.backoff().cap().compareTo(doubled) > 0 ? policy.backoff().cap() : doubled, 0, 0,
                Duration.ZERO), new SplittableRandom());
        this.quiet = policy.quiet();
    }

    boolean written()
    {
        return written;
    }

    /** @param content the file's bytes; empty when it is absent */
    boolean isOurs(Optional<byte[]> content)
    {
        if (!written) {
            return false;
        }
        return content.isEmpty() ? ours.isEmpty() : ours.isPresent() && ours.get().sameContent(content.get());
    }

    /**
     * A write for a target means the file lacked our entry (a list a conversion writes beside one did not): the undoing
     * of our previous write, when it came soon after it, was a quick revert.
     *
     * @param written what we wrote; empty when we deleted the file
     * @param early     whether it came before the back-off's end ({@link Write#EARLY})
     * @return the back-off now in force, when that revert started or stepped a fight
     */
    Optional<Duration> wrote(Optional<FileOutcome.Written> written, boolean target, boolean early, long now)
    {
        Optional<Duration> step = Optional.empty();
        // Undone without an event telling: when we write again at the latest.
        boolean reverted = target && this.written;
        if (reverted && undoneAt.orElse(now) - wroteAt > policy.quickRevert().toNanos()) {
            if (fighting() && ++slowReverts >= policy.threshold()) {
                fightOver();
            }
        }
        else if (reverted) {
            slowReverts = 0;
            quickReverts.addLast(undoneAt.orElse(now));
            while (quickReverts.peekLast() - quickReverts.peekFirst() > policy.window().toNanos()) {
                quickReverts.removeFirst();
            }
            // The threshold decides when a fight starts; once in one, every quick revert takes the next step.
            if (fighting() || quickReverts.size() >= policy.threshold()) {
                backoff = fight.failed(now).orElseThrow();
                blockedUntil = now + backoff.toNanos();
                step = Optional.of(backoff);
            }
        }
        this.written = true;
        // A write that ended the fight starts no count for the next one.
        wroteEarly = early && fighting();
        ours = written;
        wroteAt = now;
        lookedAt = now;
        keptOurEntry();
        return step;
    }

    void keptOurEntry()
    {
        undoneAt = OptionalLong.empty();
        seen = Optional.empty();
    }

    void changedByAnother(long now)
    {
        if (written && undoneAt.isEmpty()) {
            undoneAt = OptionalLong.of(now);
            if (wroteEarly && now - wroteAt <= policy.quickRevert().toNanos()) {
                quiet = earlyUndone.failed(now).orElseThrow();
            }
            wroteEarly = false;
        }
        else if (written) {
            rewriting |= now - undoneAt.getAsLong() > policy.quickRevert().toNanos();
            // Still changing the file longer after the undo than the quiet it is given: it acts on its own time, not in
            // answer to our writes (a storm), and its quiet, once it comes, is trusted afresh.
            if (now - undoneAt.getAsLong() > quiet.toNanos()) {
                quietAfresh();
            }
        }
        changedAt = now;
    }

    boolean undone()
    {
        return undoneAt.isPresent();
    }

    /** @return whether the file changed since the last look; the first look after it was undone takes note of it */
    boolean looked(Optional<Identity> identity, long now)
    {
        boolean changed = seen.isPresent() && !identity.equals(seen);
        seen = identity;
        lookedAt = now;
        return changed;
    }

    Write mayWrite(long now)
    {
        if (!backingOff(now)) {
            return Write.NOW;
        }
        // Since our last write too: one undone unseen (a watch that lost its events) earns no second write at the next pass.
        long quietSince = changedAt - wroteAt > 0 ? changedAt : wroteAt;
        return rewriting && now - quietSince >= quiet().toNanos() ? Write.EARLY : Write.NOT_YET;
    }

    /** How long a writer that rewrites the file on its own must have left it alone for an early write. */
    Duration quiet()
    {
        return quiet;
    }

    private void quietAfresh()
    {
        earlyUndone.reset();
        quiet = policy.quiet();
    }

    boolean backingOff(long now)
    {
        return fighting() && now - blockedUntil < 0;
    }

    boolean fighting()
    {
        return fight.failures() > 0;
    }

    Duration backoff()
    {
        return backoff;
    }

    int quickReverts()
    {
        return quickReverts.size();
    }

    /** @return whether the fight ends now if the file holds our write */
    boolean keptLongEnough(long now)
    {
        return fighting() && undoneAt.isEmpty() && now - wroteAt >= policy.backoff().resetAfter().toNanos();
    }

    void fightOver()
    {
        fight.reset();
        rewriting = false;
        quietAfresh();
        quickReverts.clear();
        slowReverts = 0;
    }

    /**
     * The file does not parse yet, or the filesystem refused our write. A try before the next is due (a pass for another
     * reason) takes no place in the schedule, nor does one after it gave up, nor a file caught mid-write while our writes
     * are refused: a primary that rewrites its file in place must not keep them at the first step.
     */
    Optional<Retry> notPatched(boolean refused, Backoff.Policy schedule, long now)
    {
        if (retry.isPresent() && retryRefused && !refused) {
            return Optional.empty();
        }
        if (retry.isEmpty() || retryRefused != refused) {
            retry = Optional.of(new Backoff(schedule, new SplittableRandom()));
            retryRefused = refused;
            retryAt = OptionalLong.empty();
        }
        if (retryAt.isPresent() && now - retryAt.getAsLong() < 0 || retry.get().gaveUp()) {
            return Optional.empty();
        }
        Optional<Duration> wait = retry.get().failed(now);
        retryAt = wait.isPresent() ? OptionalLong.of(now + wait.get().toNanos()) : OptionalLong.empty();
        return Optional.of(new Retry(wait, retry.get().failures()));
    }

    /**
     * The retry due now is taken: the pass it asks for tries again and schedules the next, if the file is still ours to
     * patch; one that is no longer leaves no deadline behind to wake the loop again and again.
     */
    void retryTaken(long now)
    {
        if (retryAt.isPresent() && now - retryAt.getAsLong() >= 0) {
            retryAt = OptionalLong.empty();
        }
    }

    /** A refused write's schedule starts again only once the file is patched, not on a change. */
    void retryAfresh(boolean refusedToo)
    {
        if (refusedToo || !retryRefused) {
            retry = Optional.empty();
            retryAt = OptionalLong.empty();
        }
    }

    OptionalLong due(long now)
    {
        dueAt = retryAt;
        if (backingOff(now)) {
            dueAt = earlier(earlier(dueAt, blockedUntil), lookedAt + policy.quiet().toNanos());
        }
        if (fighting() && undoneAt.isEmpty()) {
            dueAt = earlier(dueAt, wroteAt + policy.backoff().resetAfter().toNanos());
        }
        return dueAt;
    }

    boolean isDue(long now)
    {
        return dueAt.isPresent() && now - dueAt.getAsLong() >= 0;
    }

    static OptionalLong earlier(OptionalLong a, long b)
    {
        return a.isPresent() && a.getAsLong() - b <= 0 ? a : OptionalLong.of(b);
    }
}
