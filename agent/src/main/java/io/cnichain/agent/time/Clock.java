package io.cnichain.agent.time;

/**
 * The agent's one source of time, handed to the loop and to each of its parts, so that tests can drive it: monotonic
 * nanoseconds for deadlines and back-offs ({@link #SYSTEM} is {@link System#nanoTime()}), and how long a thread may
 * block before it must look at the time again.
 */
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
    };

    /** Now, in nanoseconds on a monotonic scale of the clock's own (only differences mean anything). */
    long nanoTime();

    /**
     * How long, in real nanoseconds, a thread that waits for something or for {@code deadlineNanos} may block before it
     * looks at this clock again: the time left for the system's clock; a short real interval for a clock a test moves.
     */
    long blockNanos(long deadlineNanos);

    /** @return whether {@code deadlineNanos} has come */
    default boolean reached(long deadlineNanos)
    {
        return nanoTime() - deadlineNanos >= 0;
    }
}
