package io.cnichain.agent.kube;

import io.cnichain.agent.time.Backoff;
import io.cnichain.agent.time.Clock;

import java.util.SplittableRandom;
import java.util.function.Consumer;

/** One try of a call to the API server: in this process, or in a child of its own ({@link ChildAttempt}). */
@FunctionalInterface
public interface Attempt<T>
{
    T run()
            throws ApiCallException;

    /**
     * Tries until an answer, a refusal ({@link ApiCallException#passing()} false), or a next try that would start at or
     * after the deadline, waiting between tries on the agent's one back-off, as long as {@code Retry-After} asks at least.
     *
     * @param retrying told of the first failure that is tried again
     * @throws ApiCallException the last failure
     */
    default T until(long deadlineNanos, Clock clock, Consumer<ApiCallException> retrying)
            throws ApiCallException
    {
        Backoff backoff = new Backoff(Backoff.Policy.apiServer(), new SplittableRandom());
        while (true) {
            try {
                return run();
            }
            catch (ApiCallException e) {
                long now = clock.nanoTime();
                long retryAt = now + e.wait(backoff, now).toNanos();
                if (!e.passing() || retryAt - deadlineNanos >= 0) {
                    throw e;
                }
                if (backoff.failures() == 1) {
                    retrying.accept(e);
                }
                try {
                    while (!clock.reached(retryAt)) {
                        Thread.sleep(Math.max(1, clock.blockNanos(retryAt) / 1_000_000));
                    }
                }
                catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }
}
