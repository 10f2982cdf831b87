package io.cnichain.core.config;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.core.json.GoJsonParser;
import io.cnichain.core.json.JsonTrees;

import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Every setting of the agent, once: its YAML key, environment variable, flag, type, default and meaning. The
 * loader reads the YAML file, the environment and the flags from this table, and the configuration
 * reference is rendered from it ({@link #markdownTable()}).
 */
public final class Settings
{
    public static final Setting<AdapterChoice> ADAPTER = Setting.of("adapter", new AdapterTypes.Choice(), AdapterChoice.auto(),
            "`auto`, a name, or a list tried in order").commonListFlag("--adapter", "NAME");
    public static final Setting<Path> HOST_ROOT = Setting.of("hostRoot", new SettingType.AbsolutePath(), ConfigLoader.DEFAULT_HOST_ROOT,
            "where the host's `/` is mounted").env("CONTAINER_MOUNT_PREFIX").commonFlag("--host-root", "DIR");
    public static final Setting<Path> CONF_DIR = Setting.of("confDir", new SettingType.AbsolutePath(), ConfigLoader.DEFAULT_CONF_DIR,
            "host path of the CNI configuration directory; when it is reached through a link (k3s-style), the agent works in the "
                    + "directory the link leads to, under the host root").env("DEST_CNI_NET_DIR").commonFlag("--conf-dir", "DIR");
    public static final Setting<Path> BIN_DIR = Setting.of("binDir", new SettingType.AbsolutePath(), ConfigLoader.DEFAULT_BIN_DIR,
            "host path of the CNI binary directory").env("DEST_CNI_BIN_DIR").commonFlag("--bin-dir", "DIR");
    public static final Setting<Path> SOURCE_BIN_DIR = Setting.of("sourceBinDir", new SettingType.AbsolutePath(), ConfigLoader.DEFAULT_SOURCE_BIN_DIR,
            "container path of the binaries to install (every regular file)").env("CONTAINER_CNI_BIN_DIR");
    public static final Setting<Path> PLUGINS_DIR = Setting.of("pluginsDir", new SettingType.AbsolutePath(), ConfigLoader.DEFAULT_PLUGINS_DIR,
            "third-party adapter jars; refused unless writable by root only ([`adapters/README.md`](../adapters/README.md))").commonFlag("--plugins-dir", "DIR");
    public static final Setting<Path> SERVICE_ACCOUNT_DIR = Setting.of("serviceAccountDir", new SettingType.AbsolutePath(),
            ConfigLoader.DEFAULT_SERVICE_ACCOUNT_DIR, "token and CA for the kubeconfig").commonFlag("--service-account-dir", "DIR");
    public static final Setting<List<Path>> ALLOWED_ROOTS = Setting.withoutDefault("allowedRoots", new SettingType.PathList(),
            "parent of `confDir` (and of the directory a linked `confDir` leads to)",
            "host directories links may resolve into; others are reported, never written");
    public static final Setting<Long> MAX_CONFIG_BYTES = Setting.of("maxConfigBytes", new SettingType.WholeNumber(1024, 64L * 1024 * 1024),
            BoundedFileReader.DEFAULT_LIMIT, "larger files are refused without being read whole");
    public static final Setting<PluginEntry> PLUGIN = Setting.of("plugin", new PluginEntryType(), linkerdEntry(),
                    "the chained entry; `__KUBECONFIG_FILEPATH__` becomes the kubeconfig's host path; its `type` must be a plain binary name; "
                            + "the file named by `" + PluginEntryType.FILE_VARIABLE + "` wins when it exists")
            .defaultDoc("Linkerd's entry").env(PluginEntryType.FILE_VARIABLE, PluginEntryType.JSON_VARIABLE);
    public static final Setting<Placement> PLACEMENT = Setting.of("placement", new SettingType.Placements(), Placement.PATCH,
            "where the entry goes: `patch` appends it to the primary's list (every runtime runs it); `drop-in` writes it to "
                    + "`<confDir>/<network name>/<type>.conf` and leaves the primary's file as it is (only libcni 1.3 runtimes run it: "
                    + "containerd 2.1 and later, CRI-O 1.33 and later; a single-plugin network or `loadOnlyInlinedPlugins: true` fails install); "
                    + "`auto` is `drop-in` where the Node's `containerRuntimeVersion` says such a runtime (needs `NODE_NAME` and RBAC `get` on "
                    + "nodes) and `patch` otherwise, also for a network that cannot take a drop-in")
            .env("CNI_CHAIN_PLACEMENT").commonFlag("--placement", "MODE");
    public static final Setting<Boolean> KUBECONFIG_ENABLED = Setting.of("kubeconfig.enabled", new SettingType.Bool(), true,
            "write a kubeconfig for the plugin");
    public static final Setting<String> KUBECONFIG_FILE_NAME = Setting.of("kubeconfig.fileName", new KubeconfigTypes.FileName(),
            ConfigLoader.DEFAULT_KUBECONFIG_NAME, "its name in `confDir`; never ending in `.conf`, `.conflist` or `.json`, which the runtime "
                    + "would load, nor in `.conf-current`, `.conflist-current` or `.json-current`, which an adapter would take for a "
                    + "configuration (exit 2)")
            .env("KUBECONFIG_FILE_NAME");
    public static final Setting<Set<PosixFilePermission>> KUBECONFIG_MODE = Setting.of("kubeconfig.mode", new KubeconfigTypes.Mode(),
            PosixFilePermissions.fromString("rw-------"), "its mode; write access for its group or others is refused (exit 2), read "
                    + "access for its group or others is logged as a warning").env("KUBECONFIG_MODE");
    public static final Setting<String> KUBECONFIG_SERVICE_ACCOUNT = Setting.withoutDefault("kubeconfig.serviceAccount",
            new NodeTaintTypes.ObjectName("a service account name"), "none: the agent's own token",
            "a service account in the agent's namespace whose token the kubeconfig holds instead of the agent's: the agent requests it "
                    + "(TokenRequest, bound to its node, one hour, renewed before it ends), so the token on the node's disk carries only the "
                    + "plugin's rights; needs `POD_NAMESPACE`, `NODE_NAME` and RBAC `create` on that account's `serviceaccounts/token`")
            .env("CNI_CHAIN_PLUGIN_SERVICE_ACCOUNT");
    public static final Setting<Path> KUBECONFIG_CA_FILE = Setting.withoutDefault("kubeconfig.caFile", new SettingType.AbsolutePath(),
            "`<serviceAccountDir>/ca.crt`", "CA to embed").env("KUBE_CA_FILE");
    public static final Setting<Boolean> KUBECONFIG_SKIP_TLS_VERIFY = Setting.of("kubeconfig.skipTlsVerify", new SettingType.Bool(), false,
            "`insecure-skip-tls-verify` instead of a CA").env("SKIP_TLS_VERIFY");
    public static final Setting<String> API_SERVER_PROTOCOL = Setting.environmentOnly("KUBERNETES_SERVICE_PROTOCOL",
            new SettingType.OneOf(Set.of("https", "http")), "https", "API server URL scheme, `https` or `http`");
    public static final Setting<String> API_SERVER_HOST = Setting.environmentOnlyWithoutDefault("KUBERNETES_SERVICE_HOST", new ApiServerHost(),
            "set by Kubernetes", "API server host: an IPv4 address, an IPv6 address (the URL adds brackets) or a DNS name");
    public static final Setting<String> API_SERVER_PORT = Setting.environmentOnlyWithoutDefault("KUBERNETES_SERVICE_PORT", new NetworkTypes.PortNumber(),
            "set by Kubernetes", "API server port");
    public static final Setting<Map<String, Map<String, String>>> ADAPTER_SETTINGS = Setting.of("adapters", new AdapterTypes.SettingsByAdapter(),
            Map.of(), "per-adapter settings; unknown keys are errors naming the adapter");
    public static final Setting<Map<String, String>> ADAPTER_OVERRIDES = Setting.of("adapterOverrides", new AdapterTypes.Overrides(), Map.of(),
            "who provides an adapter name given twice (plugin vs built-in, or two plugins): `built-in` or a `Plugin-Id`; without it such "
                    + "a clash is an error (exit 2) naming both");
    public static final Setting<String> LOG_LEVEL = Setting.of("logLevel", new SettingType.OneOf(Set.of("trace", "debug", "info", "warn", "error")),
            "info", "`trace`, `debug`, `info`, `warn`, `error`").commonFlag("--log-level", "LEVEL");
    public static final Setting<String> LOG_FORMAT = Setting.of("logFormat", new SettingType.OneOf(Set.of("text", "json")), "text",
            "`text` or `json`").commonFlag("--log-format", "FORMAT");
    public static final Setting<Long> HEALTH_PORT = Setting.of("healthPort", new SettingType.WholeNumber(0, 65535),
            (long) ConfigLoader.DEFAULT_HEALTH_PORT, "the agent's health and metrics port, `0` disables").runFlag("--health-port", "PORT");
    public static final Setting<String> HEALTH_ADDRESS = Setting.of("healthAddress", new NetworkTypes.IpAddress(), ConfigLoader.DEFAULT_HEALTH_ADDRESS,
            "the address the health port listens on: loopback by default (the probes say `host: 127.0.0.1`), so that no pod can reach, "
                    + "stall or read it; `0.0.0.0` or the node's address to open all three to others").runFlag("--health-address", "IP");
    public static final Setting<String> METRICS_ADDRESS = Setting.of("metricsAddress", new NetworkTypes.ListenAddress(), "",
            "an address and port (`10.0.0.7:9471`, `[::]:9471`) where a listener of its own serves `/metrics` alone, for a scraper "
                    + "elsewhere; empty: `/metrics` only on the health listener").runFlag("--metrics-address", "IP:PORT");
    public static final Setting<CleanupMode> CLEANUP_ON_SHUTDOWN = Setting.of("cleanupOnShutdown", new SettingType.CleanupModes(), CleanupMode.AUTO,
            "what `run` does with what it installed when it stops: `auto` keeps it while the agent's DaemonSet exists and still places a pod "
                    + "on this node (a rolling update, a restart, a node shutdown) and removes it otherwise, asking the API server; outside a "
                    + "cluster (no `POD_NAME`, `POD_NAMESPACE`, `NODE_NAME` or `KUBERNETES_SERVICE_HOST`) it removes it; `always` removes it; "
                    + "`never` keeps it; `true` and `false` mean `always` and `never`").negatingRunFlag("--no-cleanup");
    public static final Setting<Duration> SHUTDOWN_TIMEOUT = Setting.of("shutdownTimeoutSeconds", new SettingType.Seconds(1, 3600),
            ConfigLoader.DEFAULT_SHUTDOWN_TIMEOUT, "bound on cleanup at shutdown").runFlag("--shutdown-timeout", "SECONDS");
    public static final Setting<Duration> PERIODIC_CHECK = Setting.of("periodicCheckSeconds", new SettingType.Seconds(0, 86400),
            ConfigLoader.DEFAULT_PERIODIC_CHECK, "how often `run` checks, without any event, that every directory it wants is watched and "
                    + "that the runtime's file is as the last pass left it; a difference is a missed event: a warning, "
                    + "`cnichain_missed_events_total`, and a pass that repairs it; a pass that failed is made again; `0` never checks");
    public static final Setting<Boolean> NODE_TAINT_ENABLED = Setting.of("nodeTaint.enabled", new SettingType.Bool(), false,
            "`run` removes the taint `nodeTaint.key` from its own node once ready; needs `NODE_NAME`, RBAC `get` and `patch` on nodes, "
                    + "and https to the API server with the CA of `kubeconfig.caFile` (`skipTlsVerify` does not apply)").env("NODE_TAINT_ENABLED");
    public static final Setting<String> NODE_TAINT_KEY = Setting.of("nodeTaint.key", new NodeTaintTypes.TaintKey(), ConfigLoader.DEFAULT_NODE_TAINT_KEY,
            "the start-up taint's key; every taint with it is removed, whatever its value and effect; never added back").env("NODE_TAINT_KEY");
    public static final Setting<String> NODE_NAME = Setting.environmentOnlyWithoutDefault("NODE_NAME", new NodeTaintTypes.ObjectName("a node name"),
            "from the downward API", "this node's name (`fieldRef: spec.nodeName`); required when `nodeTaint.enabled` is true (else exit 2)");
    public static final Setting<String> POD_NAME = Setting.environmentOnlyWithoutDefault("POD_NAME", new NodeTaintTypes.ObjectName("a pod name"),
            "from the downward API", "the agent's pod (`fieldRef: metadata.name`); with `POD_NAMESPACE` and `NODE_NAME`, lets "
                    + "`cleanupOnShutdown: auto` ask the API server whether its DaemonSet still runs on this node");
    public static final Setting<String> POD_NAMESPACE = Setting.environmentOnlyWithoutDefault("POD_NAMESPACE",
            new NodeTaintTypes.ObjectName("a namespace name"), "from the downward API", "the agent's namespace (`fieldRef: metadata.namespace`)");

    /** The table, in the reference's order. */
    public static final List<Setting<?>> ALL = List.of(ADAPTER, HOST_ROOT, CONF_DIR, BIN_DIR, SOURCE_BIN_DIR, PLUGINS_DIR, SERVICE_ACCOUNT_DIR,
            ALLOWED_ROOTS, MAX_CONFIG_BYTES, PLUGIN, PLACEMENT, KUBECONFIG_ENABLED, KUBECONFIG_FILE_NAME, KUBECONFIG_MODE, KUBECONFIG_SERVICE_ACCOUNT, KUBECONFIG_CA_FILE,
            KUBECONFIG_SKIP_TLS_VERIFY, API_SERVER_PROTOCOL, API_SERVER_HOST, API_SERVER_PORT, ADAPTER_SETTINGS, ADAPTER_OVERRIDES, LOG_LEVEL,
            LOG_FORMAT, HEALTH_PORT, HEALTH_ADDRESS, METRICS_ADDRESS, CLEANUP_ON_SHUTDOWN, SHUTDOWN_TIMEOUT, PERIODIC_CHECK, NODE_TAINT_ENABLED, NODE_TAINT_KEY, NODE_NAME, POD_NAME,
            POD_NAMESPACE);

    private Settings() {}

    /** Every key the YAML file may hold, dotted ({@code kubeconfig.mode}, {@code plugin.type}). */
    public static List<String> yamlKeys()
    {
        return ALL.stream().flatMap(setting -> setting.yamlKeys().stream()).toList();
    }

    /**
     * @param name a flag, such as {@code --conf-dir}
     * @return the setting it sets
     */
    public static Optional<Setting<?>> forFlag(String name)
    {
        for (Setting<?> setting : ALL) {
            if (setting.flag().isPresent() && setting.flag().get().name().equals(name)) {
                return Optional.of(setting);
            }
        }
        return Optional.empty();
    }

    /** The reference table (Markdown): YAML key, flag, environment, default, meaning; one row per setting. */
    public static String markdownTable()
    {
        StringBuilder table = new StringBuilder("| YAML key | flag | environment | default | meaning |\n|---|---|---|---|---|\n");
        for (Setting<?> setting : ALL) {
            String flag = setting.flag().map(f -> code((f.scope() == Setting.FlagScope.RUN ? "run " : "") + f.name())).orElse("");
            List<String> cells = List.of(codes(setting.documentedKeys()), flag, codes(setting.environment()), setting.defaultDoc(), setting.doc() + range(setting.type()));
            table.append('|');
            for (String cell : cells) {
                table.append(cell.isEmpty() ? " " : " " + cell.replace("|", "\\|") + " ").append('|');
            }
            table.append('\n');
        }
        return table.toString();
    }

    /** The bounds a number's type enforces (a value outside them is an error, exit 2), for the meaning cell. */
    private static String range(SettingType<?> type)
    {
        if (type instanceof SettingType.WholeNumber number) {
            return "; from " + number.min() + " to " + number.max();
        }
        if (type instanceof SettingType.Seconds seconds) {
            return "; in seconds, from " + seconds.min() + " to " + seconds.max();
        }
        return "";
    }

    private static String codes(List<String> names)
    {
        return names.stream().map(Settings::code).collect(Collectors.joining(", "));
    }

    private static String code(String text)
    {
        return "`" + text + "`";
    }

    private static PluginEntry linkerdEntry()
    {
        // Read by our own parser: Jackson's would cost the start-up BigDecimal's initialization (JsonTrees.toTree).
        return new PluginEntry((ObjectNode) JsonTrees.toTree(GoJsonParser.parse(PluginEntry.LINKERD_DEFAULT)), "built-in default (Linkerd)");
    }
}
