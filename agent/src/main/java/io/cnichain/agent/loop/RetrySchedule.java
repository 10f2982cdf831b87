package io.cnichain.agent.loop;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * When to try again a file that cannot be patched yet (it does not parse: a primary writing it in several steps).
 * The first try that finds it waiting starts the schedule; each try at or after the due time takes the next delay,
 * while a pass that comes earlier for another reason (our own binary or kubeconfig echoing, another file) uses up
 * nothing. After the last delay the file is given up, once, and left alone until it changes ({@link #reset(Path)}).
 *
 * <p>A schedule made by {@link #repeatingLast(List)} never gives up: it is for a write the filesystem refused (full,
 * read-only, permission denied, immutable), which may succeed later without any event on the file; its last delay
 * repeats for as long as the write keeps failing, and nothing is scheduled once it succeeds.
 */
final class RetrySchedule
{
    private final List<Duration> delays;
    private final boolean repeatLast;
    private final Map<Path, State> states = new HashMap<>();

    RetrySchedule(List<Duration> delays)
    {
        this(delays, false);
    }

    private RetrySchedule(List<Duration> delays, boolean repeatLast)
    {
        this.delays = List.copyOf(requireNonNull(delays, "delays is null"));
        this.repeatLast = repeatLast;
        if (repeatLast && this.delays.isEmpty()) {
            throw new IllegalArgumentException("a schedule that repeats its last delay needs one");
        }
    }

    /**
     * @param delays the waits before each try; the last one repeats while the tries keep failing
     * @return a schedule that never gives up
     */
    static RetrySchedule repeatingLast(List<Duration> delays)
    {
        return new RetrySchedule(delays, true);
    }

    /**
     * A try found the file still waiting.
     *
     * @param nowNanos now ({@link System#nanoTime()})
     * @return what to do next
     */
    Next onWaiting(Path file, long nowNanos)
    {
        State state = states.computeIfAbsent(file, f -> new State());
        if (state.retriesTaken > 0 && (repeatLast || state.retriesTaken <= delays.size()) && nowNanos < state.dueNanos) {
            return new Pending(state.dueNanos);
        }
        if (state.retriesTaken < delays.size() || repeatLast) {
            Duration delay = delays.get(Math.min(state.retriesTaken, delays.size() - 1));
            state.retriesTaken++;
            state.dueNanos = nowNanos + delay.toNanos();
            return new Retry(delay, state.retriesTaken, delays.size(), state.dueNanos);
        }
        if (state.retriesTaken == delays.size()) {
            state.retriesTaken++;
            return new GiveUp(delays.size());
        }
        return new LeftAlone();
    }

    /** The file changed, or was patched: a later wait starts the schedule from the beginning. */
    void reset(Path file)
    {
        states.remove(file);
    }

    /** What to do with a file that is still waiting. */
    sealed interface Next permits Retry, Pending, GiveUp, LeftAlone {}

    /**
     * Try again after a delay.
     *
     * @param delay    the wait
     * @param number   which retry this is, from 1
     * @param of       how many there are (for a schedule that repeats its last delay: how many delays it has)
     * @param dueNanos when it is due
     */
    record Retry(Duration delay, int number, int of, long dueNanos) implements Next {}

    /**
     * A retry is due later; this try did not count.
     *
     * @param dueNanos when it is due
     */
    record Pending(long dueNanos) implements Next {}

    /**
     * The retries are used up: say so once, and leave the file alone until it changes.
     *
     * @param retries how many there were
     */
    record GiveUp(int retries) implements Next {}

    /** Given up already: nothing to say, nothing to schedule. */
    record LeftAlone() implements Next {}

    private static final class State
    {
        int retriesTaken;
        long dueNanos;
    }
}
