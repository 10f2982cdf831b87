package io.cnichain.core.config;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.logcapture.CapturedLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigLoaderTest
{
    @TempDir
    Path temp;

    @Test
    void defaultsMatchLinkerdsInstaller()
    {
        AgentConfig config = ConfigLoader.load(Optional.empty(), Map.of(), Map.of());
        assertThat(config.adapters().choice().isAuto()).isTrue();
        assertThat(config.paths().hostRoot()).isEqualTo(Path.of("/host"));
        assertThat(config.paths().confDir()).isEqualTo(Path.of("/etc/cni/net.d"));
        assertThat(config.paths().binDir()).isEqualTo(Path.of("/opt/cni/bin"));
        assertThat(config.paths().allowedRoots()).containsExactly(Path.of("/etc/cni"));
        assertThat(config.kubeconfigHostPath()).isEqualTo(Path.of("/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig"));
        assertThat(PosixFilePermissions.toString(config.kubeconfig().mode())).isEqualTo("rw-------");
        assertThat(config.plugin().type()).isEqualTo("linkerd-cni");
        assertThat(config.plugin().render(config.kubeconfigHostPath()).at("/kubernetes/kubeconfig").asText())
                .isEqualTo("/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig");
    }

    @Test
    void precedenceIsFlagsThenEnvironmentThenFileThenDefaults()
            throws IOException
    {
        Path yaml = yaml("""
                confDir: /from/file/net.d
                binDir: /from/file/bin
                hostRoot: /from-file
                logLevel: debug
                """);
        Map<String, String> env = Map.of("DEST_CNI_NET_DIR", "/from/env/net.d", "CONTAINER_MOUNT_PREFIX", "/from-env");
        Map<String, String> flags = Map.of("--host-root", "/from-flag");
        AgentConfig config = ConfigLoader.load(Optional.of(yaml), env, flags);
        assertThat(config.paths().hostRoot()).isEqualTo(Path.of("/from-flag"));
        assertThat(config.paths().confDir()).isEqualTo(Path.of("/from/env/net.d"));
        assertThat(config.paths().binDir()).isEqualTo(Path.of("/from/file/bin"));
        assertThat(config.log().level()).isEqualTo("debug");
        assertThat(config.apiServer().serviceAccountDir()).isEqualTo(ConfigLoader.DEFAULT_SERVICE_ACCOUNT_DIR);
        assertThat(config.paths().allowedRoots()).as("the default follows the conf dir").containsExactly(Path.of("/from/env"));
    }

    @Test
    void linkerdEnvironmentIsHonoured()
    {
        Map<String, String> env = Map.of(
                "DEST_CNI_NET_DIR", "/var/lib/rancher/k3s/agent/etc/cni/net.d",
                "DEST_CNI_BIN_DIR", "/var/lib/rancher/k3s/data/cni",
                "CONTAINER_CNI_BIN_DIR", "/opt/image/bin",
                "KUBECONFIG_FILE_NAME", "ZZZ-custom-kubeconfig",
                "KUBECONFIG_MODE", "640",
                "KUBE_CA_FILE", "/etc/ca.pem",
                "SKIP_TLS_VERIFY", "true",
                "KUBERNETES_SERVICE_PROTOCOL", "https",
                "KUBERNETES_SERVICE_HOST", "fd00::1",
                "KUBERNETES_SERVICE_PORT", "6443");
        AgentConfig config = ConfigLoader.load(Optional.empty(), env, Map.of());
        assertThat(config.paths().confDir()).isEqualTo(Path.of("/var/lib/rancher/k3s/agent/etc/cni/net.d"));
        assertThat(config.paths().binDir()).isEqualTo(Path.of("/var/lib/rancher/k3s/data/cni"));
        assertThat(config.paths().sourceBinDir()).isEqualTo(Path.of("/opt/image/bin"));
        assertThat(config.kubeconfigHostPath()).isEqualTo(Path.of("/var/lib/rancher/k3s/agent/etc/cni/net.d/ZZZ-custom-kubeconfig"));
        assertThat(PosixFilePermissions.toString(config.kubeconfig().mode())).isEqualTo("rw-r-----");
        assertThat(config.apiServer().caFile()).contains(Path.of("/etc/ca.pem"));
        assertThat(config.apiServer().skipTlsVerify()).isTrue();
        assertThat(config.apiServer().host()).contains("fd00::1");
        assertThat(config.apiServer().port()).contains("6443");
    }

    @Test
    void pluginEntryFromTheEnvironmentWithThePlaceholderSubstituted()
    {
        String json = "{\"name\":\"linkerd-cni\",\"type\":\"linkerd-cni\",\"kubernetes\":{\"kubeconfig\":\"__KUBECONFIG_FILEPATH__\"},\"list\":[\"__KUBECONFIG_FILEPATH__\"]}";
        AgentConfig config = ConfigLoader.load(Optional.empty(), Map.of("CNI_NETWORK_CONFIG", json), Map.of());
        assertThat(config.plugin().source()).isEqualTo("CNI_NETWORK_CONFIG environment variable");
        var entry = config.plugin().render(config.kubeconfigHostPath());
        assertThat(entry.at("/kubernetes/kubeconfig").asText()).isEqualTo("/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig");
        assertThat(entry.at("/list/0").asText()).isEqualTo("/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig");
    }

    @Test
    void pluginEntryFileWinsOverTheVariableWhenItExists()
            throws IOException
    {
        Path file = Files.writeString(temp.resolve("entry.json"), "{\"type\":\"istio-cni\",\"log_level\":\"debug\"}");
        AgentConfig config = ConfigLoader.load(Optional.empty(),
                Map.of("CNI_NETWORK_CONFIG_FILE", file.toString(), "CNI_NETWORK_CONFIG", "{\"type\":\"other\"}"), Map.of());
        assertThat(config.plugin().type()).isEqualTo("istio-cni");
        AgentConfig fallback = ConfigLoader.load(Optional.empty(),
                Map.of("CNI_NETWORK_CONFIG_FILE", temp.resolve("missing.json").toString(), "CNI_NETWORK_CONFIG", "{\"type\":\"other\"}"), Map.of());
        assertThat(fallback.plugin().type()).isEqualTo("other");
    }

    @Test
    void pluginSectionOfTheYaml()
            throws IOException
    {
        Path yaml = yaml("""
                plugin:
                  type: my-chained
                  config:
                    name: my-chained
                    kubeconfig: __KUBECONFIG_FILEPATH__
                    ports: [1, 2]
                """);
        AgentConfig config = ConfigLoader.load(Optional.of(yaml), Map.of(), Map.of());
        assertThat(config.plugin().type()).isEqualTo("my-chained");
        assertThat(io.cnichain.core.json.CniJson.compact(config.plugin().render(Path.of("/k"))))
                .isEqualTo("{\"name\":\"my-chained\",\"type\":\"my-chained\",\"kubeconfig\":\"/k\",\"ports\":[1,2]}");
    }

    @Test
    void adapterChoiceForms()
            throws IOException
    {
        assertThat(ConfigLoader.load(Optional.of(yaml("adapter: cilium")), Map.of(), Map.of()).adapters().choice().names()).containsExactly("cilium");
        assertThat(ConfigLoader.load(Optional.of(yaml("adapter: [cilium, generic-symlink]")), Map.of(), Map.of()).adapters().choice().names())
                .containsExactly("cilium", "generic-symlink");
        assertThat(ConfigLoader.load(Optional.of(yaml("adapter: auto")), Map.of(), Map.of()).adapters().choice().isAuto()).isTrue();
        Path file = yaml("adapter: [auto, cilium]");
        assertBad(() -> ConfigLoader.load(Optional.of(file), Map.of(), Map.of()), file + ": key 'adapter': 'auto' cannot be part of a list of adapters");
    }

    @Test
    void adapterSettingsArePlainStrings()
            throws IOException
    {
        Path yaml = yaml("""
                adapters:
                  cilium: { confFile: 05-cilium.conflist-current }
                  calico:
                    confFile: 10-calico.conflist
                """);
        AgentConfig config = ConfigLoader.load(Optional.of(yaml), Map.of(), Map.of());
        assertThat(config.adapters().settingsFor("cilium").values()).containsEntry("confFile", "05-cilium.conflist-current");
        assertThat(config.adapters().settingsFor("calico").values()).containsEntry("confFile", "10-calico.conflist");
    }

    @Test
    void adapterOverridesNameBuiltInOrAPluginId()
            throws IOException
    {
        AgentConfig config = ConfigLoader.load(Optional.of(yaml("adapterOverrides: { cilium: acme-cilium, calico: built-in }\n")), Map.of(),
                Map.of());
        assertThat(config.adapters().overrides()).containsExactlyInAnyOrderEntriesOf(Map.of("cilium", "acme-cilium", "calico", "built-in"));
        assertThat(ConfigLoader.load(Optional.empty(), Map.of(), Map.of()).adapters().overrides()).isEmpty();

        Path bad = yaml("adapterOverrides:\n  cilium: \"plugin jar\"\n");
        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(bad), Map.of(), Map.of()))
                .hasMessage(bad + ": key 'adapterOverrides.cilium' 'plugin jar' is neither built-in nor a plugin's Plugin-Id");
        Path badName = yaml("adapterOverrides:\n  Cilium: built-in\n");
        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(badName), Map.of(), Map.of()))
                .hasMessage(badName + ": key 'adapterOverrides.Cilium' is not an adapter name");
    }

    @Test
    void unknownKeysAreErrorsNamingTheKeyAndTheFile()
            throws IOException
    {
        Path top = yaml("confdir: /etc/cni/net.d\n");
        assertBad(() -> ConfigLoader.load(Optional.of(top), Map.of(), Map.of()), top + ": unknown key 'confdir' (known keys: ");
        Path nested = yaml("kubeconfig:\n  filename: x\n");
        assertBad(() -> ConfigLoader.load(Optional.of(nested), Map.of(), Map.of()), nested + ": unknown key 'kubeconfig.filename'");
    }

    @Test
    void badValuesAreErrorsNamingTheKeyAndTheSource()
            throws IOException
    {
        Path relative = yaml("confDir: etc/cni/net.d\n");
        assertBad(() -> ConfigLoader.load(Optional.of(relative), Map.of(), Map.of()),
                relative + ": key 'confDir': 'etc/cni/net.d' is not an absolute path");
        Path mode = yaml("kubeconfig:\n  mode: \"0999\"\n");
        assertBad(() -> ConfigLoader.load(Optional.of(mode), Map.of(), Map.of()),
                mode + ": key 'kubeconfig.mode': '0999' is not an octal file mode such as 0600");
        Path port = yaml("healthPort: 70000\n");
        assertBad(() -> ConfigLoader.load(Optional.of(port), Map.of(), Map.of()), port + ": key 'healthPort' is 70000, outside 0..65535");
        assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of(), Map.of("--health-port", "70000")), "--health-port: 70000 is outside 0..65535");
        Path level = yaml("logLevel: loud\n");
        assertBad(() -> ConfigLoader.load(Optional.of(level), Map.of(), Map.of()), "'loud' is not one of [debug, error, info, trace, warn]");
        assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("KUBECONFIG_MODE", "rw"), Map.of()),
                "environment variable KUBECONFIG_MODE: 'rw' is not an octal file mode");
        assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("SKIP_TLS_VERIFY", "yes please"), Map.of()),
                "environment variable SKIP_TLS_VERIFY: 'yes please' is not true or false");
        assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("CNI_NETWORK_CONFIG", "{\"name\":\"x\"}"), Map.of()),
                "environment variable CNI_NETWORK_CONFIG: the chained plugin entry has no 'type'");
        assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("CNI_NETWORK_CONFIG", "{oops"), Map.of()),
                "environment variable CNI_NETWORK_CONFIG: the chained plugin entry is not valid JSON");
        assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of(), Map.of("--conf-dir", "relative")), "--conf-dir: 'relative' is not an absolute path");
    }

    /** k3s-style: the configured conf dir is a link; absolute targets are host paths, under the host root. */
    @Test
    void aLinkedConfDirIsResolvedUnderTheHostRootAndItsRealParentAllowed()
            throws IOException
    {
        Path host = Files.createDirectories(temp.resolve("host"));
        Files.createDirectories(host.resolve("var/lib/k3s/agent/etc/cni/net.d"));
        Files.createDirectories(host.resolve("etc/cni"));
        Files.createSymbolicLink(host.resolve("etc/cni/net.d"), Path.of("/var/lib/k3s/agent/etc/cni/net.d"));
        AgentConfig absolute = ConfigLoader.load(Optional.empty(), Map.of(), Map.of("--host-root", host.toString()));
        assertThat(absolute.paths().confDir()).isEqualTo(Path.of("/var/lib/k3s/agent/etc/cni/net.d"));
        assertThat(absolute.paths().allowedRoots()).containsExactly(Path.of("/etc/cni"), Path.of("/var/lib/k3s/agent/etc/cni"));

        // A link on a parent, relative, with '..': the same directory.
        Files.delete(host.resolve("etc/cni/net.d"));
        Files.delete(host.resolve("etc/cni"));
        Files.createSymbolicLink(host.resolve("etc/cni"), Path.of("../var/lib/k3s/agent/etc/cni"));
        AgentConfig relative = ConfigLoader.load(Optional.empty(), Map.of(), Map.of("--host-root", host.toString()));
        assertThat(relative.paths().confDir()).isEqualTo(Path.of("/var/lib/k3s/agent/etc/cni/net.d"));

        // allowedRoots, when set, is the operator's word; a loop, or a conf dir not there yet, leaves the path as it is.
        Path yaml = Files.writeString(temp.resolve("roots.yaml"), "allowedRoots: [/etc/cni]\n");
        assertThat(ConfigLoader.load(Optional.of(yaml), Map.of(), Map.of("--host-root", host.toString())).paths().allowedRoots())
                .containsExactly(Path.of("/etc/cni"));
        Files.delete(host.resolve("etc/cni"));
        Files.createSymbolicLink(host.resolve("etc/cni"), Path.of("cni"));
        assertThat(ConfigLoader.load(Optional.empty(), Map.of(), Map.of("--host-root", host.toString())).paths().confDir())
                .isEqualTo(Path.of("/etc/cni/net.d"));
        Files.delete(host.resolve("etc/cni"));
        assertThat(ConfigLoader.load(Optional.empty(), Map.of(), Map.of("--host-root", host.toString())).paths().confDir())
                .isEqualTo(Path.of("/etc/cni/net.d"));
    }

    @Test
    void malformedYamlDuplicateKeysAndMissingFiles()
            throws IOException
    {
        Path broken = yaml("confDir: [unclosed\n");
        assertBad(() -> ConfigLoader.load(Optional.of(broken), Map.of(), Map.of()), broken + ": is not valid YAML");
        Path duplicate = yaml("logLevel: info\nconfDir: /a\nconfDir: /b\n");
        assertBad(() -> ConfigLoader.load(Optional.of(duplicate), Map.of(), Map.of()),
                duplicate + ": is not valid YAML: found duplicate key confDir (line 3, column 1)");
        // Refused before anything walks it: it would never end (a stack overflow, exit 1, in every command).
        Path recursive = yaml("plugin:\n  config: &a {self: *a}\n");
        assertBad(() -> ConfigLoader.load(Optional.of(recursive), Map.of(), Map.of()),
                recursive + ": key plugin.config.self: a YAML alias refers to a mapping or list that contains it (recursive); write the value out instead");
        Path list = yaml("- a\n- b\n");
        assertBad(() -> ConfigLoader.load(Optional.of(list), Map.of(), Map.of()), list + ": must be a YAML mapping of settings, not a list");
        Path missing = temp.resolve("nope.yaml");
        assertBad(() -> ConfigLoader.load(Optional.of(missing), Map.of(), Map.of()), missing + ": does not exist");
        // Saved in Latin-1: decoded loosely, the é would reach the runtime's file as U+FFFD.
        Path latin1 = temp.resolve("latin1.yaml");
        Files.write(latin1, "plugin:\n  type: linkerd-cni\n  config:\n    note: \"caf\u00e9\"\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        assertBad(() -> ConfigLoader.load(Optional.of(latin1), Map.of(), Map.of()), latin1 + ": is not UTF-8 text: byte 53 begins no UTF-8 character; save the file as UTF-8");
    }

    @Test
    void emptyFileMeansDefaults()
            throws IOException
    {
        AgentConfig config = ConfigLoader.load(Optional.of(yaml("")), Map.of(), Map.of());
        assertThat(config.paths().confDir()).isEqualTo(ConfigLoader.DEFAULT_CONF_DIR);
        assertThat(config.paths().allowedRoots()).isEqualTo(List.of(Path.of("/etc/cni")));
    }

    @Test
    void cleanupOnShutdownTakesAutoAlwaysNeverAndTheOldBooleans()
            throws IOException
    {
        for (var pair : Map.of("auto", CleanupMode.AUTO, "always", CleanupMode.ALWAYS, "never", CleanupMode.NEVER, "true", CleanupMode.ALWAYS,
                "false", CleanupMode.NEVER, "\"never\"", CleanupMode.NEVER).entrySet()) {
            assertThat(ConfigLoader.load(Optional.of(yaml("cleanupOnShutdown: " + pair.getKey() + "\n")), Map.of(), Map.of()).run().cleanupOnShutdown())
                    .as(pair.getKey()).isEqualTo(pair.getValue());
        }
        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(yaml("cleanupOnShutdown: sometimes\n")), Map.of(), Map.of()))
                .hasMessageContaining("cleanupOnShutdown").hasMessageContaining("'sometimes' is not auto, always or never");
    }

    @Test
    void podIdentityNeedsAllThreeDownwardApiVariables()
            throws IOException
    {
        Map<String, String> env = Map.of("POD_NAME", "cni-chain-x7k2p", "POD_NAMESPACE", "cni-chain", "NODE_NAME", "node-1");
        assertThat(ConfigLoader.load(Optional.empty(), env, Map.of()).run().pod())
                .contains(new PodIdentity("cni-chain", "cni-chain-x7k2p", "node-1"));
        assertThat(ConfigLoader.load(Optional.empty(), Map.of("POD_NAME", "p", "NODE_NAME", "n"), Map.of()).run().pod()).isEmpty();
        assertThatThrownBy(() -> ConfigLoader.load(Optional.empty(), Map.of("POD_NAMESPACE", "Bad_NS"), Map.of()))
                .hasMessageContaining("POD_NAMESPACE").hasMessageContaining("is not a namespace name");
    }

    @Test
    void runFlagsAndTheirYamlKeys()
            throws IOException
    {
        AgentConfig fromFile = ConfigLoader.load(Optional.of(yaml("healthPort: 0\ncleanupOnShutdown: never\nshutdownTimeoutSeconds: 5\n")), Map.of(),
                Map.of());
        assertThat(fromFile.run()).isEqualTo(new RunSettings(0, CleanupMode.NEVER, java.time.Duration.ofSeconds(5), java.time.Duration.ofSeconds(60),
                Optional.empty()));
        AgentConfig fromFlags = ConfigLoader.load(Optional.empty(), Map.of(),
                Map.of("--health-port", "9000", "--no-cleanup", "true", "--shutdown-timeout", "7"));
        assertThat(fromFlags.run()).isEqualTo(new RunSettings(9000, CleanupMode.NEVER, java.time.Duration.ofSeconds(7), java.time.Duration.ofSeconds(60),
                Optional.empty()));
        assertThat(ConfigLoader.load(Optional.empty(), Map.of(), Map.of()).run())
                .isEqualTo(new RunSettings(ConfigLoader.DEFAULT_HEALTH_PORT, CleanupMode.AUTO, ConfigLoader.DEFAULT_SHUTDOWN_TIMEOUT,
                        ConfigLoader.DEFAULT_PERIODIC_CHECK, Optional.empty()));
        assertThatThrownBy(() -> ConfigLoader.load(Optional.empty(), Map.of(), Map.of("--no-such-flag", "x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("no setting has the flag --no-such-flag");
    }

    @Test
    void kubeconfigNameTheRuntimeWouldLoadIsRefused()
            throws IOException
    {
        for (String extension : List.of(".conf", ".conflist", ".json")) {
            assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("KUBECONFIG_FILE_NAME", "ZZZ-kubeconfig" + extension), Map.of()),
                    "environment variable KUBECONFIG_FILE_NAME: 'ZZZ-kubeconfig" + extension + "' ends in " + extension
                            + ": the container runtime would read the kubeconfig, which holds a service-account token, as a CNI configuration");
        }
        Path file = yaml("kubeconfig:\n  fileName: 99-token.conflist\n");
        assertBad(() -> ConfigLoader.load(Optional.of(file), Map.of(), Map.of()),
                file + ": key 'kubeconfig.fileName': '99-token.conflist' ends in .conflist: the container runtime would read the kubeconfig");
        assertThat(ConfigLoader.load(Optional.empty(), Map.of("KUBECONFIG_FILE_NAME", "ZZZ.conflist-kubeconfig"), Map.of()).kubeconfig().fileName())
                .as("only the extensions the runtime loads are refused").isEqualTo("ZZZ.conflist-kubeconfig");
    }

    @Test
    void apiServerHostIsAnAddressOrADnsNameAndTheUrlBracketsIpv6()
    {
        Map<String, String> urls = new java.util.LinkedHashMap<>();
        urls.put("10.96.0.1", "https://10.96.0.1:443");
        urls.put("fd00::1", "https://[fd00::1]:443");
        urls.put("[fd00::1]", "https://[fd00::1]:443");
        urls.put("::ffff:10.96.0.1", "https://[::ffff:10.96.0.1]:443");
        urls.put("2001:db8:0:0:0:0:0:1", "https://[2001:db8:0:0:0:0:0:1]:443");
        urls.put("kubernetes.default.svc", "https://kubernetes.default.svc:443");
        urls.put("api-1.Example.com", "https://api-1.Example.com:443");
        urls.forEach((host, url) -> {
            ApiServerSettings api = ConfigLoader.load(Optional.empty(), Map.of("KUBERNETES_SERVICE_HOST", host, "KUBERNETES_SERVICE_PORT", "443"), Map.of())
                    .apiServer();
            assertThat(io.cnichain.core.install.KubeconfigRenderer.serverUrl(api.protocol(), api.host().orElseThrow(), api.port().orElseThrow()))
                    .as(host).isEqualTo(url);
        });
        Map<String, String> refused = new java.util.LinkedHashMap<>();
        refused.put("10.0.0.1\n", "'10.0.0.1\\n'");
        refused.put("10.0.0.1:443", "'10.0.0.1:443'");
        refused.put("api server", "'api server'");
        refused.put("10.0.0.256", "'10.0.0.256'");
        refused.put("010.0.0.1", "'010.0.0.1'");
        refused.put("[10.0.0.1]", "'[10.0.0.1]'");
        refused.put("[fd00::1", "'[fd00::1'");
        refused.put("fd00::1::2", "'fd00::1::2'");
        refused.put("1:2:3:4:5:6:7:8:9", "'1:2:3:4:5:6:7:8:9'");
        refused.put("-api.example.com", "'-api.example.com'");
        refused.put("api..example.com", "'api..example.com'");
        refused.put("https://api", "'https://api'");
        refused.forEach((host, shown) -> assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("KUBERNETES_SERVICE_HOST", host), Map.of()),
                "environment variable KUBERNETES_SERVICE_HOST: " + shown + " is not an IPv4 address, an IPv6 address or a DNS name"));
        for (String port : List.of("0", "65536", "+443", "443/api", "https")) {
            assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("KUBERNETES_SERVICE_PORT", port), Map.of()),
                    "environment variable KUBERNETES_SERVICE_PORT: '" + port + "' is not a port number");
        }
    }

    @Test
    void pluginTypeIsAPlainBinaryName()
            throws IOException
    {
        String rule = " is not a plain binary name (a letter or digit, then letters, digits, '.', '_' or '-')";
        Path file = yaml("plugin:\n  type: ../../usr/bin/evil\n");
        assertBad(() -> ConfigLoader.load(Optional.of(file), Map.of(), Map.of()), file + ": key 'plugin.type': '../../usr/bin/evil'" + rule);
        Path dots = yaml("plugin:\n  type: ..\n");
        assertBad(() -> ConfigLoader.load(Optional.of(dots), Map.of(), Map.of()), dots + ": key 'plugin.type': '..'" + rule);
        assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("CNI_NETWORK_CONFIG", "{\"type\":\"/opt/evil\"}"), Map.of()),
                "environment variable CNI_NETWORK_CONFIG: the chained plugin entry's type '/opt/evil'" + rule);
        Path entry = Files.writeString(temp.resolve("entry.json"), "{\"type\":\".hidden\"}");
        assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("CNI_NETWORK_CONFIG_FILE", entry.toString()), Map.of()),
                entry + ": (CNI_NETWORK_CONFIG_FILE) the chained plugin entry's type '.hidden'" + rule);
        assertThat(ConfigLoader.load(Optional.empty(), Map.of("CNI_NETWORK_CONFIG", "{\"type\":\"Linkerd_cni.v2-1\"}"), Map.of()).plugin().type())
                .isEqualTo("Linkerd_cni.v2-1");
    }

    @Test
    void pluginEntryJsonWithAKeyGivenTwiceIsRefused()
            throws IOException
    {
        assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("CNI_NETWORK_CONFIG", "{\"type\":\"linkerd-cni\",\"type\":\"evil\"}"), Map.of()),
                "environment variable CNI_NETWORK_CONFIG: the chained plugin entry has the key 'type' twice (line 1, column ");
        Path entry = Files.writeString(temp.resolve("entry.json"), "{\"type\":\"linkerd-cni\",\n \"linkerd\":{\"proxy-uid\":2102,\"proxy-uid\":0}}");
        assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("CNI_NETWORK_CONFIG_FILE", entry.toString()), Map.of()),
                entry + ": (CNI_NETWORK_CONFIG_FILE) the chained plugin entry has the key 'proxy-uid' twice (line 2, column ");
    }

    @Test
    void settingsThatWouldBreakLaterAreRefusedAtStart()
    {
        assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("KUBECONFIG_FILE_NAME", "x.conflist-current"), Map.of()),
                "environment variable KUBECONFIG_FILE_NAME: 'x.conflist-current' looks like a CNI configuration (.conflist-current, the file behind "
                        + "OCI's link)");
        assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("NODE_TAINT_KEY", "node.kubernetes.io/not-ready"), Map.of()),
                "environment variable NODE_TAINT_KEY: 'node.kubernetes.io/not-ready' is a taint of Kubernetes' own (prefix node.kubernetes.io)");
        assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("CNI_NETWORK_CONFIG", "{\"type\":\"linkerd-cni\",\"ipam\":\"str\"}"), Map.of()),
                "the chained plugin entry's 'ipam' must be an object whose 'type' is a string, as libcni reads it");
        assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("CNI_NETWORK_CONFIG", "{\"type\":\"linkerd-cni\",\"capabilities\":{\"a\":1}}"), Map.of()),
                "'capabilities' must be an object of booleans");
    }

    @Test
    void aTokenSentInTheClearOrToAnyoneIsAWarningAtEveryStart()
    {
        CapturedLog.clear();
        AgentConfig config = ConfigLoader.load(Optional.empty(), Map.of("KUBERNETES_SERVICE_PROTOCOL", "http", "SKIP_TLS_VERIFY", "true"), Map.of());
        assertThat(CapturedLog.lines()).as("said once the log's level and format are set, not while loading").isEmpty();
        assertThat(unprotectedTokenLines(config)).containsExactly(
                "WARN environment variable KUBERNETES_SERVICE_PROTOCOL: http: the kubeconfig makes every pod's linkerd-cni send the "
                        + "service-account token to the API server unencrypted, readable by anyone on the path; use https",
                "WARN environment variable SKIP_TLS_VERIFY: true: the kubeconfig makes every pod's linkerd-cni send the service-account token "
                        + "to whatever answers at the API server's address, without checking its certificate; give it the CA instead "
                        + "(kubeconfig.caFile)");
        assertThat(unprotectedTokenLines(ConfigLoader.load(Optional.empty(), Map.of(), Map.of()))).isEmpty();
    }

    private static List<String> unprotectedTokenLines(AgentConfig config)
    {
        return notices(config).stream().filter(line -> line.contains("the kubeconfig makes every pod's linkerd-cni send")).toList();
    }

    private static List<String> notices(AgentConfig config)
    {
        return config.log().notices().stream().map(notice -> notice.level() + " " + notice.message()).toList();
    }

    @Test
    void kubeconfigModeWritableByOthersIsRefusedAndReadableByOthersIsAWarning()
            throws IOException
    {
        for (String mode : List.of("0666", "0777", "0602", "602", "0660", "0620")) {
            String octal = mode.length() == 3 ? "0" + mode : mode;
            String who = (Integer.parseInt(octal, 8) & 02) != 0 ? "others" : "its group";
            assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("KUBECONFIG_MODE", mode), Map.of()),
                    "environment variable KUBECONFIG_MODE: " + octal + " lets " + who + " write the kubeconfig, which holds a service-account token "
                            + "and names the API server every pod's plugin trusts; use a mode writable by its owner only, such as 0600 or 0644");
        }
        AgentConfig config = ConfigLoader.load(Optional.empty(), Map.of("KUBECONFIG_MODE", "0644"), Map.of());
        assertThat(PosixFilePermissions.toString(config.kubeconfig().mode())).isEqualTo("rw-r--r--");
        assertThat(configLines(config)).containsExactly("WARN environment variable KUBECONFIG_MODE: mode 0644 makes the kubeconfig, "
                + "and the service-account token in it, readable by its group and others");

        Path file = yaml("kubeconfig:\n  mode: \"0640\"\n");
        assertThat(configLines(ConfigLoader.load(Optional.of(file), Map.of(), Map.of()))).containsExactly("WARN " + file + ": key 'kubeconfig.mode': "
                + "mode 0640 makes the kubeconfig, and the service-account token in it, readable by its group");

        assertThat(configLines(ConfigLoader.load(Optional.of(file), Map.of("KUBECONFIG_MODE", "0600"), Map.of()))).as("only the mode that applies is judged")
                .isEmpty();
        assertThat(configLines(ConfigLoader.load(Optional.empty(), Map.of("KUBECONFIG_MODE", "0604"), Map.of("--host-root", "/"))))
                .containsExactly("WARN environment variable KUBECONFIG_MODE: mode 0604 makes the kubeconfig, and the service-account token in it, "
                        + "readable by others");

        Path unquoted = yaml("kubeconfig:\n  mode: 0644\n");
        assertBad(() -> ConfigLoader.load(Optional.of(unquoted), Map.of(), Map.of()),
                unquoted + ": key 'kubeconfig.mode': 420 is a number, not an octal file mode: write the mode in quotes, such as \"0600\"");
    }

    @Test
    void adapterChoiceNamesItsSourceSoThatAMissingAdapterDoes()
            throws IOException
    {
        assertThat(ConfigLoader.load(Optional.empty(), Map.of(), Map.of()).adapters().choice().source()).isEqualTo("default");
        Path file = yaml("adapter: [nosuch]\n");
        AgentConfig fromFile = ConfigLoader.load(Optional.of(file), Map.of(), Map.of());
        assertThat(fromFile.adapters().choice().source()).isEqualTo(file + ": key 'adapter'");
        AgentConfig fromFlag = ConfigLoader.load(Optional.of(file), Map.of(), Map.of("--adapter", "nosuch"));
        assertThat(fromFlag.adapters().choice().source()).isEqualTo("--adapter");

        AdapterRegistry registry = AdapterRegistry.fromClassLoader(getClass().getClassLoader());
        assertBad(() -> new Engine(fromFlag, registry), "--adapter: no adapter named 'nosuch' is installed (installed: ");
        assertBad(() -> new Engine(fromFile, registry), file + ": key 'adapter': no adapter named 'nosuch' is installed (installed: ");
    }

    private static List<String> configLines(AgentConfig config)
    {
        return notices(config).stream().filter(line -> line.contains("KUBECONFIG_MODE") || line.contains("kubeconfig.mode")).toList();
    }

    private Path yaml(String content)
            throws IOException
    {
        return Files.writeString(Files.createTempFile(temp, "cni-chain", ".yaml"), content);
    }

    private static void assertBad(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message)
    {
        assertThatThrownBy(call).isInstanceOfSatisfying(CniChainException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.BAD_CONFIG);
            assertThat(e.code().exitCode()).isEqualTo(2);
            assertThat(e.getMessage()).contains(message);
        });
    }

    /** Code from the host's side of the mounts would let a ConfigMap edit run code as root on every node. */
    @Test
    void pluginsDirAndSourceBinDirOnTheHostsSideAreRefusedNamingTheSetting(@org.junit.jupiter.api.io.TempDir Path dir)
            throws java.io.IOException
    {
        Path yaml = java.nio.file.Files.writeString(dir.resolve("cni-chain.yaml"), "pluginsDir: /host/opt/cni/bin\n");
        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(yaml), Map.of(), Map.of()))
                .hasMessageStartingWith(yaml + ": key 'pluginsDir': pluginsDir /host/opt/cni/bin is inside /host, outside the image")
                .satisfies(e -> assertThat(((io.cnichain.core.CniChainException) e).code()).isEqualTo(io.cnichain.core.ErrorCode.BAD_CONFIG));
        assertThatThrownBy(() -> ConfigLoader.load(Optional.empty(), Map.of("CONTAINER_CNI_BIN_DIR", "/opt/image/../../host/tmp"), Map.of()))
                .hasMessageStartingWith("environment variable CONTAINER_CNI_BIN_DIR: sourceBinDir /host/tmp is inside /host");
        assertThatThrownBy(() -> ConfigLoader.load(Optional.empty(), Map.of(), Map.of("--plugins-dir", "/mnt/host/etc/cni/net.d/jars",
                "--host-root", "/mnt/host")))
                .hasMessageStartingWith("--plugins-dir: pluginsDir /mnt/host/etc/cni/net.d/jars is inside /mnt/host");
        // Where a path really leads decides: a link, /proc/self/root, the ConfigMap's and the service account's volumes.
        Path host = java.nio.file.Files.createDirectories(dir.resolve("host/opt/cni/bin"));
        Path link = java.nio.file.Files.createSymbolicLink(dir.resolve("image-looking"), host);
        assertThatThrownBy(() -> ConfigLoader.load(Optional.empty(), Map.of("CONTAINER_CNI_BIN_DIR", link.toString()),
                Map.of("--host-root", dir.resolve("host").toString())))
                .hasMessageStartingWith("environment variable CONTAINER_CNI_BIN_DIR: sourceBinDir " + link + " (really " + host + ") is inside " + dir.resolve("host"));
        Path viaProc = Path.of("/proc/self/root").resolve(Path.of("/").relativize(host));
        assertThatThrownBy(() -> ConfigLoader.load(Optional.empty(), Map.of(), Map.of("--host-root", dir.resolve("host").toString(),
                "--plugins-dir", viaProc.toString())))
                .hasMessageStartingWith("--plugins-dir: pluginsDir " + viaProc + " (really " + host + ") is inside");
        java.nio.file.Files.writeString(dir.resolve("other.yaml"), "sourceBinDir: " + dir + "\n");
        assertThatThrownBy(() -> ConfigLoader.load(Optional.of(dir.resolve("other.yaml")), Map.of(), Map.of()))
                .hasMessageStartingWith(dir.resolve("other.yaml") + ": key 'sourceBinDir': sourceBinDir " + dir + " is inside " + dir + ", outside the image");
        assertThatThrownBy(() -> ConfigLoader.load(Optional.empty(), Map.of("CONTAINER_CNI_BIN_DIR", "/var/run/secrets/kubernetes.io/serviceaccount"),
                Map.of()))
                .hasMessageStartingWith("environment variable CONTAINER_CNI_BIN_DIR: sourceBinDir /var/run/secrets/kubernetes.io/serviceaccount")
                .hasMessageContaining("is inside /var/run/secrets/kubernetes.io/serviceaccount, outside the image");
        // The image's own directories, and anything on a host run with host root /, are fine.
        assertThat(ConfigLoader.load(Optional.empty(), Map.of(), Map.of()).adapters().pluginsDir()).isEqualTo(ConfigLoader.DEFAULT_PLUGINS_DIR);
        assertThat(ConfigLoader.load(Optional.empty(), Map.of(), Map.of("--host-root", "/", "--plugins-dir", "/opt/cni/bin/jars"))
                .adapters().pluginsDir()).isEqualTo(Path.of("/opt/cni/bin/jars"));
    }
}
