package io.cnichain.agent.loop;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Tells a fight from a primary that rewrites its file. A fight is another writer undoing our write almost at
 * once, again and again (Cilium's exclusive mode does that). A revert counts as quick when it comes within
 * {@link FightPolicy#quickRevert()} of our write; past {@link FightPolicy#threshold()} quick reverts within
 * {@link FightPolicy#window()} the file is backed off exponentially (capped): every further quick revert doubles
 * the wait. It is released once it has kept our entry for {@link FightPolicy#stable()}. A primary rewriting its
 * file every second, or every minute, never gets near the threshold: it is re-patched every time at full speed.
 */
final class FightTracker
{
    private final FightPolicy policy;
    private final Map<Path, State> states = new HashMap<>();

    FightTracker(FightPolicy policy)
    {
        this.policy = requireNonNull(policy, "policy is null");
    }

    FightPolicy policy()
    {
        return policy;
    }

    /**
     * We are about to re-patch a file that someone changed: was it undone right after our last write?
     *
     * @param lastWriteNanos when we last wrote the file ({@link System#nanoTime()})
     * @param revertNanos    when the change undoing it was seen (not when we got round to it: a file held back
     *                       by a back-off is re-patched later, and its revert must still count as quick)
     * @param nowNanos       now, when we write it again: a back-off runs from here
     * @return the back-off step entered, when this revert starts or extends a fight
     */
    Optional<Step> onRevert(Path file, long lastWriteNanos, long revertNanos, long nowNanos)
    {
        if (revertNanos - lastWriteNanos > policy.quickRevert().toNanos()) {
            return Optional.empty();
        }
        State state = states.computeIfAbsent(file, f -> new State());
        state.reverts.addLast(revertNanos);
        while (!state.reverts.isEmpty() && revertNanos - state.reverts.peekFirst() > policy.window().toNanos()) {
            state.reverts.removeFirst();
        }
        // The threshold decides when a fight starts; once in one, every quick revert takes the next step.
        if (state.backoff == null && state.reverts.size() < policy.threshold()) {
            return Optional.empty();
        }
        Duration backoff = state.backoff == null ? policy.initialBackoff() : min(state.backoff.plus(state.backoff), policy.maxBackoff());
        state.backoff = backoff;
        state.blockedUntil = nowNanos + backoff.toNanos();
        return Optional.of(new Step(file, state.reverts.size(), backoff));
    }

    /**
     * @return until when ({@link System#nanoTime()}) writes to the file wait, when they do
     */
    Optional<Long> blockedUntil(Path file, long nowNanos)
    {
        State state = states.get(file);
        if (state == null || state.blockedUntil <= nowNanos) {
            return Optional.empty();
        }
        return Optional.of(state.blockedUntil);
    }

    boolean fighting(Path file)
    {
        State state = states.get(file);
        return state != null && state.backoff != null;
    }

    /** The files in a fight now. */
    Map<Path, Duration> fights()
    {
        Map<Path, Duration> fights = new HashMap<>();
        states.forEach((file, state) -> {
            if (state.backoff != null) {
                fights.put(file, state.backoff);
            }
        });
        return fights;
    }

    /**
     * The file kept our entry since our last write: release it once that has lasted {@link FightPolicy#stable()}.
     *
     * @return whether a fight over the file just ended
     */
    boolean onStable(Path file, long lastWriteNanos, long nowNanos)
    {
        State state = states.get(file);
        if (state == null || state.backoff == null || nowNanos - lastWriteNanos < policy.stable().toNanos()) {
            return false;
        }
        states.remove(file);
        return true;
    }

    private static Duration min(Duration a, Duration b)
    {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static final class State
    {
        final Deque<Long> reverts = new ArrayDeque<>();
        Duration backoff;
        long blockedUntil;
    }

    /**
     * One step of a back-off.
     *
     * @param file    the file fought over
     * @param reverts quick reverts within the window
     * @param backoff how long writes to it now wait
     */
    record Step(Path file, int reverts, Duration backoff) {}
}
