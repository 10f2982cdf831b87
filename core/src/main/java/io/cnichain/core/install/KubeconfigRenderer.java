package io.cnichain.core.install;

import java.util.Base64;
import java.util.Optional;

/**
 * Renders the chained plugin's kubeconfig in the shape Linkerd's installer writes (same cluster, user and
 * context names, which the plugin relies on), in two forms: the real one and one with the token redacted,
 * the only form that may reach a log.
 */
public final class KubeconfigRenderer
{
    /** The first line, as Linkerd's installer writes it: how a kubeconfig is known to be ours (or its). */
    public static final String HEADER = "# Kubeconfig file for linkerd CNI plugin.\n";

    private static final String REDACTED = "<redacted>";

    private KubeconfigRenderer() {}

    /**
     * @param server the API server URL
     * @param token  the service-account token
     * @param ca     the CA certificate (PEM), absent when TLS verification is skipped
     * @return both forms
     */
    public static Rendered render(String server, String token, Optional<byte[]> ca)
    {
        return new Rendered(render(server, token, ca, false), render(server, token, ca, true));
    }

    /**
     * @param protocol {@code https} or {@code http}
     * @param host     the API server host; an IPv6 address gets brackets, anything else none
     * @param port     the port
     * @return the URL
     */
    public static String serverUrl(String protocol, String host, String port)
    {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        String authority = bare.contains(":") ? "[" + bare + "]" : bare;
        return protocol + "://" + authority + ":" + port;
    }

    private static String render(String server, String token, Optional<byte[]> ca, boolean redact)
    {
        String tls = ca.isPresent() ? "    certificate-authority-data: " + Base64.getEncoder().encodeToString(ca.get()) : "    insecure-skip-tls-verify: true";
        return HEADER + """
                apiVersion: v1
                kind: Config
                clusters:
                - name: local
                  cluster:
                    server: %s
                %s
                users:
                - name: linkerd-cni
                  user:
                    token: %s
                contexts:
                - name: linkerd-cni-context
                  context:
                    cluster: local
                    user: linkerd-cni
                current-context: linkerd-cni-context
                """.formatted(server, tls, redact ? REDACTED : token);
    }

    /**
     * @param full     the kubeconfig to write
     * @param redacted the same without the token, for logs
     */
    public record Rendered(String full, String redacted)
    {
        @Override
        public String toString()
        {
            return redacted;
        }
    }
}
