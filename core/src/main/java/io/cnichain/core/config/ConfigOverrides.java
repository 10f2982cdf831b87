package io.cnichain.core.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Values given on the command line; they win over everything else.
 */
public record ConfigOverrides(
        Optional<Path> hostRoot,
        Optional<Path> confDir,
        Optional<Path> binDir,
        Optional<List<String>> adapter,
        Optional<Path> serviceAccountDir,
        Optional<Path> pluginsDir,
        Optional<String> logLevel,
        Optional<String> logFormat)
{
    public static ConfigOverrides none()
    {
        return new ConfigOverrides(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
    }
}
