package io.cnichain.agent.time;

import java.time.Instant;

/** The agent's one source of time, handed to the loop and each of its parts, so that tests can drive it. */
public interface Clock
{
    Clock SYSTEM = new Clock()
    {
        @Override
        public long nanoTime()
        {
            return System.nanoTime();
        }

        @Override
        public long blockNanos(long deadlineNanos)
        {
            return Math.max(0, deadlineNanos - System.nanoTime());
        }

        @Override
        public Instant instant()
        {
            return Instant.now();
        }
    };

    /** On a monotonic scale of the clock's own: only differences mean anything. */
    long nanoTime();

    /** How long, in real nanoseconds, a waiting thread may block before it looks at this clock again: short for a clock a test moves. */
    long blockNanos(long deadlineNanos);

    /** The node's wall clock, for what is dated (a token's expiry, a file's modification time); moved with {@link #nanoTime()}. */
    Instant instant();

    default boolean reached(long deadlineNanos)
    {
        return nanoTime() - deadlineNanos >= 0;
    }
}
