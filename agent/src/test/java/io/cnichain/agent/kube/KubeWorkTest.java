package io.cnichain.agent.kube;

import io.cnichain.agent.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The thread of the agent's API tasks: a task that throws (a bug) is tried again after a pause, not dropped, not at once. */
class KubeWorkTest
{
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void aTaskThatThrowsIsTriedAgainThirtySecondsLater()
            throws Exception
    {
        ManualClock clock = new ManualClock();
        AtomicInteger runs = new AtomicInteger();
        try (KubeWork work = new KubeWork(clock)) {
            work.add(now -> {
                if (runs.incrementAndGet() == 1) {
                    throw new IllegalStateException("a bug in the task");
                }
                return new KubeWork.Next.Done();
            });
            long next = work.awaitRuns(1, WAIT);
            assertThat(Duration.ofNanos(next - clock.nanoTime())).isEqualTo(Duration.ofSeconds(30));
            clock.advance(Duration.ofSeconds(30));
            work.awaitRuns(2, WAIT);
            assertThat(runs).hasValue(2);
        }
    }

    /**
     * No thread to be had at the container's process limit fails as an {@link OutOfMemoryError}, and it passes: the
     * thread goes on, or the plugin's token would never be renewed and the start-up taint never removed.
     */
    @Test
    void aTaskThatFailsWithAnErrorIsTriedAgainThirtySecondsLater()
            throws Exception
    {
        ManualClock clock = new ManualClock();
        AtomicInteger runs = new AtomicInteger();
        try (KubeWork work = new KubeWork(clock)) {
            work.add(now -> {
                if (runs.incrementAndGet() == 1) {
                    throw new OutOfMemoryError("unable to create native thread: possibly out of memory or process/resource limits reached");
                }
                return new KubeWork.Next.Done();
            });
            work.awaitRuns(1, WAIT);
            clock.advance(Duration.ofSeconds(30));
            work.awaitRuns(2, WAIT);
            assertThat(runs).hasValue(2);
        }
    }
}
