package io.cnichain.agent.kube;

import io.cnichain.agent.time.ManualClock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The thread of the agent's API tasks: a task that throws is tried again after a pause, not dropped, not at once. A bug
 * throws an exception; no thread to be had at the container's process limit throws an {@link OutOfMemoryError}, and
 * passes: the thread must go on, or the plugin's token would never be renewed and the start-up taint never removed.
 */
class KubeWorkTest
{
    private static final Duration WAIT = Duration.ofSeconds(10);

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aTaskThatThrowsIsTriedAgainThirtyToFortyFiveSecondsLater(boolean error)
            throws Exception
    {
        ManualClock clock = new ManualClock();
        AtomicInteger runs = new AtomicInteger();
        try (KubeWork work = new KubeWork(clock)) {
            work.add(now -> {
                if (runs.incrementAndGet() == 1 && error) {
                    throw new OutOfMemoryError("unable to create native thread: possibly out of memory or process/resource limits reached");
                }
                if (runs.get() == 1) {
                    throw new IllegalStateException("a bug in the task");
                }
                return new KubeWork.Next.Done();
            });
            long next = work.awaitRuns(1, WAIT);
            assertThat(Duration.ofNanos(next - clock.nanoTime())).isBetween(Duration.ofSeconds(30), Duration.ofSeconds(45));
            clock.advance(Duration.ofNanos(next - clock.nanoTime()));
            work.awaitRuns(2, WAIT);
            assertThat(runs).hasValue(2);
        }
    }

    /** A try that ran into its deadline has taken that long already: the wait it asks for comes after it, whole. */
    @ParameterizedTest
    @ValueSource(longs = {0, 40})
    void aWaitIsCountedFromTheEndOfTheRun(long runSeconds)
            throws Exception
    {
        ManualClock clock = new ManualClock();
        try (KubeWork work = new KubeWork(clock)) {
            work.add(now -> {
                clock.advance(Duration.ofSeconds(runSeconds));
                return new KubeWork.Next.In(Duration.ofSeconds(5));
            });
            long next = work.awaitRuns(1, WAIT);
            assertThat(Duration.ofNanos(next - clock.nanoTime())).isEqualTo(Duration.ofSeconds(5));
        }
    }
}
