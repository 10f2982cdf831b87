package io.cnichain.distribution.kubernetes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What Linkerd's {@code linkerd2-cni} chart gives its {@code install-cni} container, from the linkerd overlay's
 * copy of the chart's ConfigMap (the same file the manifest tests check the overlay renders).
 */
public final class LinkerdChart
{
    private LinkerdChart() {}

    /** The chart's {@code cni_network_config}, as rendered with its default values. */
    public static String cniNetworkConfig()
    {
        try {
            return Files.readString(Kustomize.MANIFESTS.resolve("overlays/linkerd/cni_network_config"));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The chart's environment for {@code install-cni}, for a node with these host paths.
     *
     * @param confDir the ConfigMap's {@code dest_cni_net_dir}
     * @param binDir  the ConfigMap's {@code dest_cni_bin_dir}
     */
    public static Map<String, String> installCniEnvironment(Path confDir, Path binDir)
    {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("DEST_CNI_NET_DIR", confDir.toString());
        env.put("DEST_CNI_BIN_DIR", binDir.toString());
        env.put("CNI_NETWORK_CONFIG", cniNetworkConfig());
        env.put("SLEEP", "true");
        return env;
    }
}
