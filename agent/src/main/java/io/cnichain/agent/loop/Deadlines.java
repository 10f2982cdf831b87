package io.cnichain.agent.loop;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Every time the loop must wake without an event, one per job, in one place: the loop blocks until the earliest, and
 * takes what is due when it wakes. Setting a job again replaces its time. Used by the loop's thread only.
 */
final class Deadlines
{
    /** Why the loop wakes. */
    enum Job
    {
        /** A file wants the loop: a retry, the end of a back-off, a look while backing off, the end of a fight ({@link WrittenFiles}). */
        FILES,
        /** The look at what changes without an event ({@link GroundCheck}). */
        LOOK,
        /** The second chance ({@link PeriodicCheck}). */
        CHECK,
        /** Watches that could not be armed are tried again. */
        WATCHES,
        /** Directories were just armed: what changed in them before their watch sent no event. */
        RESCAN,
    }

    private final Map<Job, Long> at = new EnumMap<>(Job.class);

    void set(Job job, long nanos)
    {
        at.put(job, nanos);
    }

    /** Sets the job's time, or cancels the job when there is none. */
    void set(Job job, OptionalLong nanos)
    {
        if (nanos.isPresent()) {
            at.put(job, nanos.getAsLong());
        }
        else {
            at.remove(job);
        }
    }

    boolean has(Job job)
    {
        return at.containsKey(job);
    }

    /** @return when the loop must wake, if at all */
    OptionalLong next()
    {
        OptionalLong next = OptionalLong.empty();
        for (long nanos : at.values()) {
            next = WrittenFile.earlier(next, nanos);
        }
        return next;
    }

    /** @return the jobs due by {@code nowNanos}, taken off */
    List<Job> takeDue(long nowNanos)
    {
        List<Job> due = new ArrayList<>();
        at.entrySet().removeIf(job -> nowNanos - job.getValue() >= 0 && due.add(job.getKey()));
        return due;
    }
}
