package io.cnichain.cli;

import io.cnichain.core.json.CniJson;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;

/**
 * The sandboxed nodes {@code cni-chain demo} lays out: a host root with a platform's CNI configuration and
 * binaries, an "image" directory with the chained plugin's binary, and a service account.
 */
enum DemoNode
{
    SYMLINK("a configuration behind a relative link, 10-oci.conflist -> 10-oci.conflist-current, decided by the "
            + "generic-symlink adapter (pinned): the runtime's own choice, followed through the link",
            "10-oci.conflist-current", List.of("oci-ipvlan", "oci-ptp", "oci-ipam", "loopback"), Optional.of("generic-symlink")) {
        @Override
        void layOut(Path confDir)
                throws IOException
        {
            write(confDir.resolve("10-oci.conflist-current"), OCI_CONFLIST);
            Files.createSymbolicLink(confDir.resolve("10-oci.conflist"), Path.of("10-oci.conflist-current"));
        }
    },
    CILIUM("Cilium: 05-cilium.conflist, and a configuration its exclusive mode renamed to *.cilium_bak",
            "05-cilium.conflist", List.of("cilium-cni", "loopback"), Optional.empty()) {
        @Override
        void layOut(Path confDir)
                throws IOException
        {
            write(confDir.resolve("05-cilium.conflist"), CILIUM_CONFLIST);
            write(confDir.resolve("10-containerd-net.conflist.cilium_bak"), CONTAINERD_NET);
        }
    },
    CALICO("Calico: 10-calico.conflist beside calico-kubeconfig and calico-tls/",
            "10-calico.conflist", List.of("calico", "calico-ipam", "portmap", "loopback"), Optional.empty()) {
        @Override
        void layOut(Path confDir)
                throws IOException
        {
            write(confDir.resolve("10-calico.conflist"), CALICO_CONFLIST);
            Files.writeString(confDir.resolve("calico-kubeconfig"), "# stand-in for Calico's kubeconfig\napiVersion: v1\nkind: Config\n");
            Files.createDirectories(confDir.resolve("calico-tls"));
        }
    },
    OCI("OCI VCN-Native: the real file 10-oci.conflist-current, exposed to the runtime by the link 10-oci.conflist",
            "10-oci.conflist-current", List.of("oci-ipvlan", "oci-ptp", "oci-ipam", "loopback"), Optional.empty()) {
        @Override
        void layOut(Path confDir)
                throws IOException
        {
            write(confDir.resolve("10-oci.conflist-current"), OCI_CONFLIST);
            Files.createSymbolicLink(confDir.resolve("10-oci.conflist"), Path.of("10-oci.conflist-current"));
        }
    };

    static final String OCI_CONFLIST = """
            {"name":"oci","cniVersion":"0.3.1","plugins":[{"type":"oci-ipvlan","mode":"l2","ipam":{"type":"oci-ipam"}},\
            {"type":"oci-ptp","containerInterface":"ptp-veth0","mtu":9000}]}""";

    static final String CILIUM_CONFLIST = """
            {"cniVersion":"0.3.1","name":"cilium","plugins":[{"type":"cilium-cni","enable-debug":false,"log-file":"/var/run/cilium/cilium-cni.log"}]}""";
    static final String CONTAINERD_NET = """
            {"cniVersion":"1.0.0","name":"containerd-net","plugins":[{"type":"bridge","bridge":"cni0","isGateway":true,"ipMasq":true,\
            "ipam":{"type":"host-local","ranges":[[{"subnet":"10.88.0.0/16"}]]}},{"type":"portmap","capabilities":{"portMappings":true}}]}""";
    static final String CALICO_CONFLIST = """
            {"name":"k8s-pod-network","cniVersion":"1.0.0","plugins":[{"type":"calico","datastore_type":"kubernetes","ipam":{"type":"calico-ipam"},\
            "kubernetes":{"kubeconfig":"/etc/cni/net.d/calico-kubeconfig"}},{"type":"portmap","snat":true,"capabilities":{"portMappings":true}}]}""";

    private final String description;
    private final String focus;
    private final List<String> binaries;
    private final Optional<String> adapter;

    DemoNode(String description, String focus, List<String> binaries, Optional<String> adapter)
    {
        this.description = description;
        this.focus = focus;
        this.binaries = binaries;
        this.adapter = adapter;
    }

    /** The adapter the demo pins, when it shows one adapter's rule rather than auto-detection. */
    Optional<String> adapter()
    {
        return adapter;
    }

    String description()
    {
        return description;
    }

    /** The conf-dir file whose before/after the demo shows. */
    String focus()
    {
        return focus;
    }

    abstract void layOut(Path confDir)
            throws IOException;

    /**
     * Creates the whole sandbox under {@code root}.
     */
    void create(Path root)
            throws IOException
    {
        Path confDir = Files.createDirectories(root.resolve("host/etc/cni/net.d"));
        Path binDir = Files.createDirectories(root.resolve("host/opt/cni/bin"));
        for (String binary : binaries) {
            executable(binDir.resolve(binary), "#!/bin/sh\n# stand-in for the platform's " + binary + " plugin\nexit 0\n");
        }
        Path image = Files.createDirectories(root.resolve("image/opt/cni/bin"));
        executable(image.resolve("linkerd-cni"), "#!/bin/sh\n# stand-in for the chained plugin shipped in the agent's image\ncat\n");
        Path serviceAccount = Files.createDirectories(root.resolve("serviceaccount"));
        Files.writeString(serviceAccount.resolve("token"), "demo-token-not-a-secret\n");
        Files.writeString(serviceAccount.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----\nZGVtbw==\n-----END CERTIFICATE-----\n");
        layOut(confDir);
    }

    static void write(Path file, String compactJson)
            throws IOException
    {
        Files.write(file, CniJson.write(CniJson.parse(compactJson.getBytes(StandardCharsets.UTF_8))));
    }

    private static void executable(Path file, String content)
            throws IOException
    {
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
