package io.cnichain.agent.loop;

import io.cnichain.core.engine.Prerequisites;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/** What one wake-up of the loop asks of the reconcile pass: the configuration files that changed, and what else calls for one. */
final class PassRequest
{
    private final long wokeNanos;
    private final Map<Path, EventKind> configFiles = new LinkedHashMap<>();
    private boolean binaries;
    private boolean kubeconfig;
    /** Events may have been lost, or a watched directory came and went: everything is looked at. */
    private boolean rescan;
    /** A deadline is due: a retry, the end of a back-off, a fight's end. */
    private boolean owed;

    PassRequest(long wokeNanos)
    {
        this.wokeNanos = wokeNanos;
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

    void rescan()
    {
        rescan = true;
    }

    void owed()
    {
        owed = true;
    }

    boolean wanted()
    {
        return !onlyConfigFiles() || !configFiles.isEmpty();
    }

    /** When changed configuration files are all there is, and each is our echo, no pass is needed. */
    boolean onlyConfigFiles()
    {
        return !owed && !rescan && !binaries && !kubeconfig;
    }

    Map<Path, EventKind> configFiles()
    {
        return configFiles;
    }

    Prerequisites prerequisites()
    {
        return new Prerequisites(kubeconfig || rescan, binaries || rescan);
    }

    OptionalLong firstFileEventNanos()
    {
        return configFiles.isEmpty() ? OptionalLong.empty() : OptionalLong.of(wokeNanos);
    }

    long wokeNanos()
    {
        return wokeNanos;
    }
}
