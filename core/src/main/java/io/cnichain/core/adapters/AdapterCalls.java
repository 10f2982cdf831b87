package io.cnichain.core.adapters;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs adapter code with a time limit. Java cannot stop a thread, so a call that hangs is abandoned on a
 * daemon thread (interrupted, never waited for again) and its adapter is disabled; the pool's threads end
 * after a minute without work, so an idle agent keeps no thread awake for this.
 */
public final class AdapterCalls
{
    /** How long one adapter call may take; adapters must return quickly (see the SPI contract). */
    public static final Duration DEFAULT_LIMIT = Duration.ofSeconds(5);

    private static final ExecutorService POOL = Executors.newCachedThreadPool(new DaemonThreads());

    private AdapterCalls() {}

    /**
     * @param call        the adapter code
     * @param limit       how long it may take
     * @param classLoader the adapter's class loader, set as the thread's context class loader during the call
     * @return what the call returned
     * @throws CallFailure when the call threw anything or did not return in time
     */
    public static <T> T call(Callable<T> call, Duration limit, ClassLoader classLoader)
            throws CallFailure
    {
        Future<T> future = POOL.submit(() -> {
            Thread thread = Thread.currentThread();
            ClassLoader previous = thread.getContextClassLoader();
            thread.setContextClassLoader(classLoader);
            try {
                return call.call();
            }
            finally {
                thread.setContextClassLoader(previous);
            }
        });
        try {
            return future.get(limit.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (TimeoutException e) {
            future.cancel(true);
            throw new CallFailure(null, "did not return within " + describe(limit));
        }
        catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new CallFailure(cause, describe(cause));
        }
        catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new CallFailure(e, "interrupted while waiting for the adapter");
        }
    }

    /** One line: the exception and where in the adapter it was thrown. */
    static String describe(Throwable error)
    {
        StackTraceElement[] trace = error.getStackTrace();
        String where = trace.length == 0 ? "" : " (at " + trace[0] + ")";
        return "threw " + error + where;
    }

    static String describe(Duration limit)
    {
        long millis = limit.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
    }

    /** An adapter call that threw or did not return in time. */
    public static final class CallFailure
            extends Exception
    {
        private final transient Throwable error;

        CallFailure(Throwable error, String message)
        {
            super(message, error);
            this.error = error;
        }

        /** What the adapter threw; {@code null} for a timeout. */
        public Throwable error()
        {
            return error;
        }
    }

    private static final class DaemonThreads
            implements ThreadFactory
    {
        private final AtomicInteger count = new AtomicInteger();

        @Override
        public Thread newThread(Runnable runnable)
        {
            Thread thread = new Thread(runnable, "adapter-call-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    }
}
