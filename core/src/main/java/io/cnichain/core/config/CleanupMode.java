package io.cnichain.core.config;

import java.util.Locale;

/** What the agent does with what it installed when it is stopped ({@code cleanupOnShutdown}). */
public enum CleanupMode
{
    /**
     * In a cluster, ask the API server what is ending: keep everything while the agent's DaemonSet exists and still
     * places a pod on this node (a rolling update, a restart, a node shutdown); remove it on a real uninstall. Outside
     * a cluster, as {@link #ALWAYS}.
     */
    AUTO,
    /** Always remove our entry, the kubeconfig and the binaries. */
    ALWAYS,
    /** Never remove anything ({@code --no-cleanup}); {@code cni-chain uninstall} does it. */
    NEVER;

    /** As the YAML file writes it. */
    public String yaml()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
