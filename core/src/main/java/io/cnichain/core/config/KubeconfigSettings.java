package io.cnichain.core.config;

import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The chained plugin's kubeconfig file.
 *
 * @param enabled  whether to write one at all (a chained plugin that does not talk to the API needs none)
 * @param fileName its name in the configuration directory
 * @param mode     its permissions
 * @param serviceAccount the account whose token it holds, which the agent requests for it: the plugin's own, with only
 *                 the rights the plugin needs; empty: the agent's own token, as Linkerd's installer writes its own
 */
public record KubeconfigSettings(boolean enabled, String fileName, Set<PosixFilePermission> mode, Optional<String> serviceAccount)
{
    /** Where the agent keeps the token it requested for the plugin: a file of its own, which the loop watches as a volume. */
    public static final Path REQUESTED_TOKEN = Path.of(System.getProperty("java.io.tmpdir"), "cni-chain-plugin-token", "token");

    public KubeconfigSettings
    {
        requireNonNull(fileName, "fileName is null");
        mode = Set.copyOf(mode);
        requireNonNull(serviceAccount, "serviceAccount is null");
    }

    public KubeconfigSettings(boolean enabled, String fileName, Set<PosixFilePermission> mode)
    {
        this(enabled, fileName, mode, Optional.empty());
    }

    /** @return the token the kubeconfig holds: the one requested for the plugin's account, or the agent's own */
    public Path tokenFile(ApiServerSettings api)
    {
        return serviceAccount.isPresent() ? REQUESTED_TOKEN : api.tokenFile();
    }
}
