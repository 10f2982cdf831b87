package io.cnichain.core.patch;

/** A configuration cannot be patched as it stands; the file is left untouched. */
public final class PatchException
        extends RuntimeException
{
    public PatchException(String reason)
    {
        super(reason, null, false, false);
    }
}
