package io.cnichain.testkit;

import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ConfigLoader;
import io.cnichain.core.discovery.NodeLayout;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.json.CniJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A node on disk for tests: a host root in a temp directory with {@code /etc/cni/net.d} and
 * {@code /opt/cni/bin}, an "image" directory holding the chained plugin's binary, and a service account.
 * Everything is real: files, links, modes. Besides writing files, it changes them the ways primaries do
 * ({@link #replaceAtomically}, {@link #rewriteInPlace}, {@link #moveIn}, {@link #relink}), for tests of the agent.
 * (Longer than 300 lines: it is the kit's one entry point, a few lines per way a node changes.)
 */
public final class TestNode
{
    public static final Path CONF_DIR = Path.of("/etc/cni/net.d");
    public static final Path BIN_DIR = Path.of("/opt/cni/bin");

    public static final String CILIUM = """
            {"cniVersion":"0.3.1","name":"cilium","plugins":[{"type":"cilium-cni","enable-debug":false,"log-file":"/var/run/cilium/cilium-cni.log"}]}""";
    public static final String CALICO = """
            {"name":"k8s-pod-network","cniVersion":"1.0.0","plugins":[{"type":"calico","datastore_type":"kubernetes","ipam":{"type":"calico-ipam"},\
            "kubernetes":{"kubeconfig":"/etc/cni/net.d/calico-kubeconfig"}},{"type":"portmap","snat":true,"capabilities":{"portMappings":true}}]}""";
    public static final String OCI = """
            {"name":"oci","cniVersion":"0.3.1","plugins":[{"type":"oci-ipvlan","mode":"l2","ipam":{"type":"oci-ipam"}},\
            {"type":"oci-ptp","containerInterface":"ptp-veth0","mtu":9000}]}""";
    public static final String CILIUM_CONF = """
            {"cniVersion":"0.3.1","name":"cilium","type":"cilium-cni","enable-debug":false}""";

    private final Path root;
    private final Path hostRoot;
    private final Map<String, String> env = new HashMap<>();

    private TestNode(Path root)
    {
        this.root = root;
        this.hostRoot = root.resolve("host");
    }

    /**
     * @param root an empty temp directory
     * @return a node with an empty conf dir, a bin dir, the plugin binary in the image, and a service account
     */
    public static TestNode create(Path root)
    {
        TestNode node = new TestNode(root);
        try {
            Files.createDirectories(node.confDir());
            Files.createDirectories(node.binDir());
            Path image = Files.createDirectories(root.resolve("image/opt/cni/bin"));
            node.executable(image.resolve("linkerd-cni"), "#!/bin/sh\ncat\n");
            KubeletVolume.serviceAccount(root.resolve("serviceaccount"), "token-one\n", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
                    "cni-chain");
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        node.env.put("CONTAINER_CNI_BIN_DIR", image(root).toString());
        node.env.put("KUBERNETES_SERVICE_HOST", "10.96.0.1");
        node.env.put("KUBERNETES_SERVICE_PORT", "443");
        return node;
    }

    private static Path image(Path root)
    {
        return root.resolve("image/opt/cni/bin");
    }

    public Path root()
    {
        return root;
    }

    /** Where the host's / is. */
    public Path hostRoot()
    {
        return hostRoot;
    }

    /** The conf dir as the agent sees it. */
    public Path confDir()
    {
        return host(CONF_DIR);
    }

    /** The bin dir as the agent sees it. */
    public Path binDir()
    {
        return host(BIN_DIR);
    }

    public Path imageBinDir()
    {
        return image(root);
    }

    /** The projected service-account volume (token, ca.crt, namespace), laid out as the kubelet does: {@link KubeletVolume}. */
    public Path serviceAccountDir()
    {
        return root.resolve("serviceaccount");
    }

    /** @return the service-account volume, to rotate the token as the kubelet does */
    public KubeletVolume serviceAccount()
    {
        return KubeletVolume.at(serviceAccountDir());
    }

    /** A host path as the agent sees it. */
    public Path host(Path hostPath)
    {
        return hostRoot.resolve(Path.of("/").relativize(hostPath).toString());
    }

    public Path host(String hostPath)
    {
        return host(Path.of(hostPath));
    }

    /** A conf-dir file as the agent sees it. */
    public Path conf(String name)
    {
        return confDir().resolve(name);
    }

    public Map<String, String> env()
    {
        return env;
    }

    /** Writes a conf-dir file, pretty-printing it when it is JSON. */
    public Path write(String name, String content)
    {
        return writeAt(conf(name), content);
    }

    /** Writes a file at a path as the agent sees it. */
    public Path writeAt(Path file, String content)
    {
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, bytes(content));
            return file;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Replaces a conf-dir file the way Cilium and OCI do: writes a hidden temp file beside it, then renames it over
     * the file (one event for the name: a creation). JSON is pretty-printed, as by {@link #write}.
     *
     * @return the file
     */
    public Path replaceAtomically(String name, String content)
    {
        return replaceAtomicallyAt(conf(name), content);
    }

    /** {@link #replaceAtomically(String, String)} for a file anywhere, as the agent sees it. */
    public Path replaceAtomicallyAt(Path file, String content)
    {
        try {
            Path temp = file.resolveSibling("." + file.getFileName() + ".primary-tmp");
            Files.write(temp, bytes(content));
            return Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Rewrites a conf-dir file in place the way Calico does: truncates it, then writes the new content into the
     * same inode (events: modifications). JSON is pretty-printed, as by {@link #write}; content that is not JSON,
     * such as the first part of a file, is written as it is.
     *
     * @return the file
     */
    public Path rewriteInPlace(String name, String content)
    {
        return rewriteInPlaceAt(conf(name), content);
    }

    /** {@link #rewriteInPlace(String, String)} for a file anywhere, as the agent sees it. */
    public Path rewriteInPlaceAt(Path file, String content)
    {
        try {
            return Files.write(file, bytes(content), StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Moves a file prepared elsewhere on the node into the conf dir in one rename, as the AWS VPC CNI does.
     *
     * @param prepared the prepared file, as the agent sees it, on the same filesystem
     * @param name     its name in the conf dir
     * @return the file in the conf dir
     */
    public Path moveIn(Path prepared, String name)
    {
        try {
            return Files.move(prepared, conf(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Points a conf-dir link somewhere else in one rename, as {@code ln -sfn} does: a new link under a temp name,
     * renamed over the old one (one event for the name: a creation).
     *
     * @param target the new target text (relative, or an absolute host path)
     * @return the link
     */
    public Path relink(String name, String target)
    {
        Path link = conf(name);
        try {
            Path temp = Files.createSymbolicLink(link.resolveSibling("." + name + ".relink-tmp"), Path.of(target));
            return Files.move(temp, link, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] bytes(String content)
    {
        try {
            return CniJson.write(CniJson.parse(content.getBytes(StandardCharsets.UTF_8)));
        }
        catch (RuntimeException notJson) {
            return content.getBytes(StandardCharsets.UTF_8);
        }
    }

    /** Creates a conf-dir symlink with the given target text (relative, or an absolute host path). */
    public Path link(String name, String target)
    {
        return linkAt(conf(name), target);
    }

    public Path linkAt(Path link, String target)
    {
        try {
            Files.createDirectories(link.getParent());
            return Files.createSymbolicLink(link, Path.of(target));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Puts stand-ins for the primary's binaries into the bin dir. */
    public TestNode binaries(String... names)
    {
        for (String name : names) {
            executable(binDir().resolve(name), "#!/bin/sh\nexit 0\n");
        }
        return this;
    }

    public String read(String name)
    {
        return readAt(conf(name));
    }

    public String readAt(Path file)
    {
        try {
            return Files.readString(file);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code mkfifo}. */
    public Path fifo(Path file)
    {
        try {
            Files.createDirectories(file.getParent());
            Process process = new ProcessBuilder("mkfifo", file.toString()).inheritIO().start();
            if (process.waitFor() != 0) {
                throw new IOException("mkfifo failed for " + file);
            }
            return file;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void executable(Path file, String content)
    {
        try {
            Files.writeString(file, content);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Command-line flags pointing the agent at this node. */
    public List<String> flags()
    {
        return List.of("--host-root", hostRoot.toString(), "--service-account-dir", serviceAccountDir().toString());
    }

    /** The agent configuration for this node, with optional YAML. */
    public AgentConfig config(Optional<Path> yaml)
    {
        return ConfigLoader.load(yaml, env, Map.of("--host-root", hostRoot.toString(), "--service-account-dir", serviceAccountDir().toString()));
    }

    public AgentConfig config()
    {
        return config(Optional.empty());
    }

    public NodeLayout layout()
    {
        return config().layout();
    }

    public NodeSnapshot snapshot()
    {
        return layout().snapshot();
    }

    /** The conf dir's entries, name and kind, for layout assertions. */
    public List<String> listing()
    {
        try (var stream = Files.list(confDir())) {
            return stream.map(p -> p.getFileName() + (Files.isSymbolicLink(p) ? " -> " + readLink(p) : ""))
                    .sorted()
                    .toList();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String readLink(Path link)
    {
        try {
            return Files.readSymbolicLink(link).toString();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
