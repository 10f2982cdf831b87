package io.cnichain.spi;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What the core read from a configuration file, with the container runtime's validity rules applied.
 *
 * @param status whether the file is a usable configuration
 * @param config the configuration's summary when {@code status} is {@link Status#VALID}
 * @param error  why the file is not usable, as one line, when it is not
 */
public record ParseResult(Status status, Optional<CniConfig> config, Optional<String> error)
{
    public ParseResult
    {
        requireNonNull(status, "status is null");
        requireNonNull(config, "config is null");
        requireNonNull(error, "error is null");
        if ((status == Status.VALID) != config.isPresent() || config.isPresent() == error.isPresent()) {
            throw new IllegalArgumentException("a valid result has a config and no error, any other has an error");
        }
    }

    /**
     * @param config the parsed configuration
     * @return a valid result
     */
    public static ParseResult valid(CniConfig config)
    {
        return new ParseResult(Status.VALID, Optional.of(config), Optional.empty());
    }

    /**
     * @param status a status other than {@link Status#VALID}
     * @param error  the reason, one line
     * @return a failed result
     */
    public static ParseResult failed(Status status, String error)
    {
        return new ParseResult(status, Optional.empty(), Optional.of(error));
    }

    /**
     * @return whether the file is a configuration the runtime would load
     */
    public boolean isValid()
    {
        return status == Status.VALID;
    }

    /** How a read ended. */
    public enum Status
    {
        /** The file parses and is a valid CNI configuration. */
        VALID,
        /** The file was read but is not valid JSON or not a valid CNI configuration. */
        INVALID,
        /** The file is larger than the core reads. */
        TOO_LARGE,
        /** The file does not resolve to a readable regular file (see the entry's problem). */
        UNREADABLE,
    }
}
