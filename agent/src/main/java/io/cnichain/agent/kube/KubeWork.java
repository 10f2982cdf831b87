package io.cnichain.agent.kube;

import io.cnichain.agent.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * The agent's calls to the API server while it runs, on one thread of their own, so that a slow API server never holds
 * the reconcile loop. The thread starts with the first task and ends when every task is done.
 */
public final class KubeWork
        implements AutoCloseable
{
    private static final Logger log = LoggerFactory.getLogger(KubeWork.class);
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(2);

    public interface Task
    {
        Next run(long now);
    }

    /** When a task runs again. */
    public sealed interface Next
    {
        /** After this wait, counted from the end of the run: a try that took long still waits its whole back-off. */
        record In(Duration delay) implements Next {}

        /** Kept by this class alone: when a task is due. */
        record At(long nanos) implements Next {}

        /** When {@link #wake()} says something changed (the agent's readiness). */
        record WhenWoken() implements Next {}

        record Done() implements Next {}
    }

    private final Clock clock;
    /** Each task and when it runs again; guarded by this. */
    private final Map<Task, Next> tasks = new LinkedHashMap<>();
    private final Thread thread;
    private boolean woken;
    private volatile boolean closed;
    private int runs;

    public KubeWork(Clock clock)
    {
        this.clock = requireNonNull(clock, "clock is null");
        this.thread = new Thread(this::work, "kube-api");
        thread.setDaemon(true);
    }

    public synchronized void add(Task task)
    {
        tasks.put(requireNonNull(task, "task is null"), new Next.At(clock.nanoTime()));
        if (!thread.isAlive() && !closed) {
            thread.start();
        }
        notifyAll();
    }

    public synchronized void wake()
    {
        woken = true;
        notifyAll();
    }

    /** A call in flight is abandoned: it ends by its own deadline. */
    @Override
    public void close()
    {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        if (thread.isAlive() && thread != Thread.currentThread()) {
            thread.interrupt();
            try {
                thread.join(JOIN_TIMEOUT.toMillis());
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** For tests: waits for {@code n} runs in all, and says when the next task is due ({@link Long#MAX_VALUE}: none is). */
    synchronized long awaitRuns(int n, Duration timeout)
            throws InterruptedException
    {
        long end = System.nanoTime() + timeout.toNanos();
        while (runs < n) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException("the API tasks ran " + runs + " times, not " + n);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return earliest();
    }

    private void work()
    {
        while (!closed) {
            List<Task> due = dueNow();
            if (due == null) {
                return;
            }
            for (Task task : due) {
                Next next;
                long started = clock.nanoTime();
                try {
                    next = task.run(started);
                }
                catch (RuntimeException | Error e) {
                    // A bug, or no thread or memory to be had for now: the others go on, and it is tried again after a
                    // pause, spread so that a fleet hit by one bug does not come back in step.
                    log.error("An API task failed: {}", e.toString(), e);
                    next = new Next.In(Duration.ofMillis(30_000 + ThreadLocalRandom.current().nextLong(15_000)));
                }
                if (next instanceof Next.In in) {
                    next = new Next.At(clock.nanoTime() + in.delay().toNanos());
                }
                synchronized (this) {
                    tasks.replace(task, next);
                }
            }
            synchronized (this) {
                runs += due.size();
                notifyAll();
            }
        }
    }

    /** @return null once closed or when every task is done */
    private synchronized List<Task> dueNow()
    {
        while (!closed) {
            tasks.values().removeIf(next -> next instanceof Next.Done);
            if (tasks.isEmpty()) {
                return null;
            }
            if (woken) {
                woken = false;
                tasks.replaceAll((task, next) -> next instanceof Next.WhenWoken ? new Next.At(clock.nanoTime()) : next);
            }
            long now = clock.nanoTime();
            List<Task> due = tasks.entrySet().stream().filter(task -> task.getValue() instanceof Next.At at && now - at.nanos() >= 0)
                    .map(Map.Entry::getKey).toList();
            if (!due.isEmpty()) {
                return due;
            }
            long earliest = earliest();
            long block = earliest == Long.MAX_VALUE ? TimeUnit.SECONDS.toNanos(60) : clock.blockNanos(earliest);
            try {
                TimeUnit.NANOSECONDS.timedWait(this, Math.max(block, 1));
            }
            catch (InterruptedException e) {
                return null;
            }
        }
        return null;
    }

    private long earliest()
    {
        return tasks.values().stream().filter(next -> next instanceof Next.At).mapToLong(next -> ((Next.At) next).nanos()).min()
                .orElse(Long.MAX_VALUE);
    }
}
