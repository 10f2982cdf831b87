package io.cnichain.core.adapters;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Runs adapter code with a time limit. Java cannot stop a thread, so a call that hangs is abandoned on a
 * daemon thread (interrupted, never waited for again) and its adapter is disabled; the pool's threads end
 * after a minute without work, so an idle agent keeps no thread awake for this.
 *
 * <p>A {@link #batch} runs a whole decision (every adapter's detection, then the chosen one's files and warnings) on
 * one such thread: the calls inside it run there directly, each still under its own limit, so a pass pays for one
 * hand-over between threads instead of one per call (each a wake-up of another thread, on the reaction's path).
 */
public final class AdapterCalls
{
    /** How long one adapter call may take; adapters must return quickly (see the SPI contract). */
    public static final Duration DEFAULT_LIMIT = Duration.ofSeconds(5);

    private static final ExecutorService POOL = Executors.newCachedThreadPool(new DaemonThreads());
    /** The batch the current thread runs, on a pool thread inside {@link #batch}. */
    private static final ThreadLocal<Batch> BATCH = new ThreadLocal<>();
    /** A batch that lost a call to a time limit gets another try, now without that adapter; this many at most. */
    private static final int MAX_TRIES = 16;

    private static final Runnable NOTHING = () -> { };

    private AdapterCalls() {}

    /**
     * Runs core code that calls adapters on one adapter-call thread, and waits for it. When one of its calls does not
     * return within that call's limit, the call's timeout action runs (it disables the adapter), the batch is abandoned
     * (its thread, once the adapter returns, ends at the next call instead of going on) and the body runs again, from
     * the start, on a fresh thread: the body must only decide, never write. A call inside a batch that throws is
     * reported to its caller as from {@link #call}.
     *
     * @param body the decision; what it throws reaches the caller unchanged
     * @return what it returned (never null)
     */
    public static <T> T batch(Supplier<T> body)
    {
        if (BATCH.get() != null) {
            return body.get();
        }
        for (int tries = 1; ; tries++) {
            Batch batch = new Batch();
            Future<T> future = POOL.submit(() -> {
                BATCH.set(batch);
                try {
                    return body.get();
                }
                finally {
                    BATCH.remove();
                }
            });
            Optional<T> result = batch.await(future);
            if (result.isPresent()) {
                return result.get();
            }
            if (tries == MAX_TRIES) {
                throw new IllegalStateException("adapters did not return within their time limit " + tries + " times in a row");
            }
        }
    }

    /**
     * Runs core code that calls adapters on the calling thread, for adapters built into the agent: their code is the
     * agent's own, reads the node only through the core's bounded calls, and a hang in it would be the agent's bug, which
     * {@code /healthz} reports as a stuck pass. The calls inside are not timed; one that throws is reported to its caller
     * as from {@link #call}, so a built-in adapter that throws is still disabled (but for running out of heap, which
     * {@link GuardedAdapter} lets through). What it saves is the hand-over to an
     * adapter-call thread and back, on every pass (docs/performance.md has the figure).
     *
     * @param body the decision; what it throws reaches the caller unchanged
     * @return what it returned
     */
    public static <T> T onCallingThread(Supplier<T> body)
    {
        if (BATCH.get() != null) {
            return body.get();
        }
        BATCH.set(new Batch());
        try {
            return body.get();
        }
        finally {
            BATCH.remove();
        }
    }

    /**
     * One call of a built-in adapter's code on the calling thread, untimed ({@link #onCallingThread}): under the adapter's
     * class loader, and what it throws reported as from {@link #call}.
     */
    public static <T> T callOnCallingThread(Callable<T> call, ClassLoader classLoader)
            throws CallFailure
    {
        Batch batch = BATCH.get();
        return (batch != null ? batch : new Batch()).run(call, DEFAULT_LIMIT, classLoader, NOTHING);
    }

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
        return call(call, limit, classLoader, NOTHING);
    }

    /**
     * {@link #call(Callable, Duration, ClassLoader)}, with what to do when the call runs inside a {@link #batch} and does
     * not return in time: there, the batch is abandoned and tried again, and the call's own caller never hears of it.
     *
     * @param onTimeout what a timeout inside a batch means for the adapter (it is disabled)
     */
    public static <T> T call(Callable<T> call, Duration limit, ClassLoader classLoader, Runnable onTimeout)
            throws CallFailure
    {
        Batch batch = BATCH.get();
        if (batch != null) {
            return batch.run(call, limit, classLoader, onTimeout);
        }
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

    /**
     * One decision running on an adapter-call thread. The waiting thread sleeps until the running call's deadline (or,
     * between calls, a quarter of the default limit) and is woken only by the end of the whole batch, so the calls cost no
     * hand-over; a call that overruns is noticed at most a quarter of the default limit late.
     */
    private static final class Batch
    {
        private static final long BETWEEN_CALLS_NANOS = DEFAULT_LIMIT.toNanos() / 4;
        /** The most the core code between two adapter calls may take: the default limit of one call. */
        private static final long BETWEEN_CALLS_LIMIT_NANOS = DEFAULT_LIMIT.toNanos();

        private volatile long idleSince = System.nanoTime();

        private volatile Running running;
        private volatile boolean abandoned;

        <T> T run(Callable<T> call, Duration limit, ClassLoader classLoader, Runnable onTimeout)
                throws CallFailure
        {
            checkAbandoned();
            Thread thread = Thread.currentThread();
            ClassLoader previous = thread.getContextClassLoader();
            thread.setContextClassLoader(classLoader);
            running = new Running(System.nanoTime() + limit.toNanos(), onTimeout);
            T result;
            try {
                result = call.call();
            }
            catch (Abandoned e) {
                throw e;
            }
            catch (Throwable e) {
                checkAbandoned();
                throw new CallFailure(e, describe(e));
            }
            finally {
                running = null;
                idleSince = System.nanoTime();
                thread.setContextClassLoader(previous);
            }
            checkAbandoned();
            return result;
        }

        private void checkAbandoned()
        {
            if (abandoned) {
                throw Abandoned.INSTANCE;
            }
        }

        /** @return what the body returned; empty when a call overran and the body must run again */
        <T> Optional<T> await(Future<T> future)
        {
            while (true) {
                Running now = running;
                long wait = now == null ? BETWEEN_CALLS_NANOS : now.deadlineNanos() - System.nanoTime();
                try {
                    return Optional.of(future.get(Math.max(wait, 0), TimeUnit.NANOSECONDS));
                }
                catch (TimeoutException e) {
                    if (now == null && running == null && System.nanoTime() - idleSince > BETWEEN_CALLS_LIMIT_NANOS) {
                        // Between adapter calls runs only core code; stuck this long, it is stuck in something an
                        // adapter handed over: abandoned, and never waited for without end.
                        abandoned = true;
                        future.cancel(true);
                        throw new IllegalStateException("the adapters' decision was stuck between adapter calls for over "
                                + describe(Duration.ofNanos(BETWEEN_CALLS_LIMIT_NANOS)));
                    }
                    if (now != null && running == now && System.nanoTime() - now.deadlineNanos() >= 0) {
                        abandoned = true;
                        future.cancel(true);
                        now.onTimeout().run();
                        return Optional.empty();
                    }
                }
                catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof RuntimeException runtime) {
                        throw runtime;
                    }
                    if (cause instanceof Error error) {
                        throw error;
                    }
                    throw new IllegalStateException(cause);
                }
                catch (InterruptedException e) {
                    abandoned = true;
                    future.cancel(true);
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while the adapters decided", e);
                }
            }
        }
    }

    /** The call a batch is in, and when it must have returned. */
    private record Running(long deadlineNanos, Runnable onTimeout) {}

    /** Ends an abandoned batch's thread at its next call: nothing catches an Error on the way, and its result is never read. */
    private static final class Abandoned
            extends Error
    {
        static final Abandoned INSTANCE = new Abandoned();

        private Abandoned()
        {
            super("abandoned", null, false, false);
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
