package io.cnichain.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.core.json.CniJson;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Builds the {@link AgentConfig} from the defaults, the YAML file, the environment of Linkerd's
 * {@code linkerd2-cni} DaemonSet and the command line, in that order, each overriding the one before. Every
 * bad value is an error naming its key and its source (the file, the environment variable or the flag).
 */
public final class ConfigLoader
{
    public static final Path DEFAULT_HOST_ROOT = Path.of("/host");
    public static final Path DEFAULT_CONF_DIR = Path.of("/etc/cni/net.d");
    public static final Path DEFAULT_BIN_DIR = Path.of("/opt/cni/bin");
    public static final Path DEFAULT_SOURCE_BIN_DIR = Path.of("/opt/cni/bin");
    public static final Path DEFAULT_PLUGINS_DIR = Path.of("/opt/cni-chain/plugins");
    public static final Path DEFAULT_SERVICE_ACCOUNT_DIR = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");
    public static final String DEFAULT_KUBECONFIG_NAME = "ZZZ-linkerd-cni-kubeconfig";
    public static final int DEFAULT_HEALTH_PORT = 9470;
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(20);

    static final Set<String> TOP_LEVEL_KEYS = Set.of("adapter", "hostRoot", "confDir", "binDir", "sourceBinDir", "pluginsDir",
            "serviceAccountDir", "allowedRoots", "maxConfigBytes", "plugin", "kubeconfig", "adapters", "adapterOverrides", "logLevel", "logFormat",
            "healthPort", "cleanupOnShutdown", "shutdownTimeoutSeconds");
    static final Set<String> PLUGIN_KEYS = Set.of("type", "config");
    static final Set<String> KUBECONFIG_KEYS = Set.of("enabled", "fileName", "mode", "caFile", "skipTlsVerify");
    static final Set<String> LOG_LEVELS = Set.of("trace", "debug", "info", "warn", "error");
    static final Set<String> LOG_FORMATS = Set.of("text", "json");

    private static final Pattern ADAPTER_NAME = Pattern.compile("[a-z0-9][a-z0-9-]*");
    private static final Pattern PLUGIN_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final Pattern FILE_NAME = Pattern.compile("[^/\\x00]+");
    private static final Pattern OCTAL_MODE = Pattern.compile("0?[0-7]{3}");
    private static final long MAX_YAML_BYTES = 1024 * 1024;

    private ConfigLoader() {}

    /**
     * @param file  the YAML file ({@code --config}), if any
     * @param env   the environment
     * @param flags the command-line values, by flag name ({@code --host-root}); a flag without a value (such as
     *              {@code --no-cleanup}) has the value {@code true}
     * @return the merged configuration
     * @throws CniChainException with {@link ErrorCode#BAD_CONFIG} naming the key and the source
     */
    public static AgentConfig load(Optional<Path> file, Map<String, String> env, Map<String, String> flags)
    {
        Builder builder = new Builder();
        file.ifPresent(path -> applyYaml(builder, path));
        applyEnvironment(builder, env);
        applyFlags(builder, flags);
        return builder.build(file);
    }

