package io.cnichain.distribution.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.json.CniJson;
import io.cnichain.testkit.KubeletVolume;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * One test's node, on the real host: cni-chain runs with a host root of {@code /} and its conf and bin dirs
 * pointed at this node's own directories, so absolute links hold real paths that podman and the plugins read
 * too. The bin dir holds copies of the real plugins; the "image" dir holds the stand-in {@code linkerd-cni} that
 * cni-chain installs from. Each node has its own network names, bridges and subnets, and removes them on close.
 *
 * <pre>
 * ROOT/etc/cni/net.d          the conf dir (podman's network_config_dir)
 * ROOT/opt/cni/bin            the bin dir: bridge, host-local, portmap, loopback (podman's cni_plugin_dirs)
 * ROOT/image/opt/cni/bin      linkerd-cni, the stand-in (CONTAINER_CNI_BIN_DIR)
 * ROOT/serviceaccount         token and CA for the plugin's kubeconfig
 * ROOT/calls                  the stand-in's record of every call
 * </pre>
 */
public final class RuntimeNode
        implements AutoCloseable
{
    public static final String PLUGIN = "linkerd-cni";

    private final Sandbox sandbox;
    private final int index;
    private final String label;
    private final Path root;
    private final Set<String> bridges = new LinkedHashSet<>();
    private final Set<String> namespaces = new LinkedHashSet<>();
    private Optional<Path> yaml = Optional.empty();
    private boolean closed;

    private RuntimeNode(Sandbox sandbox, int index, String label, Path root)
    {
        this.sandbox = sandbox;
        this.index = index;
        this.label = label;
        this.root = root;
    }

    public static RuntimeNode create(Sandbox sandbox, int index, String label)
    {
        Path root = sandbox.dir().resolve(String.format("%02d-%s", index, label));
        RuntimeNode node = new RuntimeNode(sandbox, index, label, root);
        try {
            Files.createDirectories(node.confDir());
            Files.createDirectories(node.binDir());
            Files.createDirectories(node.imageBinDir());
            Files.createDirectories(node.callLog());
            Files.createDirectories(node.ipamDir());
            for (String plugin : RuntimeRequirements.PLUGINS) {
                Files.copy(RuntimeRequirements.PLUGIN_DIR.resolve(plugin), node.binDir().resolve(plugin));
            }
            node.writeStandIn();
            KubeletVolume.serviceAccount(node.serviceAccountDir(), "token-" + sandbox.runId() + "\n",
                    "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", "cni-chain");
            sandbox.writeContainersConf(node.containersConf(), node.confDir(), node.binDir());
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return node;
    }

    private void writeStandIn()
            throws IOException
    {
        String template;
        try (InputStream in = requireNonNull(RuntimeNode.class.getResourceAsStream("/runtime/linkerd-cni"), "stand-in resource")) {
            template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Path standIn = imageBinDir().resolve(PLUGIN);
        Files.writeString(standIn, template.replace("@LOG_DIR@", callLog().toString()));
        Files.setPosixFilePermissions(standIn, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    public String label()
    {
        return label;
    }

    public Sandbox sandbox()
    {
        return sandbox;
    }

    public Path root()
    {
        return root;
    }

    public Path confDir()
    {
        return root.resolve("etc/cni/net.d");
    }

    public Path conf(String name)
    {
        return confDir().resolve(name);
    }

    public Path binDir()
    {
        return root.resolve("opt/cni/bin");
    }

    /**
     * Puts a stand-in for {@code bridge} in the bin dir: a file that names it then runs without touching the host's
     * network (for judging whether a runtime loads a file, not what its plugins do).
     */
    public void useBridgeStub()
    {
        Path bridge = binDir().resolve("bridge");
        try (InputStream stub = requireNonNull(RuntimeNode.class.getResourceAsStream("/runtime/bridge-stub"), "bridge-stub resource")) {
            Files.copy(stub, bridge, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(bridge, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path installedPlugin()
    {
        return binDir().resolve(PLUGIN);
    }

    public Path imageBinDir()
    {
        return root.resolve("image/opt/cni/bin");
    }

    public Path serviceAccountDir()
    {
        return root.resolve("serviceaccount");
    }

    public Path callLog()
    {
        return root.resolve("calls");
    }

    public Path ipamDir()
    {
        return root.resolve("ipam");
    }

    public Path containersConf()
    {
        return root.resolve("containers.conf");
    }

    public Path kubeconfig()
    {
        return conf("ZZZ-linkerd-cni-kubeconfig");
    }

    public StandInLog standIn()
    {
        return new StandInLog(callLog());
    }

    public Podman podman()
    {
        return new Podman(sandbox, containersConf());
    }

    /** The YAML file given to every launcher run, if the layout needs one. */
    public Optional<Path> yaml()
    {
        return yaml;
    }

    /**
     * The YAML configuration the launcher gets with {@code --config}, as a pod gets it: a ConfigMap volume the kubelet
     * projected ({@link KubeletVolume}); a second call updates it as the kubelet does.
     */
    public Path yaml(String content)
    {
        Path file = KubeletVolume.project(root.resolve("config"), java.util.Map.of("cni-chain.yaml", content)).file("cni-chain.yaml");
        yaml = Optional.of(file);
        return file;
    }

    /** A network name unique to this run; podman finds a network by it. */
    public String network(String suffix)
    {
        return sandbox.networkPrefix() + index + "-" + suffix;
    }

    /** A bridge name unique to this run, at most 15 characters. */
    public String bridge(String suffix)
    {
        String name = sandbox.bridgePrefix() + String.format("%02d", index) + suffix;
        if (name.length() > 15) {
            throw new IllegalArgumentException("bridge name too long: " + name);
        }
        bridges.add(name);
        return name;
    }

    /** A network namespace for driving the plugins directly, deleted on close. */
    public Path namespace(String suffix)
    {
        String name = sandbox.networkPrefix() + index + "-" + suffix;
        namespaces.add(name);
        return Network.addNamespace(name);
    }

    /**
     * The platform's own plugins, made of real ones: {@code bridge} (with {@code host-local} addresses) and
     * {@code portmap}.
     *
     * @param bridge the bridge's name
     * @param subnet the pod subnet
     * @return the plugin list
     */
    public ArrayNode primaryPlugins(String bridge, String subnet)
    {
        ArrayNode plugins = CniJson.mapper().createArrayNode();
        plugins.add(bridgePlugin(bridge, subnet));
        ObjectNode portmap = plugins.addObject();
        portmap.put("type", "portmap");
        portmap.putObject("capabilities").put("portMappings", true);
        portmap.put("snat", true);
        return plugins;
    }

    public ObjectNode bridgePlugin(String bridge, String subnet)
    {
        ObjectNode plugin = CniJson.mapper().createObjectNode();
        plugin.put("type", "bridge");
        plugin.put("bridge", bridge);
        plugin.put("isGateway", true);
        plugin.put("ipMasq", true);
        plugin.put("hairpinMode", true);
        ObjectNode ipam = plugin.putObject("ipam");
        ipam.put("type", "host-local");
        ipam.put("dataDir", ipamDir().toString());
        ipam.putArray("ranges").addArray().addObject().put("subnet", subnet);
        ipam.putArray("routes").addObject().put("dst", "0.0.0.0/0");
        return plugin;
    }

    /** A conflist of the primary plugins. */
    public String primaryList(String network, String cniVersion, String bridge, String subnet)
    {
        ObjectNode list = CniJson.mapper().createObjectNode();
        list.put("cniVersion", cniVersion);
        list.put("name", network);
        list.set("plugins", primaryPlugins(bridge, subnet));
        return new String(CniJson.write(list), StandardCharsets.UTF_8);
    }

    /** A single-plugin configuration ({@code .conf}): the bridge alone. */
    public String primarySingle(String network, String cniVersion, String bridge, String subnet)
    {
        ObjectNode single = CniJson.mapper().createObjectNode();
        single.put("cniVersion", cniVersion);
        single.put("name", network);
        single.setAll(bridgePlugin(bridge, subnet));
        return new String(CniJson.write(single), StandardCharsets.UTF_8);
    }

    /** The flags every launcher run gets: the host itself as the host root, this node's dirs. */
    public List<String> flags()
    {
        List<String> flags = new ArrayList<>(List.of("--host-root", "/", "--conf-dir", confDir().toString(), "--bin-dir", binDir().toString(),
                "--service-account-dir", serviceAccountDir().toString()));
        yaml.ifPresent(file -> flags.addAll(List.of("--config", file.toString())));
        return flags;
    }

    public Commands.Result install()
    {
        return Launcher.run(this, "install");
    }

    public Commands.Result uninstall()
    {
        return Launcher.run(this, "uninstall");
    }

    public static String read(Path file)
    {
        try {
            return Files.readString(file);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static JsonNode json(Path file)
    {
        try {
            return CniJson.parse(Files.readAllBytes(file));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<String> pluginTypes(JsonNode config)
    {
        List<String> types = new ArrayList<>();
        if (config.has("plugins")) {
            config.get("plugins").forEach(plugin -> types.add(plugin.path("type").asText()));
        }
        else {
            types.add(config.path("type").asText());
        }
        return types;
    }

    /** Removes the node's containers, namespaces, bridges and files; best effort, everything is tried. */
    @Override
    public void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        List<String> problems = new ArrayList<>();
        Sandbox.bestEffort(problems, "containers", () -> podman().removeAll());
        for (String namespace : namespaces) {
            Sandbox.bestEffort(problems, "namespace " + namespace, () -> Network.deleteNamespace(namespace));
        }
        for (String bridge : bridges) {
            Sandbox.bestEffort(problems, "bridge " + bridge, () -> Network.deleteLink(bridge));
        }
        Sandbox.bestEffort(problems, "files", () -> Sandbox.deleteTree(root));
        sandbox.closed(this);
        if (!problems.isEmpty()) {
            Steps.say("cleanup of node " + label + " was incomplete: " + problems);
        }
    }
}
