package io.cnichain.distribution.runtime;

import io.cnichain.distribution.runtime.Layout.Primary;
import io.cnichain.distribution.runtime.StandInLog.Call;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * containerd as the judge of every layout the docs claim, at the three moments that matter: once the agent has
 * installed, after the primary rewrote its file while the agent runs (as platforms do: a complete new file renamed
 * over the old one), and after the agent's cleanup on SIGTERM (outside a cluster, so an uninstall). Each time
 * {@code ctr run --cni} sets up a container's network the way the kubelet's runtime would: the chained stand-in runs
 * after the primary's real plugins, with their result, and after the cleanup it does not run at all.
 */
@RealRuntime
class ContainerdLayoutsIT
{
    private RuntimeNode node;
    private Process agent;

    @AfterEach
    void tearDown()
            throws InterruptedException
    {
        AgentWaits.tearDown(agent, node);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Layout.class)
    void theRuntimeRunsThePluginAfterInstallAndAfterARewriteAndNotAfterUninstall(Layout layout, Sandbox sandbox)
            throws Exception
    {
        node = sandbox.node("ctr-" + layout.label());
        Primary primary = layout.lay(node);
        node.yaml(node.yaml().map(RuntimeNode::read).orElse("") + "healthPort: 0\n");
        Containerd containerd = sandbox.containerd();
        Path log = node.root().resolve("agent.log");
        List<String> verdicts = new ArrayList<>();

        agent = Launcher.start(node, "run", log);
        AgentWaits.awaitPatched(agent, primary.installedFile(), log);
        assertRuns(containerd, primary, 1, "installed");
        verdicts.add("installed: linkerd-cni ran");

        if (layout != Layout.CONF_CONVERTED) {
            Path temp = primary.installedFile().resolveSibling("." + primary.installedFile().getFileName() + "12345");
            Files.writeString(temp, primary.originalText());
            Files.move(temp, primary.installedFile(), StandardCopyOption.ATOMIC_MOVE);
            AgentWaits.awaitPatched(agent, primary.installedFile(), log);
            assertRuns(containerd, primary, 2, "rewritten by the primary");
            verdicts.add("rewritten: linkerd-cni ran");
        }

        agent.destroy();
        assertThat(agent.waitFor(40, TimeUnit.SECONDS)).as("the agent stops on SIGTERM").isTrue();
        assertThat(agent.exitValue()).as(RuntimeNode.read(log)).isZero();
        int before = node.standIn().calls().size();
        Commands.Result after = containerd.run(node, "ip", "-4", "addr", "show", "eth0");
        assertThat(after.code()).as("the primary alone sets up the network after uninstall: " + after).isZero();
        assertThat(after.out()).contains("inet " + primary.subnetPrefix());
        assertThat(node.standIn().calls()).as("no linkerd-cni after uninstall").hasSize(before);
        verdicts.add("uninstalled: the primary alone");
        Steps.say(layout + ", judged by containerd: " + String.join("; ", verdicts));
    }

    /** A container's network set up by containerd runs the stand-in after the primary: ADD with the primary's result, then DEL. */
    private void assertRuns(Containerd containerd, Primary primary, int round, String when)
    {
        Commands.Result run = containerd.run(node, "ip", "-4", "addr", "show", "eth0");
        assertThat(run.code()).as(when + ": " + run).isZero();
        assertThat(run.out()).as(when).contains("inet " + primary.subnetPrefix());
        List<Call> calls = node.standIn().awaitCalls(2 * round);
        List<Call> these = calls.subList(2 * (round - 1), calls.size());
        assertThat(these).as(when).extracting(Call::command).containsExactly("ADD", "DEL");
        Call add = these.get(0);
        assertThat(add.config().path("name").asText()).as("the runtime passes the list's name").isEqualTo(primary.network());
        assertThat(add.prevAddresses()).as(when + ": after the primary, with its result").hasSize(1)
                .allSatisfy(address -> assertThat(address).startsWith(primary.subnetPrefix()));
    }
}
