package io.cnichain.agent.loop;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What one wake-up of the loop asks of the reconcile pass: the configuration files that changed (host paths, with
 * the first event of each), and whatever else calls for a pass. Filled in by the loop's thread, then handed over.
 */
final class PassRequest
{
    private final long wokeNanos;
    private final Map<Path, EventKind> configFiles = new LinkedHashMap<>();
    private final Set<Path> stableChecks = new LinkedHashSet<>();
    private boolean binaries;
    private boolean kubeconfig;
    private boolean rescan;
    private boolean owed;

    PassRequest(long wokeNanos)
    {
        this.wokeNanos = wokeNanos;
    }

    /** @return the request of the first pass: everything is looked at */
    static PassRequest startup(long nowNanos)
    {
        PassRequest request = new PassRequest(nowNanos);
        request.rescan();
        return request;
    }

    void configFileChanged(Path hostPath, EventKind kind)
    {
        configFiles.putIfAbsent(hostPath, kind);
    }

    void binariesChanged()
    {
        binaries = true;
    }

    void kubeconfigChanged()
    {
        kubeconfig = true;
    }

    /** Events may have been lost, or a watched directory came and went: check everything. */
    void rescan()
    {
        rescan = true;
    }

    /** A timer is due: a retry, the end of a back-off, or a stability check of {@code stableCheck}. */
    void timerDue(Timers.Timer timer)
    {
        owed = true;
        timer.stableCheck().ifPresent(stableChecks::add);
    }

    /** @return whether anything calls for a pass */
    boolean wanted()
    {
        return owed || rescan || binaries || kubeconfig || !configFiles.isEmpty();
    }

    /** @return whether changed configuration files are all there is (then, if each is our echo, no pass is needed) */
    boolean onlyConfigFiles()
    {
        return !owed && !rescan && !binaries && !kubeconfig;
    }

    Map<Path, EventKind> configFiles()
    {
        return Collections.unmodifiableMap(configFiles);
    }

    Set<Path> stableChecks()
    {
        return Collections.unmodifiableSet(stableChecks);
    }

    boolean binaries()
    {
        return binaries;
    }

    boolean kubeconfig()
    {
        return kubeconfig;
    }

    boolean rescanRequested()
    {
        return rescan;
    }

    /** @return when a configuration file's event woke the loop, the start of the reaction time we measure */
    OptionalLong firstFileEventNanos()
    {
        return configFiles.isEmpty() ? OptionalLong.empty() : OptionalLong.of(wokeNanos);
    }

    long wokeNanos()
    {
        return wokeNanos;
    }
}
