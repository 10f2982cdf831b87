package io.cnichain.testkit;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The one way the tests wait: for a condition, or for a value, checked every few milliseconds until a timeout. A
 * timeout fails the test with what the caller says went wrong (a log, the file as it is).
 */
public final class Await
{
    private static final long PAUSE_MILLIS = 5;

    private Await() {}

    /**
     * @param failure what to say when the time is up (evaluated then, so it may read a log)
     * @throws AssertionError when {@code condition} is still false after {@code timeout}
     */
    public static void until(Duration timeout, BooleanSupplier condition, Supplier<String> failure)
    {
        value(timeout, () -> condition.getAsBoolean() ? Optional.of(Boolean.TRUE) : Optional.empty(), failure);
    }

    /** A scenario's own pace, to the microsecond (a race's window), never a wait for the agent. */
    public static void pauseMicros(long micros)
    {
        long until = System.nanoTime() + micros * 1000;
        while (micros > 0 && System.nanoTime() < until) {
            LockSupport.parkNanos(until - System.nanoTime());
        }
    }

    /**
     * For a test that counts misses over many rounds rather than failing at the first.
     *
     * @return whether {@code condition} held within {@code timeout}
     */
    public static boolean within(Duration timeout, BooleanSupplier condition)
    {
        try {
            until(timeout, condition, () -> "");
            return true;
        }
        catch (AssertionError e) {
            return false;
        }
    }

    /**
     * @return the first value {@code probe} gives
     * @throws AssertionError when it gave none within {@code timeout}
     */
    public static <T> T value(Duration timeout, Supplier<Optional<T>> probe, Supplier<String> failure)
    {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<T> value = probe.get();
            if (value.isPresent()) {
                return value.get();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + timeout.toMillis() / 1000.0 + " s: " + failure.get());
            }
            try {
                Thread.sleep(PAUSE_MILLIS);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting", e);
            }
        }
    }
}
