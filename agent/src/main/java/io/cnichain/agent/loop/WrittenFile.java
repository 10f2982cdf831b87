package io.cnichain.agent.loop;

import io.cnichain.agent.time.Backoff;
import io.cnichain.core.engine.FileOutcome;
import io.cnichain.core.fs.linux.FileSystemCalls.Identity;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;

import static java.util.Objects.requireNonNull;

/**
 * What the agent knows of one file it writes: our last write (its bytes tell our own echo, its time a quick revert),
 * the other writer's changes since, the fight over the file, and the retry it waits for. Decides from what
 * {@link WrittenFiles}, its owner, tells it; reads nothing itself. Times are the loop's clock.
 *
 * <p>A fight is another writer undoing our write almost at once, again and again, as Cilium's exclusive mode does:
 * past the threshold of quick reverts within the window, each write waits out a back-off, doubled by every quick
 * revert, and counted when we write again (a revert that came while we waited is as quick as it was). A writer that
 * changes the file again on its own after undoing our write may have gone once it leaves the file alone: one write
 * then, before the back-off ends. That is a property of the writer since our last write, not of the fight, so one
 * rewrite of its own earns one early write, and a writer that only undoes ours waits out every back-off.
 */
final class WrittenFile
{
    /** Whether our entry may be written now. */
    enum Write
    {
        /** Not in a back-off. */
        NOW,
        /** In a back-off, but the writer that rewrote the file on its own has left it alone for the quiet time. */
        EARLY,
        /** Backing off. */
        NOT_YET,
    }

    /**
     * A try of a file that cannot be patched yet.
     *
     * @param next   how long until the next try; empty when the tries are used up
     * @param number this try's number, from 1
     */
    record Retry(Optional<Duration> next, int number) {}

    private final FightPolicy policy;
    private Optional<FileOutcome.Written> ours = Optional.empty();
    private long wroteAt;
    /** When another writer first changed the file since our write; empty while it holds our write. */
    private OptionalLong undoneAt = OptionalLong.empty();
    private long changedAt;
    /** Whether the other writer changed the file on its own, after undoing our write. */
    private boolean rewriting;
    /** The file as last seen since it was undone, so that a look tells a change no event told. */
    private Optional<Identity> seen = Optional.empty();
    private long lookedAt;
    private final Deque<Long> quickReverts = new ArrayDeque<>();
    private final Backoff fight;
    private Duration backoff = Duration.ZERO;
    private long blockedUntil;
    private Optional<Backoff> retry = Optional.empty();
    private boolean retryRefused;
    private OptionalLong retryAt = OptionalLong.empty();
    /** When this file wants the loop, as last said to it. */
    private OptionalLong dueAt = OptionalLong.empty();

    WrittenFile(FightPolicy policy)
    {
        this.policy = requireNonNull(policy, "policy is null");
        this.fight = new Backoff(policy.backoff(), new SplittableRandom());
    }

    Optional<FileOutcome.Written> ours()
    {
        return ours;
    }

    /** @return whether these are the bytes we last wrote */
    boolean isOurs(byte[] content)
    {
        return ours.isPresent() && ours.get().sameContent(content);
    }

    /**
     * We wrote the file. When it is the file of a target (not a side one, as the list a conversion writes), it lacked our
     * entry: the undoing of our previous write, when it came soon after it, was a quick revert.
     *
     * @return the back-off now in force, when that revert started or stepped a fight
     */
    Optional<Duration> wrote(FileOutcome.Written written, boolean target, long now)
    {
        Optional<Duration> step = Optional.empty();
        if (target && ours.isPresent()) {
            // Undone without an event telling: when we write again at the latest.
            long undone = undoneAt.orElse(now);
            if (undone - wroteAt <= policy.quickRevert().toNanos()) {
                step = quickRevert(undone, now);
            }
        }
        ours = Optional.of(written);
        wroteAt = now;
        undoneAt = OptionalLong.empty();
        rewriting = false;
        seen = Optional.empty();
        lookedAt = now;
        return step;
    }

