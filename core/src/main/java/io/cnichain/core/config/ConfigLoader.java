package io.cnichain.core.config;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.host.HostPaths;
import org.slf4j.event.Level;

import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Builds the {@link AgentConfig} from the defaults, the YAML file, the environment of Linkerd's
 * {@code linkerd2-cni} DaemonSet and the command line, in that order, each overriding the one before. What each
 * source may set is the table {@link Settings}. Every bad value is an error naming its key and its source (the file,
 * the environment variable or the flag).
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
    /** Loopback: the kubelet's probes reach it with {@code host: 127.0.0.1} (the pod has the host's network). */
    public static final String DEFAULT_HEALTH_ADDRESS = "127.0.0.1";
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(20);
    public static final Duration DEFAULT_PERIODIC_CHECK = Duration.ofSeconds(60);
    public static final String DEFAULT_NODE_TAINT_KEY = "cni-chain.io/not-ready";

    private ConfigLoader() {}

    /**
     * @param file  the YAML file ({@code --config}), if any
     * @param env   the environment
     * @param flags the command-line values, by flag name ({@code --host-root}); a flag without a value (such as
     *              {@code --no-cleanup}) has the value {@code true}
     * @return the merged configuration
     * @throws CniChainException with {@link ErrorCode#BAD_CONFIG} naming the key and the source
     * @throws IllegalArgumentException for a flag no setting has
     */
    public static AgentConfig load(Optional<Path> file, Map<String, String> env, Map<String, String> flags)
    {
        SettingValues values = new SettingValues();
        Optional<String> digest = Optional.empty();
        if (file.isPresent()) {
            YamlDocument document = YamlDocument.read(file.get());
            readYaml(document, values);
            digest = Optional.of(document.digest());
        }
        readEnvironment(env, values);
        readFlags(flags, values);
        CodeSources.refuseCodeFromOutsideTheImage(values, file);
        List<LogSettings.Notice> notices = new ArrayList<>();
        warnWhenTheTokenIsReadable(values, notices);
        warnWhenTheTokenTravelsUnprotected(values, notices);
        return assemble(file, digest, values, notices);
    }

    private static void readYaml(YamlDocument document, SettingValues values)
    {
        List<String> keys = new ArrayList<>();
        for (Setting<?> setting : Settings.ALL) {
            if (setting.yamlKey().isPresent()) {
                keys.add(setting.yamlKey().get());
            }
        }
        document.rejectUnknownKeys(keys);
        for (Setting<?> setting : Settings.ALL) {
            Optional<YamlValue> value = setting.yamlKey().isPresent() ? document.find(setting.yamlKey().get()) : Optional.empty();
            if (value.isPresent()) {
                fromYaml(setting, value.get(), values);
            }
        }
    }

    private static <T> void fromYaml(Setting<T> setting, YamlValue value, SettingValues values)
    {
        values.set(setting, new SettingValues.Sourced<>(setting.type().fromYaml(value), value.source()));
    }

    private static void readEnvironment(Map<String, String> env, SettingValues values)
    {
        for (Setting<?> setting : Settings.ALL) {
            if (!setting.environment().isEmpty()) {
                fromEnvironment(setting, env, values);
            }
        }
    }

    private static <T> void fromEnvironment(Setting<T> setting, Map<String, String> env, SettingValues values)
    {
        Optional<SettingValues.Sourced<T>> value = setting.type().fromEnvironment(setting.environment(), env);
        if (value.isPresent()) {
            values.set(setting, value.get());
        }
    }

    private static void readFlags(Map<String, String> flags, SettingValues values)
    {
        for (Map.Entry<String, String> entry : flags.entrySet()) {
            Optional<Setting<?>> setting = Settings.forFlag(entry.getKey());
            if (setting.isEmpty()) {
                throw new IllegalArgumentException("no setting has the flag " + entry.getKey());
            }
            fromFlag(setting.get(), entry.getKey(), entry.getValue(), values);
        }
    }

    private static <T> void fromFlag(Setting<T> setting, String flag, String text, SettingValues values)
    {
        values.set(setting, new SettingValues.Sourced<>(setting.fromFlag(text), flag));
    }

    private static void warnWhenTheTokenIsReadable(SettingValues values, List<LogSettings.Notice> notices)
    {
        SettingValues.Sourced<Set<PosixFilePermission>> mode = values.get(Settings.KUBECONFIG_MODE).orElseThrow();
        String readers = KubeconfigTypes.Mode.readers(mode.value());
        if (!readers.isEmpty() && values.value(Settings.KUBECONFIG_ENABLED)) {
            notices.add(new LogSettings.Notice(Level.WARN, mode.source() + ": mode " + Settings.KUBECONFIG_MODE.type().format(mode.value())
                    + " makes the kubeconfig, and the service-account token in it, readable by " + readers));
        }
    }

    /**
     * Kept for drop-in compatibility with Linkerd's installer, said at every start: the kubeconfig we write sends the
     * token in the clear ({@code http}), or to whoever answers ({@code skipTlsVerify}).
     */
    private static void warnWhenTheTokenTravelsUnprotected(SettingValues values, List<LogSettings.Notice> notices)
    {
        if (!values.value(Settings.KUBECONFIG_ENABLED)) {
            return;
        }
        SettingValues.Sourced<String> protocol = values.get(Settings.API_SERVER_PROTOCOL).orElseThrow();
        if (!protocol.value().equals("https")) {
            notices.add(new LogSettings.Notice(Level.WARN, protocol.source() + ": " + protocol.value() + ": the kubeconfig makes every pod's "
                    + "linkerd-cni send the service-account token to the API server unencrypted, readable by anyone on the path; use https"));
        }
        SettingValues.Sourced<Boolean> skip = values.get(Settings.KUBECONFIG_SKIP_TLS_VERIFY).orElseThrow();
        if (skip.value()) {
            notices.add(new LogSettings.Notice(Level.WARN, skip.source() + ": true: the kubeconfig makes every pod's linkerd-cni send the "
                    + "service-account token to whatever answers at the API server's address, without checking its certificate; give it the CA "
                    + "instead (kubeconfig.caFile)"));
        }
    }

    /**
     * Everything the taint remover needs is checked at start: a setting missing here would otherwise surface as an
     * error on the first request, long after the agent looked healthy.
     */
    private static NodeTaintSettings nodeTaint(SettingValues values)
    {
        SettingValues.Sourced<Boolean> enabled = values.get(Settings.NODE_TAINT_ENABLED).orElseThrow();
        Optional<String> nodeName = values.optional(Settings.NODE_NAME);
        if (enabled.value()) {
            if (nodeName.isEmpty()) {
                throw ConfigErrors.bad(enabled.source(), "is true, but NODE_NAME is not set: give the agent its node's name from the downward API "
                        + "(env NODE_NAME, valueFrom.fieldRef.fieldPath: spec.nodeName)");
            }
            if (values.optional(Settings.API_SERVER_HOST).isEmpty() || values.optional(Settings.API_SERVER_PORT).isEmpty()) {
                throw ConfigErrors.bad(enabled.source(), "is true, but KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT is not set: "
                        + "the agent cannot reach the API server");
            }
            if (!values.value(Settings.API_SERVER_PROTOCOL).equals("https")) {
                throw ConfigErrors.bad(enabled.source(), "is true, but KUBERNETES_SERVICE_PROTOCOL is "
                        + values.value(Settings.API_SERVER_PROTOCOL) + ": the agent sends its service-account token over https only");
            }
        }
        return new NodeTaintSettings(enabled.value(), values.value(Settings.NODE_TAINT_KEY), nodeName);
    }

    private static Optional<PodIdentity> pod(SettingValues values)
    {
        Optional<String> namespace = values.optional(Settings.POD_NAMESPACE);
        Optional<String> pod = values.optional(Settings.POD_NAME);
        Optional<String> node = values.optional(Settings.NODE_NAME);
        if (namespace.isPresent() && pod.isPresent() && node.isPresent()) {
            return Optional.of(new PodIdentity(namespace.get(), pod.get(), node.get()));
        }
        return Optional.empty();
    }

    private static AgentConfig assemble(Optional<Path> file, Optional<String> digest, SettingValues values, List<LogSettings.Notice> notices)
    {
        Path configured = values.value(Settings.CONF_DIR);
        // A conf dir that is a link (k3s-style custom paths) is the operator's choice: work where its files really are
        // and change, and allow that directory's parent too. Links inside the conf dir keep their rule.
        Path confDir = new HostPaths(values.value(Settings.HOST_ROOT)).withoutLinks(configured).orElse(configured);
        List<Path> defaultRoots = new ArrayList<>();
        defaultRoots.add(configured.getParent() == null ? configured : configured.getParent());
        if (!confDir.equals(configured)) {
            notices.add(new LogSettings.Notice(Level.INFO, "The conf dir " + configured + " is reached through a link: working in " + confDir
                    + ", where its files are"));
            defaultRoots.add(confDir.getParent() == null ? confDir : confDir.getParent());
        }
        // A bin dir that is a link likewise: resolved under the host root, never followed by the kernel from the agent's
        // own root (where an absolute link would lead into the container, or the machine running it).
        Path configuredBin = values.value(Settings.BIN_DIR);
        Path binDir = new HostPaths(values.value(Settings.HOST_ROOT)).withoutLinks(configuredBin).orElse(configuredBin);
        if (!binDir.equals(configuredBin)) {
            notices.add(new LogSettings.Notice(Level.INFO, "The bin dir " + configuredBin + " is reached through a link: installing into " + binDir));
        }
        // The conf dir's parent tree by default: it holds the conf dir and the platforms' real files beside it.
        List<Path> allowedRoots = values.optional(Settings.ALLOWED_ROOTS).orElse(List.copyOf(defaultRoots));
        AdapterChoice choice = values.value(Settings.ADAPTER);
        return new AgentConfig(file,
                new NodePaths(values.value(Settings.HOST_ROOT), confDir, binDir, values.value(Settings.SOURCE_BIN_DIR),
                        allowedRoots, values.value(Settings.MAX_CONFIG_BYTES), configured),
                new AdapterConfig(choice, values.value(Settings.PLUGINS_DIR), values.value(Settings.ADAPTER_SETTINGS),
                        values.value(Settings.ADAPTER_OVERRIDES)),
                values.value(Settings.PLUGIN),
                values.value(Settings.PLACEMENT),
                new KubeconfigSettings(values.value(Settings.KUBECONFIG_ENABLED), values.value(Settings.KUBECONFIG_FILE_NAME),
                        values.value(Settings.KUBECONFIG_MODE), values.optional(Settings.KUBECONFIG_SERVICE_ACCOUNT)),
                new ApiServerSettings(values.value(Settings.SERVICE_ACCOUNT_DIR), values.optional(Settings.KUBECONFIG_CA_FILE),
                        values.value(Settings.KUBECONFIG_SKIP_TLS_VERIFY), values.value(Settings.API_SERVER_PROTOCOL),
                        values.optional(Settings.API_SERVER_HOST), values.optional(Settings.API_SERVER_PORT)),
                new RunSettings(Math.toIntExact(values.value(Settings.HEALTH_PORT)), values.value(Settings.CLEANUP_ON_SHUTDOWN),
                        values.value(Settings.SHUTDOWN_TIMEOUT), values.value(Settings.PERIODIC_CHECK), pod(values), values.value(Settings.HEALTH_ADDRESS),
                        Optional.of(values.value(Settings.METRICS_ADDRESS)).filter(address -> !address.isEmpty())),
                nodeTaint(values),
                new LogSettings(values.value(Settings.LOG_LEVEL), values.value(Settings.LOG_FORMAT), notices),
                digest);
    }
}
