package io.cnichain.core.config;

import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The chained plugin's kubeconfig file.
 *
 * @param enabled  whether to write one at all (a chained plugin that does not talk to the API needs none)
 * @param fileName its name in the configuration directory
 * @param mode     its permissions
 */
public record KubeconfigSettings(boolean enabled, String fileName, Set<PosixFilePermission> mode)
{
    public KubeconfigSettings
    {
        requireNonNull(fileName, "fileName is null");
        mode = Set.copyOf(mode);
    }
}
