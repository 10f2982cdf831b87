package io.cnichain.core.cli;

import io.cnichain.core.json.CniJson;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * The sandboxed nodes {@code cni-chain demo} lays out: a host root with a platform's CNI configuration and
 * binaries, an "image" directory with the chained plugin's binary, and a service account.
 */
enum DemoNode
{
    SYMLINK("OCI-style: 10-oci.conflist is a relative link to 10-oci.conflist-current, the real file",
            "10-oci.conflist-current", List.of("oci-ipvlan", "oci-ptp", "oci-ipam", "loopback")) {
        @Override
        void layOut(Path confDir)
                throws IOException
        {
            write(confDir.resolve("10-oci.conflist-current"), OCI);
            Files.createSymbolicLink(confDir.resolve("10-oci.conflist"), Path.of("10-oci.conflist-current"));
        }
    };

    static final String OCI = """
            {"name":"oci","cniVersion":"0.3.1","plugins":[{"type":"oci-ipvlan","mode":"l2","ipam":{"type":"oci-ipam"}},\
            {"type":"oci-ptp","containerInterface":"ptp-veth0","mtu":9000}]}""";

    private final String description;
    private final String focus;
    private final List<String> binaries;

    DemoNode(String description, String focus, List<String> binaries)
    {
        this.description = description;
        this.focus = focus;
        this.binaries = binaries;
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
