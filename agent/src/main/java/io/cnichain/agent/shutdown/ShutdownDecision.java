package io.cnichain.agent.shutdown;

import static java.util.Objects.requireNonNull;

/**
 * What the agent does with what it installed when it stops, and why.
 *
 * @param cleanUp whether it removes our entries, the kubeconfig and the binaries
 * @param reason  the case, a metric label
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

    /** The metric's label for the decision: {@code keep} or {@code cleanup}. */
    public String decisionLabel()
    {
        return cleanUp ? "cleanup" : "keep";
    }

    /** The cases, each with its metric label. */
    public enum Reason
    {
        /** {@code cleanupOnShutdown: always}. */
        CONFIGURED_ALWAYS("always"),
        /** {@code cleanupOnShutdown: never} or {@code --no-cleanup}. */
        CONFIGURED_NEVER("never"),
        /** {@code auto} without the pod's identity or the API server's address: not in a cluster. */
        OUTSIDE_CLUSTER("outside_cluster"),
        /** The agent's pod has no DaemonSet as its controller: nothing will start it again. */
        NO_DAEMONSET("no_daemonset"),
        /** The DaemonSet is gone (404): an uninstall. */
        DAEMONSET_GONE("daemonset_gone"),
        /** A DaemonSet of that name exists, but not the one that made this pod (another uid): it was deleted. */
        DAEMONSET_REPLACED("daemonset_replaced"),
        /** The DaemonSet has a deletionTimestamp: an uninstall under way. */
        DAEMONSET_DELETING("daemonset_deleting"),
        /** This node is gone from the API. */
        NODE_GONE("node_gone"),
        /** The DaemonSet no longer places a pod on this node. */
        NOT_PLACED("not_placed"),
        /** The DaemonSet exists and still places a pod here: an update, a restart or a node shutdown. */
        STILL_PLACED("still_placed"),
        /**
         * The API server refused the agent's credentials (401: the token is no longer valid, its ServiceAccount or pod is
         * gone; 403: its RBAC is gone): the install is being taken away.
         */
        CREDENTIALS_REVOKED("credentials_revoked"),
        /** The API server could not be reached in time (no connection, no answer): kept, as when a node shuts down. */
        API_UNAVAILABLE("api_unavailable"),
        /** The API server answered with an error that says nothing of an uninstall (5xx, 429, a bad answer): kept. */
        API_ERROR("api_error");

        private final String label;

        Reason(String label)
        {
            this.label = label;
        }

        public String label()
        {
            return label;
        }
    }
}
