package io.cnichain.distribution.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.json.CniJson;
import io.cnichain.distribution.runtime.CniRunner.Step;
import io.cnichain.distribution.runtime.Layout.Primary;
import io.cnichain.distribution.runtime.StandInLog.Call;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The patched configuration run with the real plugin binaries directly, in a network namespace of the test's
 * own, following the CNI specification: no runtime in between, so every plugin's input and output can be checked.
 */
@RealRuntime
class PluginsInNamespaceIT
{
    private RuntimeNode node;

    @AfterEach
    void tearDown()
    {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void patchedOciLinkRunsBridgeThenPortmapThenTheChainedPluginWithPrevResult(Sandbox sandbox)
            throws IOException
    {
        node = sandbox.node("netns");
        Primary primary = Layout.OCI_RELATIVE_LINK.lay(node);
        Commands.Result install = node.install();
        assertThat(install.code()).as(install.toString()).isZero();

        Path netns = node.namespace("a");
        String namespace = netns.getFileName().toString();
        String containerId = "direct-" + sandbox.runId();
        int hostPort = freePort();
        ObjectNode runtimeConfig = CniJson.mapper().createObjectNode();
        runtimeConfig.putArray("portMappings").addObject().put("hostPort", hostPort).put("containerPort", 80).put("protocol", "tcp");
        // The runtime reads the configuration through the link, by the link's name.
        CniRunner runner = new CniRunner(node.binDir(), primary.installedEntry());

        List<Step> add = runner.add(containerId, netns, "eth0", runtimeConfig);
        assertThat(add).extracting(Step::type).containsExactly("bridge", "portmap", "linkerd-cni");
        JsonNode bridgeResult = add.get(0).result().orElseThrow();
        JsonNode portmapResult = add.get(1).result().orElseThrow();
        JsonNode finalResult = add.get(2).result().orElseThrow();
        String address = bridgeResult.at("/ips/0/address").asText();
        assertThat(address).startsWith(primary.subnetPrefix());
        assertThat(add.get(1).stdin().at("/runtimeConfig/portMappings/0/hostPort").asInt()).as("portmap got the port mapping").isEqualTo(hostPort);

        List<Call> calls = node.standIn().calls();
        assertThat(calls).hasSize(1);
        Call call = calls.get(0);
        assertThat(call.command()).isEqualTo("ADD");
        assertThat(call.containerId()).isEqualTo(containerId);
        assertThat(call.netns()).isEqualTo(netns.toString());
        assertThat(call.config().path("name").asText()).isEqualTo(primary.network());
        assertThat(call.config().path("cniVersion").asText()).isEqualTo("0.3.1");
        assertThat(call.config().get("prevResult")).as("the previous plugin's result").isEqualTo(portmapResult);
        assertThat(call.prevAddresses()).as("which carries the bridge's address").containsExactly(address);
        assertThat(call.prevInterfaces()).contains(primary.bridge(), "eth0");
        assertThat(call.config().has("runtimeConfig")).as("the entry declares no capabilities").isFalse();
        assertThat(finalResult).as("the chain's result is what the last plugin printed").isEqualTo(portmapResult);

        String inside = Commands.ok("ip", "netns", "exec", namespace, "ip", "-4", "-o", "addr", "show", "dev", "eth0").out();
        assertThat(Network.ipv4(inside)).hasValue(address);
        String routes = Commands.ok("ip", "netns", "exec", namespace, "ip", "-4", "route").out();
        assertThat(routes).contains("default via " + bridgeResult.at("/ips/0/gateway").asText());
        assertThat(Commands.ok("iptables", "-w", "-t", "nat", "-S", "CNI-HOSTPORT-DNAT").out())
                .as("portmap set up the host port").contains("--dports " + hostPort);
        Steps.say("netns " + namespace + ": bridge gave " + address + ", portmap mapped " + hostPort + ", linkerd-cni ran last with prevResult "
                + CniJson.compact(call.prevResult().orElseThrow()));

        List<Step> del = runner.del(containerId, netns, "eth0", runtimeConfig, finalResult);
        assertThat(del).extracting(Step::type).containsExactly("linkerd-cni", "portmap", "bridge");
        assertThat(node.standIn().calls()).extracting(Call::command).containsExactly("ADD", "DEL");
        assertThat(Commands.run("ip", "netns", "exec", namespace, "ip", "link", "show", "dev", "eth0").code()).as("eth0 is gone").isNotZero();
        assertThat(Commands.ok("iptables", "-w", "-t", "nat", "-S").out()).as("the port mapping is gone").doesNotContain("--dports " + hostPort);
    }

    private static int freePort()
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
