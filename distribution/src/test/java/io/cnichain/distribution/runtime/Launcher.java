package io.cnichain.distribution.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The real distribution's launcher, {@code distribution/target/cni-chain/bin/cni-chain}, run as a node's
 * DaemonSet runs it: the chart's environment, flags pointing at the node.
 */
final class Launcher
{
    static final Path HOME = Path.of(System.getProperty("cnichain.distribution", "target/cni-chain"));

    /** Variables of Linkerd's chart that would change what the tests mean if the caller's environment held them. */
    private static final List<String> CLEARED = List.of("DEST_CNI_NET_DIR", "DEST_CNI_BIN_DIR", "CONTAINER_MOUNT_PREFIX", "CNI_NETWORK_CONFIG",
            "CNI_NETWORK_CONFIG_FILE", "KUBECONFIG_FILE_NAME", "KUBECONFIG_MODE", "KUBE_CA_FILE", "SKIP_TLS_VERIFY", "KUBERNETES_SERVICE_PROTOCOL",
            "CNI_CHAIN_JAVA_OPTS");

    private Launcher() {}

    static Path script()
    {
        return HOME.resolve("bin/cni-chain").toAbsolutePath();
    }

    static Map<String, String> env(RuntimeNode node)
    {
        Map<String, String> env = new HashMap<>();
        CLEARED.forEach(name -> env.put(name, null));
        env.put("CONTAINER_CNI_BIN_DIR", node.imageBinDir().toString());
        env.put("KUBERNETES_SERVICE_HOST", "10.96.0.1");
        env.put("KUBERNETES_SERVICE_PORT", "443");
        return env;
    }

    static List<String> command(RuntimeNode node, String subcommand)
    {
        List<String> command = new ArrayList<>(List.of(script().toString(), subcommand));
        command.addAll(node.flags());
        return command;
    }

    /** Runs one command to its end, e.g. {@code install} or {@code uninstall}. */
    static Commands.Result run(RuntimeNode node, String subcommand)
    {
        return Commands.run(command(node, subcommand), env(node), Optional.empty(), Duration.ofSeconds(60));
    }

    /**
     * Starts a long-running command ({@code run}) with its output going to a file.
     *
     * @param log where stdout and stderr go
     */
    static Process start(RuntimeNode node, String subcommand, Path log)
    {
        return start(node, subcommand, log, Map.of());
    }

    /** {@link #start(RuntimeNode, String, Path)} with more variables, such as a pod's. */
    static Process start(RuntimeNode node, String subcommand, Path log, Map<String, String> more)
    {
        ProcessBuilder builder = new ProcessBuilder(command(node, subcommand)).redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        Commands.apply(builder.environment(), env(node));
        Commands.apply(builder.environment(), more);
        try {
            return builder.start();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
