package io.cnichain.core;

/** What failed, and the exit status the CLI gives it. */
public enum ErrorCode
{
    /** The configuration (YAML, environment, flags) is invalid. */
    BAD_CONFIG(2),
    /** A file could not be read or written. */
    IO(1),
    /** A CNI configuration does not parse or is not a valid CNI configuration. */
    INVALID_CNI_CONFIG(1),
    /** A file is larger than the core reads. */
    TOO_LARGE(1),
    /** A symlink does not resolve to a regular file the core accepts. */
    LINK_REFUSED(1),
    /** The chained plugin's binary is not installed, so no configuration may name it. */
    BINARY_MISSING(1),
    /** The kubeconfig for the chained plugin cannot be written. */
    KUBECONFIG(1),
    /** What the agent provides itself is not there yet (the plugin's token it requests): it waits, nothing is wrong. */
    NOT_YET(1),
    /** A file changed under us between reading and writing it. */
    CONCURRENT_CHANGE(1),
    /** An adapter failed or is misconfigured. */
    ADAPTER(1);

    private final int exitCode;

    ErrorCode(int exitCode)
    {
        this.exitCode = exitCode;
    }

    public int exitCode()
    {
        return exitCode;
    }
}
