package io.cnichain.core.config;

import static java.util.Objects.requireNonNull;

/**
 * @param level  trace, debug, info, warn or error
 * @param format text or json
 */
public record LogSettings(String level, String format)
{
    public LogSettings
    {
        requireNonNull(level, "level is null");
        requireNonNull(format, "format is null");
    }
}
