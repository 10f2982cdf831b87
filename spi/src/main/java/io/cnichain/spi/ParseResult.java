package io.cnichain.spi;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What the core read from a configuration file, with the container runtime's rules applied: either a
 * {@link Valid} configuration or a {@link Failed} read with its reason.
 */
public sealed interface ParseResult
        permits ParseResult.Valid, ParseResult.Failed
{
    /**
     * @return whether the file is a configuration the runtime would load
     */
    default boolean isValid()
    {
        return this instanceof Valid;
    }

    /**
     * @return the configuration's summary, when the file is valid
     */
    default Optional<CniConfig> config()
    {
        return this instanceof Valid valid ? Optional.of(valid.summary()) : Optional.empty();
    }

    /**
     * @return why the file is not usable, as one line, when it is not
     */
    default Optional<String> error()
    {
        return this instanceof Failed failed ? Optional.of(failed.message()) : Optional.empty();
    }

    /**
     * The file parses and is a valid CNI configuration.
     *
     * @param summary what the configuration holds
     */
    record Valid(CniConfig summary)
            implements ParseResult
    {
        public Valid
        {
            requireNonNull(summary, "summary is null");
        }
    }

    /**
     * The file is not a configuration the runtime would load.
     *
     * @param reason  what kind of failure
     * @param message one line naming the file and the reason
     */
    record Failed(Reason reason, String message)
            implements ParseResult
    {
        public Failed
        {
            requireNonNull(reason, "reason is null");
            requireNonNull(message, "message is null");
        }
    }

    /** Why a read failed. */
    enum Reason
    {
        /** The file was read but is not valid JSON or not a valid CNI configuration. */
        INVALID,
        /** The file is larger than the core reads. */
        TOO_LARGE,
        /** The entry does not resolve to a readable regular file (see the entry's problem). */
        UNREADABLE,
    }
}
