package io.cnichain.agent.loop;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.PriorityQueue;

import static java.util.Objects.requireNonNull;

/**
 * The passes the loop owes itself: retries of waiting files and of refused writes, the end of a back-off, fight
 * stability checks. Read and written by the loop's thread only.
 */
final class Timers
{
    private final PriorityQueue<Timer> queue = new PriorityQueue<>();

    /**
     * A pass at {@code dueNanos}. A retry or the end of a back-off is dropped when a pass is due no later anyway
     * (that pass schedules again what it still needs); a stability check always stays, it names its file.
     */
    void schedule(long dueNanos, Kind kind, Optional<Path> stableCheck)
    {
        requireNonNull(kind, "kind is null");
        requireNonNull(stableCheck, "stableCheck is null");
        if (kind != Kind.STABILITY_CHECK) {
            for (Timer timer : queue) {
                if (timer.dueNanos() <= dueNanos && timer.kind() != Kind.STABILITY_CHECK) {
                    return;
                }
            }
        }
        queue.add(new Timer(dueNanos, kind, stableCheck));
    }

    /** @return when the next timer is due ({@link System#nanoTime()}), if any */
    OptionalLong nextDueNanos()
    {
        Timer next = queue.peek();
        return next == null ? OptionalLong.empty() : OptionalLong.of(next.dueNanos());
    }

    /** @return the timers due by {@code nowNanos}, removed from the queue */
    List<Timer> takeDue(long nowNanos)
    {
        List<Timer> due = new ArrayList<>();
        while (!queue.isEmpty() && queue.peek().dueNanos() <= nowNanos) {
            due.add(queue.poll());
        }
        return due;
    }

    /** Why a pass is owed. */
    enum Kind
    {
        /** A file did not parse yet; try again. */
        RETRY,
        /** A back-off is over; the file may be written again. */
        BACKOFF_OVER,
        /** Has the file kept our entry long enough to end the fight? */
        STABILITY_CHECK,
        /** Directories were just armed: look again at what may have changed before their watches were. */
        NEW_WATCHES,
        /** The filesystem refused a write (no space, read-only, ...); try it again. */
        FAILED_WRITE,
    }

    /**
     * @param dueNanos    when ({@link System#nanoTime()})
     * @param kind        why
     * @param stableCheck the file to check, for {@link Kind#STABILITY_CHECK}
     */
    /** Ordered by when it is due. */
    record Timer(long dueNanos, Kind kind, Optional<Path> stableCheck)
            implements Comparable<Timer>
    {
        @Override
        public int compareTo(Timer other)
        {
            return Long.compare(dueNanos, other.dueNanos);
        }
    }
}