    private Optional<Duration> quickRevert(long revertedAt, long now)
    {
        quickReverts.addLast(revertedAt);
        while (revertedAt - quickReverts.peekFirst() > policy.window().toNanos()) {
            quickReverts.removeFirst();
        }
        // The threshold decides when a fight starts; once in one, every quick revert takes the next step.
        if (!fighting() && quickReverts.size() < policy.threshold()) {
            return Optional.empty();
        }
        backoff = fight.failed(now).orElseThrow();
        blockedUntil = now + backoff.toNanos();
        return Optional.of(backoff);
    }

    /** The file still held our entry after all: its change was no revert. */
    void keptOurEntry()
    {
        undoneAt = OptionalLong.empty();
        rewriting = false;
    }

    /** Another writer changed the file: an event that is not our echo, or a look that found it changed. */
    void changedByAnother(long now)
    {
        if (ours.isEmpty()) {
            return;
        }
        if (undoneAt.isEmpty()) {
            undoneAt = OptionalLong.of(now);
        }
        else if (now - undoneAt.getAsLong() > policy.quickRevert().toNanos()) {
            rewriting = true;
        }
        changedAt = now;
    }

    /** @return whether another writer changed the file since our last write */
    boolean undone()
    {
        return undoneAt.isPresent();
    }

    /**
     * A look at the file while backing off; the first after it was undone takes note of it as the other writer left it.
     *
     * @param identity the file as it is now
     * @return whether it changed since the last look
     */
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
        return rewriting && now - changedAt >= policy.quiet().toNanos() ? Write.EARLY : Write.NOT_YET;
    }

    boolean backingOff(long now)
    {
        return fighting() && now - blockedUntil < 0;
    }

    boolean fighting()
    {
        return fight.failures() > 0;
    }

    /** @return the last back-off the fight stepped to */
    Duration backoff()
    {
        return backoff;
    }

    int quickReverts()
    {
        return quickReverts.size();
    }

    /** @return whether the file, in a fight, has had our last write long enough that holding it now ends the fight */
    boolean keptLongEnough(long now)
    {
        return fighting() && undoneAt.isEmpty() && now - wroteAt >= policy.backoff().resetAfter().toNanos();
    }

    void fightOver()
    {
        fight.reset();
        backoff = Duration.ZERO;
        quickReverts.clear();
    }

    /**
     * A try found the file not patchable: it does not parse yet, or the filesystem refused our write. A try before the
     * next is due (a pass for another reason) takes nothing.
     *
     * @return this try's place in the schedule, when it took one
     */
    Optional<Retry> notPatched(boolean refused, Backoff.Policy schedule, long now)
    {
        if (retry.isEmpty() || retryRefused != refused) {
            retry = Optional.of(new Backoff(schedule, new SplittableRandom()));
            retryRefused = refused;
            retryAt = OptionalLong.empty();
        }
        Backoff backoff = retry.get();
        if (retryAt.isPresent() && now - retryAt.getAsLong() < 0 || backoff.gaveUp()) {
            return Optional.empty();
        }
        Optional<Duration> wait = backoff.failed(now);
        retryAt = wait.isPresent() ? OptionalLong.of(now + wait.get().toNanos()) : OptionalLong.empty();
        return Optional.of(new Retry(wait, backoff.failures()));
    }

    /** Patched, or changed since: the next try that fails starts the schedule again. */
    void retryAfresh(boolean refusedToo)
    {
        if (refusedToo || !retryRefused) {
            retry = Optional.empty();
            retryAt = OptionalLong.empty();
        }
    }

    /**
     * @return when this file wants the loop next: a retry; while backing off, its end and the next look; in a fight, when
     *         our write, not undone yet, will have been kept long enough
     */
    OptionalLong due(long now)
    {
        OptionalLong due = retryAt;
        if (backingOff(now)) {
            due = earlier(earlier(due, blockedUntil), lookedAt + policy.quiet().toNanos());
        }
        if (fighting() && undoneAt.isEmpty()) {
            due = earlier(due, wroteAt + policy.backoff().resetAfter().toNanos());
        }
        dueAt = due;
        return due;
    }

    /** @return whether the time {@link #due} last gave has come */
    boolean isDue(long now)
    {
        return dueAt.isPresent() && now - dueAt.getAsLong() >= 0;
    }

    static OptionalLong earlier(OptionalLong a, long b)
    {
        return a.isPresent() && a.getAsLong() - b <= 0 ? a : OptionalLong.of(b);
    }
}
