package io.cnichain.core;

import java.nio.file.Path;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The core's one exception: a code the CLI maps to an exit status, the file concerned (when there is one)
 * and a one-line reason. The message reads {@code <file>: <reason>}.
 */
public class CniChainException extends RuntimeException
{
    private final ErrorCode code;
    private final Optional<Path> file;
    private final String reason;

    public CniChainException(ErrorCode code, Path file, String reason)
    {
        this(code, file, reason, null);
    }

    public CniChainException(ErrorCode code, Path file, String reason, Throwable cause)
    {
        super(file == null ? reason : file + ": " + reason, cause);
        this.code = requireNonNull(code, "code is null");
        this.file = Optional.ofNullable(file);
        this.reason = requireNonNull(reason, "reason is null");
    }

    public CniChainException(ErrorCode code, String reason)
    {
        this(code, null, reason, null);
    }

    public ErrorCode code()
    {
        return code;
    }

    public Optional<Path> file()
    {
        return file;
    }

    public String reason()
    {
        return reason;
    }
}
