package io.cnichain.core.config;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
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

    @Test
    void malformedYamlDuplicateKeysAndMissingFiles()
            throws IOException
    {
        Path broken = yaml("confDir: [unclosed\n");
        assertBad(() -> ConfigLoader.load(Optional.of(broken), Map.of(), Map.of()), broken + ": is not valid YAML");
        Path duplicate = yaml("confDir: /a\nconfDir: /b\n");
        assertBad(() -> ConfigLoader.load(Optional.of(duplicate), Map.of(), Map.of()), duplicate + ": is not valid YAML");
        Path list = yaml("- a\n- b\n");
        assertBad(() -> ConfigLoader.load(Optional.of(list), Map.of(), Map.of()), list + ": must be a YAML mapping of settings, not a list");
        Path missing = temp.resolve("nope.yaml");
        assertBad(() -> ConfigLoader.load(Optional.of(missing), Map.of(), Map.of()), missing + ": does not exist");
    }

    @Test
    void emptyFileMeansDefaults()
            throws IOException
    {
        AgentConfig config = ConfigLoader.load(Optional.of(yaml("")), Map.of(), Map.of());
        assertThat(config.paths().confDir()).isEqualTo(ConfigLoader.DEFAULT_CONF_DIR);
        assertThat(config.paths().allowedRoots()).isEqualTo(List.of(Path.of("/etc/cni")));
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
}
