package io.cnichain.distribution.cluster;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import com.marcnuri.helm.UpgradeCommand;

import java.nio.file.Path;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * The chart as a user installs it: the packaged chart ({@code target/cni-chain-VERSION.tgz}), by Helm's own library
 * (helm-java embeds Helm's Go code, so install, upgrade and uninstall run Helm's own logic: its ordering of kinds, its
 * three-way merge, its deletion order), as release {@code cni-chain} in namespace {@code cni-chain}.
 */
final class ChartRelease
{
    static final String NAME = "cni-chain";
    static final String NAMESPACE = "cni-chain";
    /** The packaged chart, which the distribution module's package phase writes. */
    static final Path CHART = Path.of(System.getProperty("cnichain.chart", "target/cni-chain-" + System.getProperty("cnichain.version", "0.1.0") + ".tgz"));

    private final Path kubeconfig;

    ChartRelease(Path kubeconfig)
    {
        this.kubeconfig = requireNonNull(kubeconfig, "kubeconfig is null");
    }

    /** {@code helm install cni-chain CHART -n cni-chain --create-namespace --set K=V...} */
    void install(Map<String, Object> values)
    {
        Say.step("helm install " + values);
        InstallCommand install = Helm.install(CHART.toString()).withName(NAME).withNamespace(NAMESPACE).createNamespace().withKubeConfig(kubeconfig);
        for (Map.Entry<String, Object> value : values.entrySet()) {
            install = install.set(value.getKey(), value.getValue());
        }
        install.call();
    }

    /** {@code helm upgrade cni-chain CHART -n cni-chain --set K=V...}: the values given replace the release's. */
    void upgrade(Map<String, Object> values)
    {
        Say.step("helm upgrade " + values);
        UpgradeCommand upgrade = Helm.upgrade(CHART.toString()).withName(NAME).withNamespace(NAMESPACE).withKubeConfig(kubeconfig);
        for (Map.Entry<String, Object> value : values.entrySet()) {
            upgrade = upgrade.set(value.getKey(), value.getValue());
        }
        upgrade.call();
    }

    /** {@code helm uninstall cni-chain -n cni-chain}: Helm's order (the DaemonSet, then RBAC, ConfigMaps, the ServiceAccount), no wait. */
    void uninstall()
    {
        Say.step("helm uninstall");
        Helm.uninstall(NAME).withNamespace(NAMESPACE).withKubeConfig(kubeconfig).call();
    }

    /** {@code helm template cni-chain CHART -n cni-chain --set K=V...}: the objects an install of these values makes. */
    static String template(Map<String, Object> values)
    {
        com.marcnuri.helm.TemplateCommand template = Helm.template(CHART.toString()).withName(NAME).withNamespace(NAMESPACE);
        for (Map.Entry<String, Object> value : values.entrySet()) {
            template = template.set(value.getKey(), value.getValue());
        }
        return template.call();
    }

    /** Whether the release exists (for a clean-up after a failed test). */
    boolean installed()
    {
        return Helm.list().withKubeConfig(kubeconfig).withNamespace(NAMESPACE).call().stream().anyMatch(release -> release.getName().equals(NAME));
    }
}
