package io.cnichain.agent.loop;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Writes the filesystem refused (no space, read-only, permission denied, immutable): such a write may succeed later
 * without any event on the file (space freed elsewhere, a remount, a mode changed on a directory), so the loop owes
 * itself another try, on a {@link RetrySchedule#repeatingLast back-off that never gives up}. A timer exists only
 * while something keeps failing; once the write succeeds, nothing more is scheduled. Used by the loop's thread only.
 */
final class WriteRetries
{
    private static final Logger log = LoggerFactory.getLogger(WriteRetries.class);

    private final RetrySchedule schedule;
    private final Timers timers;

    WriteRetries(RetrySchedule schedule, Timers timers)
    {
        this.schedule = requireNonNull(schedule, "schedule is null");
        this.timers = requireNonNull(timers, "timers is null");
    }

    /**
     * A write failed and may succeed later: schedules the next try, unless one is due already.
     *
     * @param what     what could not be written (a file, or the bin dir for the binaries and kubeconfig)
     * @param nowNanos now ({@link System#nanoTime()})
     */
    void failed(Path what, long nowNanos)
    {
        failed(what, what.toString(), nowNanos);
    }

    /**
     * @param key         what could not be written, for the schedule
     * @param description the same, for the log
     */
    void failed(Path key, String description, long nowNanos)
    {
        switch (schedule.onWaiting(key, nowNanos)) {
            case RetrySchedule.Retry retry -> {
                log.debug("Trying {} again in {} ms (try {} after a refused write)", description, retry.delay().toMillis(), retry.number());
                timers.schedule(retry.dueNanos(), Timers.Kind.FAILED_WRITE, Optional.empty());
            }
            // The timer may have been folded into an earlier one that brought us here: keep one for the try.
            case RetrySchedule.Pending pending -> timers.schedule(pending.dueNanos(), Timers.Kind.FAILED_WRITE, Optional.empty());
            case RetrySchedule.GiveUp giveUp -> log.warn("{} still refused after {} tries; tried again when something changes", description, giveUp.retries());
            case RetrySchedule.LeftAlone leftAlone -> {
                // Said when it gave up.
            }
        }
    }

    /** The write went through (or is no longer needed): the next failure starts the back-off from the beginning. */
    void succeeded(Path what)
    {
        schedule.reset(what);
    }
}
