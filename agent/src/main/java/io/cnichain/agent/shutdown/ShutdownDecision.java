package io.cnichain.agent.shutdown;

import java.util.Locale;

import static java.util.Objects.requireNonNull;

/**
 * What the agent does with what it installed when it stops, and why.
 *
 * @param cleanUp whether it removes our entries, the kubeconfig and the binaries
 * @param detail  one sentence for the log: what was found
 */
public record ShutdownDecision(boolean cleanUp, Reason reason, String detail)
{
    public ShutdownDecision
    {
        requireNonNull(reason, "reason is null");
        requireNonNull(detail, "detail is null");
    }

    static ShutdownDecision keep(Reason reason, String detail)
    {
        return new ShutdownDecision(false, reason, detail);
    }

    static ShutdownDecision cleanUp(Reason reason, String detail)
    {
        return new ShutdownDecision(true, reason, detail);
    }

    public String decisionLabel()
    {
        return cleanUp ? "cleanup" : "keep";
    }

    /** The cases; the lower-case name is the metric's label. */
    public enum Reason
    {
        /** {@code cleanupOnShutdown: always}. */
        ALWAYS,
        /** {@code cleanupOnShutdown: never} or {@code --no-cleanup}. */
        NEVER,
        /** {@code auto} without the pod's identity or the API server's address. */
        OUTSIDE_CLUSTER,
        /** The agent's pod has no DaemonSet as its controller: nothing will start it again. */
        NO_DAEMONSET,
        DAEMONSET_GONE,
        /** A DaemonSet of that name exists, but not the one that made this pod (another uid): it was deleted. */
        DAEMONSET_REPLACED,
        /** The DaemonSet has a deletionTimestamp: an uninstall under way. */
        DAEMONSET_DELETING,
        NODE_GONE,
        /** The DaemonSet no longer places a pod on this node. */
        NOT_PLACED,
        /** An update, a restart or a node shutdown. */
        STILL_PLACED,
        /** 401 (the token's ServiceAccount or pod is gone) or 403 (its RBAC is gone): the install is being taken away. */
        CREDENTIALS_REVOKED,
        /** No connection, or no answer in time: kept, as when a node shuts down. */
        API_UNAVAILABLE,
        /** An error that says nothing of an uninstall (5xx, 429, a bad answer): kept. */
        API_ERROR;

        public String label()
        {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
