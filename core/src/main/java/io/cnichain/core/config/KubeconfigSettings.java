package io.cnichain.core.config;

import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Optional;
import java.util.Set;

/**
 * How the chained plugin's kubeconfig is written.
 *
 * @param enabled       whether to write one at all (a chained plugin that does not talk to the API needs none)
 * @param fileName      its name in the configuration directory
 * @param mode          its permissions
 * @param caFile        the CA certificate to embed (a path the agent sees); defaults to the service account's
 * @param skipTlsVerify write {@code insecure-skip-tls-verify: true} instead of a CA
 * @param protocol      the API server URL's scheme
 * @param serviceHost   the API server's host ({@code KUBERNETES_SERVICE_HOST})
 * @param servicePort   the API server's port ({@code KUBERNETES_SERVICE_PORT})
 */
public record KubeconfigSettings(
        boolean enabled,
        String fileName,
        Set<PosixFilePermission> mode,
        Optional<Path> caFile,
        boolean skipTlsVerify,
        String protocol,
        Optional<String> serviceHost,
        Optional<String> servicePort)
{
    public KubeconfigSettings
    {
        mode = Set.copyOf(mode);
    }
}
