package io.cnichain.core.config;

import java.nio.file.Path;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * How the chained plugin (and the agent) reach the Kubernetes API: the service environment Kubernetes sets in every
 * pod, and the pod's service-account token and CA.
 *
 * @param serviceAccountDir container path of the service-account token and CA
 * @param caFile            the CA certificate to trust (a container path); defaults to the service account's
 * @param skipTlsVerify     trust any server certificate ({@code insecure-skip-tls-verify})
 * @param protocol          the API server URL's scheme
 * @param host              the API server's host ({@code KUBERNETES_SERVICE_HOST})
 * @param port              the API server's port ({@code KUBERNETES_SERVICE_PORT})
 */
public record ApiServerSettings(Path serviceAccountDir, Optional<Path> caFile, boolean skipTlsVerify, String protocol, Optional<String> host,
        Optional<String> port)
{
    public ApiServerSettings
    {
        requireNonNull(serviceAccountDir, "serviceAccountDir is null");
        requireNonNull(caFile, "caFile is null");
        requireNonNull(protocol, "protocol is null");
        requireNonNull(host, "host is null");
        requireNonNull(port, "port is null");
    }

    /** The CA file actually used: the configured one or the service account's {@code ca.crt}. */
    public Path effectiveCaFile()
    {
        return caFile.orElse(serviceAccountDir.resolve("ca.crt"));
    }

    /** The service-account token file. */
    public Path tokenFile()
    {
        return serviceAccountDir.resolve("token");
    }
}
