package io.cnichain.distribution.runtime;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.json.CniJson;
import io.cnichain.distribution.runtime.Layout.Primary;
import io.cnichain.distribution.runtime.StandInLog.Call;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The binary goes only after no configuration names it: while one the runtime loads still does, uninstall keeps
 * it (and fails, saying why), and podman's containers on that network keep working, ADD and DEL.
 */
@RealRuntime
class UninstallKeepsBinaryIT
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
    void aConfigurationThatCannotBeCleanedKeepsTheBinaryAndItsContainersWorking(Sandbox sandbox)
    {
        node = sandbox.node("immutable");
        Primary primary = Layout.PLAIN_CONFLIST.lay(node);
        assertThat(node.install().code()).isZero();
        Podman podman = node.podman();

        // No one may replace the file now, not even root.
        Commands.ok("chattr", "+i", primary.installedFile().toString());
        Commands.Result uninstall = node.uninstall();
        assertThat(uninstall.code()).as(uninstall.toString()).isEqualTo(1);
        assertThat(uninstall.err()).contains(primary.installedFile().toString()).contains("still name linkerd-cni");
        assertThat(node.installedPlugin()).as("a loaded configuration still names it").exists();
        assertThat(node.kubeconfig()).exists();

        podman.runOnce(primary.network());
        assertThat(node.standIn().awaitCalls(2)).extracting(Call::command).as("ADD and DEL both work").containsExactly("ADD", "DEL");
        Steps.say("immutable " + primary.installedFile().getFileName() + ": uninstall kept linkerd-cni, a container still ran ADD and DEL");

        Commands.ok("chattr", "-i", primary.installedFile().toString());
        Commands.Result retry = node.uninstall();
        assertThat(retry.code()).as(retry.toString()).isZero();
        assertThat(node.installedPlugin()).doesNotExist();
        podman.runOnce(primary.network());
        assertThat(node.standIn().calls()).hasSize(2);
    }

    @Test
    void aLoadedLinkOutOfTheAllowedRootsKeepsTheBinary(Sandbox sandbox)
            throws IOException
    {
        node = sandbox.node("outside");
        Primary primary = Layout.PLAIN_CONFLIST.lay(node);
        // A second network, loaded through a link whose target lies outside the allowed roots, that names linkerd-cni
        // (patched by someone else, or by us under another configuration): we may read it, never write it.
        String other = node.network("elsewhere");
        ObjectNode list = CniJson.mapper().createObjectNode().put("cniVersion", "1.0.0").put("name", other);
        ArrayNode plugins = list.putArray("plugins");
        plugins.add(node.bridgePlugin(node.bridge("b"), sandbox.subnet()));
        plugins.addObject().put("name", "linkerd-cni").put("type", "linkerd-cni");
        Path outside = Layout.write(node.root().resolve("var/lib/elsewhere/20-elsewhere.conflist"),
                new String(CniJson.write(list), StandardCharsets.UTF_8));
        assertThat(RuntimeNode.pluginTypes(RuntimeNode.json(outside))).containsExactly("bridge", "linkerd-cni");
        Layout.link(node.conf("20-elsewhere.conflist"), outside.toString());

        Commands.Result install = node.install();
        assertThat(install.code()).as(install.toString()).isZero();
        Podman podman = node.podman();
        podman.runOnce(other);
        assertThat(node.standIn().awaitCalls(2)).extracting(Call::command).containsExactly("ADD", "DEL");

        Commands.Result uninstall = node.uninstall();
        assertThat(uninstall.code()).as(uninstall.toString()).isEqualTo(1);
        assertThat(uninstall.err()).contains(node.conf("20-elsewhere.conflist").toString()).contains("still name linkerd-cni");
        assertThat(RuntimeNode.pluginTypes(RuntimeNode.json(primary.installedFile()))).as("the primary was cleaned")
                .containsExactlyElementsOf(primary.primaryTypes());
        assertThat(node.installedPlugin()).exists();
        podman.runOnce(other);
        assertThat(node.standIn().awaitCalls(4)).extracting(Call::command).containsExactly("ADD", "DEL", "ADD", "DEL");
        Steps.say("link out of the allowed roots: uninstall kept linkerd-cni, containers on " + other + " still ran ADD and DEL");

        Files.delete(node.conf("20-elsewhere.conflist"));
        Commands.Result retry = node.uninstall();
        assertThat(retry.code()).as(retry.toString()).isZero();
        assertThat(node.installedPlugin()).doesNotExist();
    }
}
