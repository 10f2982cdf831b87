package io.cnichain.agent.config;

import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ConfigLoader;
import io.cnichain.core.config.NodeTaintSettings;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code nodeTaint.*} and {@code NODE_NAME}: off by default, and when on, everything the remover needs is checked at start. */
class NodeTaintConfigTest
{
    static final Map<String, String> IN_A_POD = Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", "443", "NODE_NAME", "node-1");

    @TempDir
    Path temp;

    @Test
    void offByDefaultAndNothingIsCreated()
    {
        AgentConfig config = ConfigLoader.load(Optional.empty(), IN_A_POD, Map.of());
        assertThat(config.nodeTaint()).isEqualTo(new NodeTaintSettings(false, "cni-chain.io/not-ready", Optional.of("node-1")));
        assertThat(ConfigLoader.load(Optional.empty(), Map.of(), Map.of()).nodeTaint().nodeName()).isEmpty();
    }

    @Test
    void enabledFromTheFileOrTheEnvironment()
            throws IOException
    {
        Path file = Files.writeString(temp.resolve("cni-chain.yaml"), "nodeTaint:\n  enabled: true\n  key: example.com/cni-not-ready\n");
        AgentConfig fromFile = ConfigLoader.load(Optional.of(file), IN_A_POD, Map.of());
        assertThat(fromFile.nodeTaint()).isEqualTo(new NodeTaintSettings(true, "example.com/cni-not-ready", Optional.of("node-1")));

        AgentConfig fromEnvironment = ConfigLoader.load(Optional.empty(), with(IN_A_POD, "NODE_TAINT_ENABLED", "true", "NODE_TAINT_KEY", "cni-not-ready"),
                Map.of());
        assertThat(fromEnvironment.nodeTaint()).isEqualTo(new NodeTaintSettings(true, "cni-not-ready", Optional.of("node-1")));
    }

    @Test
    void enabledWithoutWhatItNeedsIsAConfigurationError()
            throws IOException
    {
        Path file = Files.writeString(temp.resolve("cni-chain.yaml"), "nodeTaint: {enabled: true}\n");
        Map<String, String> noNodeName = new HashMap<>(IN_A_POD);
        noNodeName.remove("NODE_NAME");
        assertBad(() -> ConfigLoader.load(Optional.of(file), noNodeName, Map.of()), file + ": key 'nodeTaint.enabled': is true, but NODE_NAME is not set: "
                + "give the agent its node's name from the downward API (env NODE_NAME, valueFrom.fieldRef.fieldPath: spec.nodeName)");
        assertBad(() -> ConfigLoader.load(Optional.empty(), with(noNodeName, "NODE_TAINT_ENABLED", "true", "NODE_NAME", ""), Map.of()),
                "environment variable NODE_TAINT_ENABLED: is true, but NODE_NAME is not set");
        assertBad(() -> ConfigLoader.load(Optional.of(file), Map.of("NODE_NAME", "node-1"), Map.of()),
                "key 'nodeTaint.enabled': is true, but KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT is not set: the agent cannot reach the API server");
        assertBad(() -> ConfigLoader.load(Optional.of(file), with(IN_A_POD, "KUBERNETES_SERVICE_PROTOCOL", "http"), Map.of()),
                "key 'nodeTaint.enabled': is true, but KUBERNETES_SERVICE_PROTOCOL is http: the agent sends its service-account token over https only");
    }

    @Test
    void keysAndNodeNamesAreCheckedAsKubernetesChecksThem()
    {
        for (String key : new String[] {"cni-chain.io/not-ready", "not-ready", "a/b", "x.y.z/Name_1.2-3"}) {
            assertThat(ConfigLoader.load(Optional.empty(), Map.of("NODE_TAINT_KEY", key), Map.of()).nodeTaint().key()).isEqualTo(key);
        }
        for (String key : new String[] {"/", "/x", "Example.com/x", "a/b/c", "x/-y", "x/" + "n".repeat(64), "with space"}) {
            assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("NODE_TAINT_KEY", key), Map.of()),
                    "environment variable NODE_TAINT_KEY: '" + key + "' is not a taint key");
        }
        for (String name : new String[] {"node-1", "ip-10-0-1-7.eu-west-1.compute.internal"}) {
            assertThat(ConfigLoader.load(Optional.empty(), Map.of("NODE_NAME", name), Map.of()).nodeTaint().nodeName()).contains(name);
        }
        for (String name : new String[] {"Node-1", "node/1", "../nodes", "node-", "a".repeat(254)}) {
            assertBad(() -> ConfigLoader.load(Optional.empty(), Map.of("NODE_NAME", name), Map.of()),
                    "environment variable NODE_NAME: '" + name + "' is not a node name");
        }
    }

    private static Map<String, String> with(Map<String, String> env, String... pairs)
    {
        Map<String, String> result = new HashMap<>(env);
        for (int i = 0; i < pairs.length; i += 2) {
            result.put(pairs[i], pairs[i + 1]);
        }
        return result;
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
