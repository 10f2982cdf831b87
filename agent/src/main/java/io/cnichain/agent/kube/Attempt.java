package io.cnichain.agent.kube;

/** One try of a call to the API server: in this process, or in a child of its own ({@link ChildAttempt}). */
@FunctionalInterface
public interface Attempt<T>
{
    T run()
            throws ApiCallException;
}
