package io.cnichain.agent.loop;

import java.util.Locale;

/** How one reconcile pass ended (the {@code result} label of {@code cnichain_reconciles_total}). */
enum ReconcileResult
{
    /** Every authoritative file holds our entry; binaries and kubeconfig are in place. */
    OK,
    /** Every event was our own write coming back: nothing to do, no pass. */
    ECHO,
    /** No primary configuration yet: nothing patched, nothing created. */
    NOTHING,
    /** A file cannot be patched yet (it does not parse, or a fight holds it back). */
    WAITING,
    /** Something failed: no adapter decision, a missing prerequisite, a file that cannot be patched, an error. */
    FAILED;

    /** @return the label value */
    String metricLabel()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
