package io.cnichain.distribution.kubernetes;

import java.nio.file.Path;

/** Every kustomization under {@code distribution/kubernetes}, with the node layout it is for. */
enum Overlay
{
    BASE("base", "/etc/cni/net.d", "/opt/cni/bin", "auto"),
    K3S("overlays/k3s", "/var/lib/rancher/k3s/agent/etc/cni/net.d", "/var/lib/rancher/k3s/data/current/bin", "auto"),
    GKE("overlays/gke", "/etc/cni/net.d", "/home/kubernetes/bin", "auto"),
    MICROK8S("overlays/microk8s", "/var/snap/microk8s/current/args/cni-network", "/var/snap/microk8s/current/opt/cni/bin", "auto"),
    OKE("overlays/oke", "/etc/cni/net.d", "/opt/cni/bin", "oci-vcn-native"),
    LINKERD("overlays/linkerd", "/etc/cni/net.d", "/opt/cni/bin", "auto");

    private final String dir;
    private final Path confDir;
    private final Path binDir;
    private final String adapter;

    Overlay(String dir, String confDir, String binDir, String adapter)
    {
        this.dir = dir;
        this.confDir = Path.of(confDir);
        this.binDir = Path.of(binDir);
        this.adapter = adapter;
    }

    Path dir()
    {
        return Kustomize.MANIFESTS.resolve(dir);
    }

    String relative()
    {
        return dir;
    }

    /** Host path of the CNI configuration directory on such nodes. */
    Path confDir()
    {
        return confDir;
    }

    /** Host path of the CNI binary directory on such nodes. */
    Path binDir()
    {
        return binDir;
    }

    /** The adapter choice, as {@code AdapterChoice.toString()} prints it. */
    String adapter()
    {
        return adapter;
    }
}