    private static void applyYaml(Builder b, Path file)
    {
        Map<String, Object> root = readYaml(file);
        Section top = new Section(file, "", root);
        top.allowOnly(TOP_LEVEL_KEYS);
        top.stringOrList("adapter").ifPresent(names -> b.adapter = adapterChoice(names, top.source("adapter")));
        top.absolutePath("hostRoot").ifPresent(p -> b.hostRoot = p);
        top.absolutePath("confDir").ifPresent(p -> b.confDir = p);
        top.absolutePath("binDir").ifPresent(p -> b.binDir = p);
        top.absolutePath("sourceBinDir").ifPresent(p -> b.sourceBinDir = p);
        top.absolutePath("pluginsDir").ifPresent(p -> b.pluginsDir = p);
        top.absolutePath("serviceAccountDir").ifPresent(p -> b.serviceAccountDir = p);
        top.stringOrList("allowedRoots").ifPresent(roots -> {
            List<Path> paths = new ArrayList<>();
            for (String allowed : roots) {
                paths.add(absolute(allowed, top.source("allowedRoots")));
            }
            b.allowedRoots = Optional.of(paths);
        });
        top.integer("maxConfigBytes", 1024, 64L * 1024 * 1024).ifPresent(n -> b.maxConfigBytes = n);
        top.section("plugin").ifPresent(plugin -> {
            plugin.allowOnly(PLUGIN_KEYS);
            String type = plugin.string("type").orElseThrow(() -> plugin.error("type", "is required: the chained plugin's type, for example linkerd-cni"));
            Map<String, Object> config = plugin.map("config").orElse(Map.of());
            if (config.containsKey("type")) {
                throw plugin.error("config", "must not repeat 'type'; set plugin.type instead");
            }
            ObjectNode entry = CniJson.mapper().createObjectNode();
            Object name = config.get("name");
            if (name != null) {
                entry.set("name", CniJson.mapper().valueToTree(name));
            }
            entry.put("type", type);
            for (Map.Entry<String, Object> field : config.entrySet()) {
                if (!field.getKey().equals("name")) {
                    entry.set(field.getKey(), CniJson.mapper().valueToTree(field.getValue()));
                }
            }
            b.plugin = new PluginEntry(entry, "the 'plugin' section of " + file);
        });
        top.section("kubeconfig").ifPresent(kube -> {
            kube.allowOnly(KUBECONFIG_KEYS);
            kube.bool("enabled").ifPresent(v -> b.kubeconfigEnabled = v);
            kube.string("fileName").ifPresent(v -> b.kubeconfigName = fileName(v, kube.source("fileName")));
            kube.string("mode").ifPresent(v -> b.kubeconfigMode = mode(v, kube.source("mode")));
            kube.absolutePath("caFile").ifPresent(v -> b.caFile = Optional.of(v));
            kube.bool("skipTlsVerify").ifPresent(v -> b.skipTlsVerify = v);
        });
        top.section("adapters").ifPresent(adapters -> {
            for (String adapter : adapters.keys()) {
                if (!ADAPTER_NAME.matcher(adapter).matches()) {
                    throw adapters.error(adapter, "is not an adapter name");
                }
                Section settings = adapters.section(adapter).orElse(new Section(file, "adapters." + adapter + ".", Map.of()));
                Map<String, String> values = new LinkedHashMap<>();
                for (String key : settings.keys()) {
                    values.put(key, settings.scalar(key));
                }
                b.adapterSettings.put(adapter, values);
            }
        });
        top.section("adapterOverrides").ifPresent(overrides -> {
            for (String adapter : overrides.keys()) {
                if (!ADAPTER_NAME.matcher(adapter).matches()) {
                    throw overrides.error(adapter, "is not an adapter name");
                }
                String winner = overrides.scalar(adapter);
                if (!winner.equals("built-in") && !PLUGIN_ID.matcher(winner).matches()) {
                    throw overrides.error(adapter, "'" + winner + "' is neither built-in nor a plugin's Plugin-Id");
                }
                b.adapterOverrides.put(adapter, winner);
            }
        });
        top.string("logLevel").ifPresent(v -> b.logLevel = oneOf(v, LOG_LEVELS, top.source("logLevel")));
        top.string("logFormat").ifPresent(v -> b.logFormat = oneOf(v, LOG_FORMATS, top.source("logFormat")));
        top.integer("healthPort", 0, 65535).ifPresent(v -> b.healthPort = (int) (long) v);
        top.bool("cleanupOnShutdown").ifPresent(v -> b.cleanupOnShutdown = v);
        top.integer("shutdownTimeoutSeconds", 1, 3600).ifPresent(v -> b.shutdownTimeout = Duration.ofSeconds(v));
    }

