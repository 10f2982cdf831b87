package io.cnichain.core.engine;

/**
 * What an install pass compares with what it should be besides the configuration files: the plugin's kubeconfig and
 * its binaries. Either one that is missing is written whatever this says; this says which to compare even when present
 * (the first pass, an event in its directory, a look at everything).
 *
 * @param kubeconfig whether to compare the kubeconfig
 * @param binaries   whether to compare the binaries
 */
public record Prerequisites(boolean kubeconfig, boolean binaries)
{
    public static final Prerequisites ALL = new Prerequisites(true, true);
    public static final Prerequisites NONE = new Prerequisites(false, false);

    public Prerequisites or(Prerequisites other)
    {
        return new Prerequisites(kubeconfig || other.kubeconfig, binaries || other.binaries);
    }

    public boolean any()
    {
        return kubeconfig || binaries;
    }
}
