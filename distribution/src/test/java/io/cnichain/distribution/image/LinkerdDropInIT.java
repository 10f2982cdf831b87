package io.cnichain.distribution.image;

import io.cnichain.distribution.image.DropInLayout.Primary;
import io.cnichain.distribution.kubernetes.LinkerdChart;
import io.cnichain.distribution.runtime.Commands;
import io.cnichain.distribution.runtime.Podman;
import io.cnichain.distribution.runtime.RealRuntime;
import io.cnichain.distribution.runtime.RuntimeNode;
import io.cnichain.distribution.runtime.RuntimeRequirements;
import io.cnichain.distribution.runtime.Sandbox;
import io.cnichain.distribution.runtime.StandInLog;
import io.cnichain.distribution.runtime.StandInLog.Call;
import io.cnichain.distribution.runtime.Steps;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built image as a drop-in for the {@code install-cni} container of Linkerd's {@code linkerd2-cni} DaemonSet:
 * run by podman with that chart's environment (its ConfigMap's {@code cni_network_config} as
 * {@code CNI_NETWORK_CONFIG}, {@code DEST_CNI_NET_DIR}, {@code DEST_CNI_BIN_DIR}, the API server's service), a
 * read-only root, {@code /tmp} on a tmpfs, the host's network, the node's dirs under {@code /host} and a service
 * account where Kubernetes mounts it; the plugin's binary comes out of its own image through an init container.
 * podman then starts a container on the patched network, whose chain runs the stand-in {@code linkerd-cni} last,
 * and the chart's preStop hook ({@code kill -15 1; sleep 15s}) followed by {@code podman stop} leaves the node as
 * it was, links kept, before the container exits.
 */
@RealRuntime
class LinkerdDropInIT
{
    private RuntimeNode node;

    @AfterEach
    void tearDown()
    {
        if (node != null) {
            node.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(DropInLayout.class)
    void chartEnvironmentInstallsRunsTheChainAndCleansUpOnPreStop(DropInLayout layout, Sandbox sandbox)
            throws IOException, InterruptedException
    {
        node = sandbox.node("dropin-" + layout.label());
        Primary primary = layout.lay(node);
        String image = ImageUnderTest.load(sandbox, node);
        Path pluginBin = AgentContainer.copyPluginBinary(node, PluginImage.build(sandbox, node));

        Map<String, String> env = AgentContainer.kubernetesServiceEnv();
        env.putAll(LinkerdChart.installCniEnvironment(node.confDir(), node.binDir()));
        AgentContainer agent = AgentContainer.start(node, image, pluginBin, env, List.of("CHOWN"));
        Duration ready = agent.awaitReady(Duration.ofSeconds(60));
        Steps.say(layout.label() + ": image " + image + " ready after " + ready.toMillis() + " ms with the linkerd2-cni chart's environment");

        long pid = agent.pid();
        assertThat(Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "exe"))).as("the launcher exec'd the JVM")
                .hasToString("/opt/java/bin/java");
        assertThat(Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream().filter(l -> l.startsWith("NSpid:")).findFirst())
                .as("the JVM is the container's PID 1").hasValueSatisfying(line -> assertThat(line).endsWith("\t1"));

        assertInstalled(primary, pluginBin);
        Podman podman = node.podman();
        StandInLog standIn = node.standIn();
        String workload = primary.network() + "-pod";
        String id = podman.start(primary.network(), workload);
        String address = podman.address(workload);
        assertThat(address).startsWith(primary.subnetPrefix());
        List<Call> added = standIn.calls();
        assertThat(added).extracting(Call::command).containsExactly("ADD");
        Call add = added.get(0);
        assertThat(add.containerId()).isEqualTo(id);
        assertThat(add.prevAddresses()).as("linkerd-cni ran after the primary, with its result").containsExactly(address);
        assertThat(add.config().at("/kubernetes/kubeconfig").asText()).as("the kubeconfig's host path").isEqualTo(node.kubeconfig().toString());
        assertThat(add.config().at("/linkerd/iptables-mode").asText()).as("the entry from the chart's CNI_NETWORK_CONFIG").isEqualTo("legacy");
        podman.remove(workload);
        assertThat(standIn.awaitCalls(2)).extracting(Call::command).containsExactly("ADD", "DEL");
        Steps.say(layout.label() + ": a container on " + primary.network() + " got " + address + " and ran linkerd-cni last");

        // The chart's preStop hook: SIGTERM to PID 1, then a sleep the container's exit cuts short.
        long stopping = System.nanoTime();
        Commands.Result preStop = agent.exec("/bin/sh", "-c", "kill -15 1; sleep 15s");
        long preStopMillis = (System.nanoTime() - stopping) / 1_000_000;
        agent.stop(30);
        assertThat(agent.awaitExit()).as("exit code after cleanup; preStop said: %s\n%s", preStop, agent.logs()).isZero();
        String logs = agent.logs();
        assertThat(logs).contains("Removing linkerd-cni artifacts.", "Exiting.");
        assertThat(logs.strip()).as("cleanup finished before the container exited").endsWith("Exiting.");
        Steps.say(layout.label() + ": preStop (kill -15 1; sleep 15s) returned after " + preStopMillis + " ms with exit " + preStop.code()
                + "; the agent cleaned up and exited 0");

        assertRestored(primary);
        String again = podman.runOnce(primary.network());
        assertThat(again).startsWith(primary.subnetPrefix());
        assertThat(standIn.calls()).as("no linkerd-cni once cni-chain is gone").hasSize(2);
    }

    private void assertInstalled(Primary primary, Path pluginBin)
            throws IOException
    {
        List<String> expected = new ArrayList<>(primary.primaryTypes());
        expected.add(RuntimeNode.PLUGIN);
        assertThat(RuntimeNode.pluginTypes(RuntimeNode.json(primary.installedFile()))).as("our entry last in %s", primary.installedFile())
                .containsExactlyElementsOf(expected);
        if (primary.linkText().isPresent()) {
            assertThat(Files.readSymbolicLink(primary.installedEntry())).as("the link stays a link").hasToString(primary.linkText().get());
        }
        assertThat(node.installedPlugin()).hasSameBinaryContentAs(pluginBin.resolve(RuntimeNode.PLUGIN)).isExecutable();
        assertThat(node.kubeconfig()).exists();
        assertThat(Files.getPosixFilePermissions(node.kubeconfig())).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        String kubeconfig = Files.readString(node.kubeconfig());
        assertThat(kubeconfig).contains("https://10.96.0.1:443", Files.readString(node.serviceAccountDir().resolve("token")).strip());
    }

    private void assertRestored(Primary primary)
            throws IOException
    {
        assertThat(RuntimeNode.json(primary.installedFile())).as("the primary as it was").isEqualTo(primary.original());
        if (primary.linkText().isPresent()) {
            assertThat(Files.readSymbolicLink(primary.installedEntry())).hasToString(primary.linkText().get());
        }
        assertThat(node.kubeconfig()).doesNotExist();
        assertThat(node.installedPlugin()).doesNotExist();
        List<String> binaries = new ArrayList<>(RuntimeRequirements.PLUGINS);
        binaries.addAll(primary.platformBinaries());
        try (Stream<Path> files = Files.list(node.binDir())) {
            assertThat(files.map(p -> p.getFileName().toString())).as("the node's own binaries stay").containsExactlyInAnyOrderElementsOf(binaries);
        }
    }
}
