package io.cnichain.agent.kube;

import io.cnichain.agent.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

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
        record At(long nanos) implements Next {}

        /** When {@link #wake()} says something changed (the agent's readiness). */
        record WhenWoken() implements Next {}

        record Done() implements Next {}
    }

    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final List<Scheduled> tasks = new ArrayList<>();
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

    public void add(Task task)
    {
        lock.lock();
        try {
            tasks.add(new Scheduled(requireNonNull(task, "task is null"), new Next.At(clock.nanoTime())));
            if (!thread.isAlive() && !closed) {
                thread.start();
            }
            changed.signalAll();
        }
        finally {
            lock.unlock();
        }
    }

    public void wake()
    {
        lock.lock();
        try {
            woken = true;
            changed.signalAll();
        }
        finally {
            lock.unlock();
        }
    }

    /** A call in flight is abandoned: it ends by its own deadline. */
    @Override
    public void close()
    {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        }
        finally {
            lock.unlock();
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
    long awaitRuns(int n, Duration timeout)
            throws InterruptedException
    {
        lock.lock();
        try {
            long end = System.nanoTime() + timeout.toNanos();
            while (runs < n) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("the API tasks ran " + runs + " times, not " + n);
                }
                changed.awaitNanos(left);
            }
            return tasks.stream().filter(task -> task.next() instanceof Next.At).mapToLong(task -> ((Next.At) task.next()).nanos()).min()
                    .orElse(Long.MAX_VALUE);
        }
        finally {
            lock.unlock();
        }
    }

    private void work()
    {
        while (!closed) {
            List<Scheduled> due = dueNow();
            if (due == null) {
                return;
            }
            for (Scheduled task : due) {
                Next next;
                try {
                    next = task.task().run(clock.nanoTime());
                }
                catch (RuntimeException e) {
                    // A task that fails this way is a bug; the others go on, and it is tried again after a pause.
                    log.error("An API task failed: {}", e.toString(), e);
                    next = new Next.At(clock.nanoTime() + TimeUnit.SECONDS.toNanos(30));
                }
                reschedule(task, next);
            }
            lock.lock();
            try {
                runs += due.size();
                changed.signalAll();
            }
            finally {
                lock.unlock();
            }
        }
    }

    /** @return null once closed or when every task is done */
    private List<Scheduled> dueNow()
    {
        lock.lock();
        try {
            while (!closed) {
                tasks.removeIf(task -> task.next() instanceof Next.Done);
                if (tasks.isEmpty()) {
                    return null;
                }
                if (woken) {
                    woken = false;
                    tasks.replaceAll(task -> task.next() instanceof Next.WhenWoken ? new Scheduled(task.task(), new Next.At(clock.nanoTime())) : task);
                }
                long now = clock.nanoTime();
                List<Scheduled> due = tasks.stream().filter(task -> task.next() instanceof Next.At at && now - at.nanos() >= 0).toList();
                if (!due.isEmpty()) {
                    return due;
                }
                long earliest = tasks.stream().filter(task -> task.next() instanceof Next.At).mapToLong(task -> ((Next.At) task.next()).nanos())
                        .min().orElse(Long.MAX_VALUE);
                long block = earliest == Long.MAX_VALUE ? TimeUnit.SECONDS.toNanos(60) : clock.blockNanos(earliest);
                try {
                    changed.awaitNanos(Math.max(block, 1));
                }
                catch (InterruptedException e) {
                    return null;
                }
            }
            return null;
        }
        finally {
            lock.unlock();
        }
    }

    private void reschedule(Scheduled task, Next next)
    {
        lock.lock();
        try {
            tasks.replaceAll(scheduled -> scheduled.task() == task.task() ? new Scheduled(task.task(), next) : scheduled);
        }
        finally {
            lock.unlock();
        }
    }

    private record Scheduled(Task task, Next next) {}
}
