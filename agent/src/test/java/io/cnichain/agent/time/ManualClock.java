package io.cnichain.agent.time;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock a test moves: time stands still until {@link #advance(Duration)}; a thread waiting on it blocks for short
 * real intervals and looks again, so that it sees the move at once.
 */
public final class ManualClock
        implements Clock
{
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final AtomicLong now = new AtomicLong(TimeUnit.DAYS.toNanos(1));
    /** The wall clock starts at the real time, so that it compares with the times files get. */
    private final java.time.Instant start = java.time.Instant.now();
    private final long startNanos = now.get();

    @Override
    public long nanoTime()
    {
        return now.get();
    }

    @Override
    public long blockNanos(long deadlineNanos)
    {
        return deadlineNanos - now.get() <= 0 ? 0 : POLL_NANOS;
    }

    @Override
    public java.time.Instant instant()
    {
        return start.plusNanos(now.get() - startNanos);
    }

    public void advance(Duration by)
    {
        now.addAndGet(by.toNanos());
    }
}