    private static Map<String, Object> readYaml(Path file)
    {
        byte[] bytes;
        try {
            bytes = new BoundedFileReader(MAX_YAML_BYTES).read(file, file);
        }
        catch (CniChainException e) {
            throw new CniChainException(ErrorCode.BAD_CONFIG, file, e.reason());
        }
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(20);
        Object loaded;
        try {
            loaded = new Yaml(new SafeConstructor(options)).load(new String(bytes, StandardCharsets.UTF_8));
        }
        catch (YAMLException e) {
            throw new CniChainException(ErrorCode.BAD_CONFIG, file, "is not valid YAML: " + e.getMessage().lines().findFirst().orElse("")
                    + (e.getMessage().contains("line ") ? " (" + lineOf(e.getMessage()) + ")" : ""));
        }
        if (loaded == null) {
            return Map.of();
        }
        if (!(loaded instanceof Map<?, ?> map)) {
            throw new CniChainException(ErrorCode.BAD_CONFIG, file, "must be a YAML mapping of settings, not a " + kind(loaded));
        }
        Map<String, Object> result = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            result.put(String.valueOf(e.getKey()), e.getValue());
        }
        return result;
    }

    private static String lineOf(String message)
    {
        return message.lines().filter(l -> l.contains("line ")).map(String::trim).findFirst().orElse("");
    }

    private static void applyEnvironment(Builder b, Map<String, String> env)
    {
        envValue(env, "CONTAINER_MOUNT_PREFIX").ifPresent(v -> b.hostRoot = absolute(v, env("CONTAINER_MOUNT_PREFIX")));
        envValue(env, "DEST_CNI_NET_DIR").ifPresent(v -> b.confDir = absolute(v, env("DEST_CNI_NET_DIR")));
        envValue(env, "DEST_CNI_BIN_DIR").ifPresent(v -> b.binDir = absolute(v, env("DEST_CNI_BIN_DIR")));
        envValue(env, "CONTAINER_CNI_BIN_DIR").ifPresent(v -> b.sourceBinDir = absolute(v, env("CONTAINER_CNI_BIN_DIR")));
        envValue(env, "KUBECONFIG_FILE_NAME").ifPresent(v -> b.kubeconfigName = fileName(v, env("KUBECONFIG_FILE_NAME")));
        envValue(env, "KUBECONFIG_MODE").ifPresent(v -> b.kubeconfigMode = mode(v, env("KUBECONFIG_MODE")));
        envValue(env, "KUBE_CA_FILE").ifPresent(v -> b.caFile = Optional.of(absolute(v, env("KUBE_CA_FILE"))));
        envValue(env, "SKIP_TLS_VERIFY").ifPresent(v -> b.skipTlsVerify = bool(v, env("SKIP_TLS_VERIFY")));
        envValue(env, "KUBERNETES_SERVICE_PROTOCOL").ifPresent(v -> b.protocol = oneOf(v, Set.of("https", "http"), env("KUBERNETES_SERVICE_PROTOCOL")));
        envValue(env, "KUBERNETES_SERVICE_HOST").ifPresent(v -> b.serviceHost = Optional.of(v));
        envValue(env, "KUBERNETES_SERVICE_PORT").ifPresent(v -> b.servicePort = Optional.of(port(v, env("KUBERNETES_SERVICE_PORT"))));

        Optional<String> configFile = envValue(env, "CNI_NETWORK_CONFIG_FILE");
        Optional<String> configJson = envValue(env, "CNI_NETWORK_CONFIG");
        if (configFile.isPresent() && Files.isRegularFile(Path.of(configFile.get()))) {
            // As in Linkerd's installer, an existing file wins over the variable.
            Path path = Path.of(configFile.get());
            byte[] bytes;
            try {
                bytes = new BoundedFileReader(MAX_YAML_BYTES).read(path, path);
            }
            catch (CniChainException e) {
                throw new CniChainException(ErrorCode.BAD_CONFIG, path, "(CNI_NETWORK_CONFIG_FILE) " + e.reason());
            }
            b.plugin = pluginFromJson(bytes, "CNI_NETWORK_CONFIG_FILE " + path, path.toString());
        }
        else if (configJson.isPresent()) {
            b.plugin = pluginFromJson(configJson.get().getBytes(StandardCharsets.UTF_8), "CNI_NETWORK_CONFIG environment variable", "environment variable CNI_NETWORK_CONFIG");
        }
        else if (configFile.isPresent()) {
            throw new CniChainException(ErrorCode.BAD_CONFIG, Path.of(configFile.get()),
                    "(CNI_NETWORK_CONFIG_FILE) does not exist or is not a regular file, and CNI_NETWORK_CONFIG is not set");
        }
    }

    private static PluginEntry pluginFromJson(byte[] bytes, String source, String label)
    {
        JsonNode node;
        try {
            node = CniJson.parse(bytes);
        }
        catch (CniJson.InvalidJsonException e) {
            throw new CniChainException(ErrorCode.BAD_CONFIG, label + ": the chained plugin entry " + e.getMessage());
        }
        if (!(node instanceof ObjectNode object)) {
            throw new CniChainException(ErrorCode.BAD_CONFIG, label + ": the chained plugin entry must be a JSON object");
        }
        JsonNode type = object.get("type");
        if (type == null || !type.isTextual() || type.asText().isBlank()) {
            throw new CniChainException(ErrorCode.BAD_CONFIG, label + ": the chained plugin entry has no 'type'");
        }
        return new PluginEntry(object, source);
    }

    private static void applyFlags(Builder b, Map<String, String> flags)
    {
        flags.forEach((flag, v) -> {
            switch (flag) {
                case "--host-root" -> b.hostRoot = absolute(v, flag);
                case "--conf-dir" -> b.confDir = absolute(v, flag);
                case "--bin-dir" -> b.binDir = absolute(v, flag);
                case "--adapter" -> b.adapter = adapterChoice(List.of(v.split(",", -1)), flag);
                case "--service-account-dir" -> b.serviceAccountDir = absolute(v, flag);
                case "--plugins-dir" -> b.pluginsDir = absolute(v, flag);
                case "--log-level" -> b.logLevel = oneOf(v, LOG_LEVELS, flag);
                case "--log-format" -> b.logFormat = oneOf(v, LOG_FORMATS, flag);
                case "--health-port" -> b.healthPort = (int) integer(v, 0, 65535, flag);
                case "--no-cleanup" -> b.cleanupOnShutdown = !bool(v, flag);
                case "--shutdown-timeout" -> b.shutdownTimeout = Duration.ofSeconds(integer(v, 1, 3600, flag));
                default -> throw new IllegalArgumentException("no setting has the flag " + flag);
            }
        });
    }

    static long integer(String value, long min, long max, String source)
    {
        long n;
        try {
            n = Long.parseLong(value.trim());
        }
        catch (NumberFormatException e) {
            throw bad(source, "'" + value + "' is not a whole number");
        }
        if (n < min || n > max) {
            throw bad(source, n + " is outside " + min + ".." + max);
        }
        return n;
    }

    private static AdapterChoice adapterChoice(List<String> names, String source)
    {
        if (names.isEmpty()) {
            throw bad(source, "names no adapter; use 'auto', a name or a list of names");
        }
        if (names.size() == 1 && names.get(0).equals(AdapterChoice.AUTO)) {
            return AdapterChoice.auto();
        }
        for (String name : names) {
            if (name.equals(AdapterChoice.AUTO)) {
                throw bad(source, "'auto' cannot be part of a list of adapters");
            }
            if (!ADAPTER_NAME.matcher(name).matches()) {
                throw bad(source, "'" + name + "' is not an adapter name (lower-case letters, digits and dashes)");
            }
        }
        if (names.stream().distinct().count() != names.size()) {
            throw bad(source, "names an adapter twice: " + names);
        }
        return new AdapterChoice(names);
    }

    private static Optional<String> envValue(Map<String, String> env, String name)
    {
        String value = env.get(name);
        return value == null || value.isEmpty() ? Optional.empty() : Optional.of(value);
    }

    private static String env(String name)
    {
        return "environment variable " + name;
    }

    static Path absolute(String value, String source)
    {
        if (value.isBlank()) {
            throw bad(source, "is empty; it must be an absolute path");
        }
        if (value.indexOf('\0') >= 0) {
            throw bad(source, "contains a NUL character");
        }
        Path path = Path.of(value);
        if (!path.isAbsolute()) {
            throw bad(source, "'" + value + "' is not an absolute path");
        }
        return path.normalize();
    }

    static String fileName(String value, String source)
    {
        if (!FILE_NAME.matcher(value).matches() || value.equals(".") || value.equals("..")) {
            throw bad(source, "'" + value + "' is not a plain file name");
        }
        return value;
    }

    static Set<PosixFilePermission> mode(String value, String source)
    {
        if (!OCTAL_MODE.matcher(value).matches()) {
            throw bad(source, "'" + value + "' is not an octal file mode such as 0600");
        }
        int bits = Integer.parseInt(value, 8);
        StringBuilder text = new StringBuilder();
        String letters = "rwxrwxrwx";
        for (int i = 0; i < 9; i++) {
            text.append((bits & (1 << (8 - i))) != 0 ? letters.charAt(i) : '-');
        }
        return PosixFilePermissions.fromString(text.toString());
    }

    static boolean bool(String value, String source)
    {
        return switch (value.toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw bad(source, "'" + value + "' is not true or false");
        };
    }

    static String port(String value, String source)
    {
        try {
            int port = Integer.parseInt(value);
            if (port >= 1 && port <= 65535) {
                return value;
            }
        }
        catch (NumberFormatException ignored) {
            // reported below
        }
        throw bad(source, "'" + value + "' is not a port number");
    }

    static String oneOf(String value, Set<String> allowed, String source)
    {
        if (!allowed.contains(value)) {
            throw bad(source, "'" + value + "' is not one of " + new java.util.TreeSet<>(allowed));
        }
        return value;
    }

    static CniChainException bad(String source, String reason)
    {
        return new CniChainException(ErrorCode.BAD_CONFIG, source + ": " + reason);
    }

    private static String kind(Object value)
    {
        if (value instanceof List<?>) {
            return "list";
        }
        if (value instanceof Map<?, ?>) {
            return "mapping";
        }
        return "single value";
    }

    /** One mapping of the YAML file, with the key path used in error messages. */
    private static final class Section
    {
        private final Path file;
        private final String prefix;
        private final Map<String, Object> values;

        Section(Path file, String prefix, Map<String, Object> values)
        {
            this.file = file;
            this.prefix = prefix;
            this.values = values;
        }

        List<String> keys()
        {
            return List.copyOf(values.keySet());
        }

        String source(String key)
        {
            return file + ": key '" + prefix + key + "'";
        }

        CniChainException error(String key, String reason)
        {
            return new CniChainException(ErrorCode.BAD_CONFIG, file, "key '" + prefix + key + "' " + reason);
        }

        void allowOnly(Set<String> known)
        {
            for (String key : values.keySet()) {
                if (!known.contains(key)) {
                    throw new CniChainException(ErrorCode.BAD_CONFIG, file, "unknown key '" + prefix + key + "' (known keys: "
                            + String.join(", ", new java.util.TreeSet<>(known)) + ")");
                }
            }
        }

        Optional<String> string(String key)
        {
            Object value = values.get(key);
            if (value == null) {
                return Optional.empty();
            }
            if (value instanceof Map<?, ?> || value instanceof List<?>) {
                throw error(key, "must be a single value, not a " + kind(value));
            }
            return Optional.of(String.valueOf(value));
        }

        String scalar(String key)
        {
            return string(key).orElseThrow(() -> error(key, "has no value"));
        }

        Optional<Path> absolutePath(String key)
        {
            return string(key).map(v -> absolute(v, source(key)));
        }

        Optional<Boolean> bool(String key)
        {
            Object value = values.get(key);
            if (value == null) {
                return Optional.empty();
            }
            if (value instanceof Boolean b) {
                return Optional.of(b);
            }
            return Optional.of(ConfigLoader.bool(String.valueOf(value), source(key)));
        }

        Optional<Long> integer(String key, long min, long max)
        {
            Object value = values.get(key);
            if (value == null) {
                return Optional.empty();
            }
            if (!(value instanceof Integer || value instanceof Long)) {
                throw error(key, "'" + value + "' is not a whole number");
            }
            long n = ((Number) value).longValue();
            if (n < min || n > max) {
                throw error(key, "is " + n + ", outside " + min + ".." + max);
            }
            return Optional.of(n);
        }

        Optional<List<String>> stringOrList(String key)
        {
            Object value = values.get(key);
            if (value == null) {
                return Optional.empty();
            }
            if (value instanceof List<?> list) {
                List<String> strings = new ArrayList<>();
                for (Object item : list) {
                    if (item == null || item instanceof Map<?, ?> || item instanceof List<?>) {
                        throw error(key, "must be a list of names");
                    }
                    strings.add(String.valueOf(item));
                }
                return Optional.of(strings);
            }
            return string(key).map(List::of);
        }

        Optional<Map<String, Object>> map(String key)
        {
            Object value = values.get(key);
            if (value == null) {
                return Optional.empty();
            }
            if (!(value instanceof Map<?, ?> map)) {
                throw error(key, "must be a mapping, not a " + kind(value));
            }
            Map<String, Object> result = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                result.put(String.valueOf(e.getKey()), e.getValue());
            }
            return Optional.of(result);
        }

        Optional<Section> section(String key)
        {
            return map(key).map(m -> new Section(file, prefix + key + ".", m));
        }
    }

    /** Defaults, overwritten source by source. */
    private static final class Builder
    {
        AdapterChoice adapter = AdapterChoice.auto();
        Path hostRoot = DEFAULT_HOST_ROOT;
        Path confDir = DEFAULT_CONF_DIR;
        Path binDir = DEFAULT_BIN_DIR;
        Path sourceBinDir = DEFAULT_SOURCE_BIN_DIR;
        Path pluginsDir = DEFAULT_PLUGINS_DIR;
        Path serviceAccountDir = DEFAULT_SERVICE_ACCOUNT_DIR;
        Optional<List<Path>> allowedRoots = Optional.empty();
        long maxConfigBytes = BoundedFileReader.DEFAULT_LIMIT;
        PluginEntry plugin = new PluginEntry((ObjectNode) CniJson.parse(PluginEntry.LINKERD_DEFAULT.getBytes(StandardCharsets.UTF_8)), "built-in default (Linkerd)");
        boolean kubeconfigEnabled = true;
        String kubeconfigName = DEFAULT_KUBECONFIG_NAME;
        Set<PosixFilePermission> kubeconfigMode = PosixFilePermissions.fromString("rw-------");
        Optional<Path> caFile = Optional.empty();
        boolean skipTlsVerify;
        String protocol = "https";
        Optional<String> serviceHost = Optional.empty();
        Optional<String> servicePort = Optional.empty();
        Map<String, Map<String, String>> adapterSettings = new LinkedHashMap<>();
        Map<String, String> adapterOverrides = new LinkedHashMap<>();
        String logLevel = "info";
        String logFormat = "text";
        int healthPort = DEFAULT_HEALTH_PORT;
        boolean cleanupOnShutdown = true;
        Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;

        AgentConfig build(Optional<Path> file)
        {
            // The conf dir's parent tree by default: it holds the conf dir and the platforms' real files beside it.
            List<Path> roots = allowedRoots.orElse(List.of(confDir.getParent() == null ? confDir : confDir.getParent()));
            return new AgentConfig(file,
                    new NodePaths(hostRoot, confDir, binDir, sourceBinDir, roots, maxConfigBytes),
                    new AdapterConfig(adapter, pluginsDir, adapterSettings, adapterOverrides),
                    plugin,
                    new KubeconfigSettings(kubeconfigEnabled, kubeconfigName, kubeconfigMode),
                    new ApiServerSettings(serviceAccountDir, caFile, skipTlsVerify, protocol, serviceHost, servicePort),
                    new RunSettings(healthPort, cleanupOnShutdown, shutdownTimeout),
                    new LogSettings(logLevel, logFormat));
        }
    }
}
