package io.cnichain.distribution.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.json.CniJson;
import io.cnichain.distribution.runtime.DirectoryEvents.Event;
import io.cnichain.distribution.runtime.Layout.Primary;
import io.cnichain.distribution.runtime.StandInLog.Call;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * For every layout a primary leaves: cni-chain installs through the real launcher, podman (its CNI backend on the
 * node's conf dir) starts a container that gets an address from the bridge while the stand-in linkerd-cni sees
 * ADD with the primary's result as prevResult, removing the container calls DEL; after uninstall the primary is
 * as it was, a new container runs without the stand-in, and the binary went only after no config named it.
 */
@RealRuntime
class PodmanLayoutsIT
{
    private Sandbox sandbox;
    private RuntimeNode node;

    @BeforeEach
    void setUp(Sandbox sandbox)
    {
        this.sandbox = sandbox;
    }

    @AfterEach
    void tearDown()
    {
        if (node != null) {
            node.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Layout.class)
    void containerRunsTheChainedPluginAndUninstallLeavesTheNodeAsItWas(Layout layout)
            throws IOException
    {
        node = sandbox.node(layout.label());
        Primary primary = layout.lay(node);
        Podman podman = node.podman();
        StandInLog standIn = node.standIn();

        Commands.Result install = node.install();
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(install.err()).contains("Created CNI config " + primary.installedFile());
        assertInstalled(primary);
        Steps.say(layout + ": installed into " + primary.installedEntry().getFileName()
                + primary.linkText().map(text -> " -> " + text).orElse("") + ": " + RuntimeNode.pluginTypes(RuntimeNode.json(primary.installedFile())));

        assertThat(podman.networks()).as("podman reads the node's conf dir").contains(primary.network());
        String name = primary.network() + "-c1";
        String id = podman.start(primary.network(), name);
        String address = podman.address(name);
        assertThat(address).as("an address from the bridge's subnet").startsWith(primary.subnetPrefix()).endsWith("/24");

        List<Call> added = standIn.calls();
        assertThat(added).as("the stand-in's calls after the container started").hasSize(1);
        Call add = added.get(0);
        assertThat(add.command()).isEqualTo("ADD");
        assertThat(add.containerId()).isEqualTo(id);
        assertThat(add.ifName()).isEqualTo("eth0");
        assertThat(add.netns()).isNotBlank();
        assertThat(add.config().path("type").asText()).isEqualTo("linkerd-cni");
        assertThat(add.config().path("name").asText()).as("the runtime passes the list's name").isEqualTo(primary.network());
        assertThat(add.config().path("cniVersion").asText()).isEqualTo(primary.cniVersion());
        assertThat(add.config().at("/linkerd/proxy-uid").asInt()).as("our entry, as cni-chain wrote it").isEqualTo(2102);
        assertThat(add.config().at("/kubernetes/kubeconfig").asText()).isEqualTo(node.kubeconfig().toString());
        assertThat(add.prevAddresses()).as("prevResult is the bridge's result: the container's address").containsExactly(address);
        assertThat(add.prevInterfaces()).as("prevResult names the bridge").contains(primary.bridge(), "eth0");
        Steps.say(layout + ": container " + id.substring(0, 12) + " got " + address + "; linkerd-cni ran last with prevResult "
                + CniJson.compact(add.prevResult().orElseThrow()));

        podman.remove(name);
        List<Call> afterRemove = standIn.awaitCalls(2);
        assertThat(afterRemove).as("removing the container calls DEL on the stand-in").hasSize(2);
        Call del = afterRemove.get(1);
        assertThat(del.command()).isEqualTo("DEL");
        assertThat(del.containerId()).isEqualTo(id);
        assertThat(del.config().path("type").asText()).isEqualTo("linkerd-cni");

        uninstallRemovingTheBinaryLast(primary);
        assertRestored(primary);

        if (primary.restoredEntry().getFileName().toString().endsWith(".conflist")) {
            String again = podman.runOnce(primary.network());
            assertThat(again).startsWith(primary.subnetPrefix());
            Steps.say(layout + ": after uninstall a new container got " + again + " without linkerd-cni");
        }
        else {
            // podman 4's CNI backend reads .conflist files only; containerd and CRI-O load a .conf too, so the restored
            // .conf runs here the way they run it: its one plugin, in a namespace of our own.
            assertThat(podman.networks()).doesNotContain(primary.network());
            runRestoredConfInANamespace(primary);
        }
        assertThat(standIn.calls()).as("no call to linkerd-cni after uninstall").hasSize(2);
    }

    private void assertInstalled(Primary primary)
            throws IOException
    {
        JsonNode installed = RuntimeNode.json(primary.installedFile());
        List<String> expected = new ArrayList<>(primary.primaryTypes());
        expected.add("linkerd-cni");
        assertThat(RuntimeNode.pluginTypes(installed)).as("our entry last").containsExactlyElementsOf(expected);
        assertThat(installed.path("name").asText()).as("network name kept").isEqualTo(primary.network());
        assertThat(installed.path("cniVersion").asText()).as("cniVersion kept").isEqualTo(primary.cniVersion());
        if (primary.linkText().isPresent()) {
            assertThat(Files.isSymbolicLink(primary.installedEntry())).as("the link stays a link").isTrue();
            assertThat(Files.readSymbolicLink(primary.installedEntry())).hasToString(primary.linkText().get());
        }
        if (!primary.installedEntry().equals(primary.restoredEntry())) {
            assertThat(primary.restoredEntry()).as("the .conf is gone once the .conflist is in place").doesNotExist();
        }
        assertThat(node.installedPlugin()).as("cni-chain copied the stand-in into the bin dir")
                .hasSameBinaryContentAs(node.imageBinDir().resolve(RuntimeNode.PLUGIN));
        assertThat(node.installedPlugin()).isExecutable();
    }

    /** Uninstall, watching the conf dir, the primary's directory and the bin dir in one inotify queue. */
    private void uninstallRemovingTheBinaryLast(Primary primary)
    {
        Path binary = node.installedPlugin();
        List<Event> events;
        try (DirectoryEvents watch = DirectoryEvents.watch(node.root(), node.confDir(), primary.restoredFile().getParent(), node.binDir())) {
            Commands.Result uninstall = node.uninstall();
            assertThat(uninstall.code()).as(uninstall.toString()).isZero();
            events = watch.until(event -> event.path().equals(binary) && event.is("DELETE"));
        }
        int binaryGone = indexOf(events, binary, "DELETE");
        Path configDir = primary.restoredFile().getParent();
        int lastConfigWrite = -1;
        for (int i = 0; i < events.size(); i++) {
            Event event = events.get(i);
            boolean configFile = event.path().getParent().equals(configDir) && event.path().getFileName().toString().contains(".conf");
            if (configFile && (event.is("MOVED_TO") || event.is("DELETE") || event.is("CLOSE_WRITE"))) {
                lastConfigWrite = i;
            }
        }
        assertThat(lastConfigWrite).as("the configuration was rewritten: %s", events).isGreaterThanOrEqualTo(0);
        assertThat(binaryGone).as("the binary went after the last configuration change: %s", events).isGreaterThan(lastConfigWrite);
        assertThat(indexOf(events, node.kubeconfig(), "DELETE")).as("the kubeconfig went after the configuration too")
                .isGreaterThan(lastConfigWrite);
    }

    private static int indexOf(List<Event> events, Path path, String kind)
    {
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).path().equals(path) && events.get(i).is(kind)) {
                return i;
            }
        }
        return -1;
    }

    private void assertRestored(Primary primary)
            throws IOException
    {
        assertThat(RuntimeNode.json(primary.restoredFile())).as("the primary is as it was").isEqualTo(primary.original());
        if (primary.linkText().isPresent()) {
            assertThat(Files.readSymbolicLink(primary.restoredEntry())).hasToString(primary.linkText().get());
        }
        if (!primary.installedEntry().equals(primary.restoredEntry())) {
            assertThat(primary.installedEntry()).as("the .conflist made from the .conf is gone").doesNotExist();
        }
        assertThat(node.installedPlugin()).doesNotExist();
        assertThat(node.kubeconfig()).doesNotExist();
        try (var files = Files.list(node.binDir())) {
            assertThat(files.map(p -> p.getFileName().toString())).as("the real plugins stay")
                    .containsExactlyInAnyOrderElementsOf(RuntimeRequirements.PLUGINS);
        }
    }

    private void runRestoredConfInANamespace(Primary primary)
    {
        Path netns = node.namespace("restored");
        CniRunner runner = new CniRunner(node.binDir(), primary.restoredEntry());
        List<CniRunner.Step> add = runner.add("restored-" + sandbox.runId(), netns, "eth0", CniJson.mapper().createObjectNode());
        assertThat(add).extracting(CniRunner.Step::type).containsExactly("bridge");
        String inside = Commands.ok("ip", "netns", "exec", netns.getFileName().toString(), "ip", "-4", "-o", "addr", "show", "dev", "eth0").out();
        assertThat(Network.ipv4(inside)).get().asString().startsWith(primary.subnetPrefix());
        runner.del("restored-" + sandbox.runId(), netns, "eth0", CniJson.mapper().createObjectNode(), add.get(add.size() - 1).result().orElseThrow());
        Steps.say(primary.layout() + ": after uninstall the restored " + primary.restoredEntry().getFileName() + " ran bridge alone, address "
                + Network.ipv4(inside).orElseThrow());
    }
}
