package io.cnichain.spi;

import static java.util.Objects.requireNonNull;

/**
 * The one exception an adapter throws, with a code the core can act on. The message names the file or the
 * setting and the reason in one line.
 */
public class AdapterException extends RuntimeException
{
    private final Code code;

    /**
     * @param code    what kind of failure
     * @param message one line naming the file or setting and the reason
     */
    public AdapterException(Code code, String message)
    {
        super(requireNonNull(message, "message is null"));
        this.code = requireNonNull(code, "code is null");
    }

    /**
     * @param code    what kind of failure
     * @param message one line naming the file or setting and the reason
     * @param cause   the underlying failure
     */
    public AdapterException(Code code, String message, Throwable cause)
    {
        super(requireNonNull(message, "message is null"), cause);
        this.code = requireNonNull(code, "code is null");
    }

    /**
     * @return the failure's code
     */
    public Code code()
    {
        return code;
    }

    /** What went wrong. */
    public enum Code
    {
        /** A setting under {@code adapters.<name>} has a value the adapter cannot use. */
        INVALID_SETTING,
        /** A file the adapter wants patched does not resolve to a regular file. */
        NOT_PATCHABLE,
        /** Anything else: a bug or an unexpected node layout. */
        ADAPTER_FAILURE,
    }
}
