package io.cnichain.agent.kube;

/**
 * One try of a call to the API server: made in this process, or by a child process of its own ({@link ChildAttempt}),
 * which the running agent uses so that it holds no TLS stack between its calls.
 *
 * @param <T> what the call gives
 */
@FunctionalInterface
public interface Attempt<T>
{
    /**
     * @throws ApiCallException when the call failed: its kind, its message, the server's {@code Retry-After}
     */
    T run()
            throws ApiCallException;
}
