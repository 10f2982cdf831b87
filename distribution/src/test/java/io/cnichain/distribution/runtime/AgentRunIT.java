package io.cnichain.distribution.runtime;

import io.cnichain.distribution.runtime.Layout.Primary;
import io.cnichain.distribution.runtime.StandInLog.Call;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent ({@code cni-chain run}) running while the primary rewrites its file the way platforms do (a complete
 * new file renamed onto the old one): the next container again gets the chained plugin, and SIGTERM cleans up.
 */
@RealRuntime
class AgentRunIT
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
    @EnumSource(value = Layout.class, names = {"PLAIN_CONFLIST", "OCI_RELATIVE_LINK", "ABSOLUTE_LINK", "CILIUM_NAMED"})
    void rewrittenPrimaryIsPatchedAgainBeforeTheNextContainer(Layout layout, Sandbox sandbox)
            throws IOException, InterruptedException
    {
        node = sandbox.node("run-" + layout.label());
        Primary primary = layout.lay(node);
        node.yaml(node.yaml().map(RuntimeNode::read).orElse("") + "healthPort: 0\n");
        Path log = node.root().resolve("agent.log");
        agent = Launcher.start(node, "run", log);

        AgentWaits.awaitPatched(agent, primary.installedFile(), log);
        Steps.say(layout + ": the agent patched " + primary.installedFile().getFileName());

        // As Cilium does: a complete file under a hidden temp name in the same directory, renamed onto the primary.
        Path temp = primary.installedFile().resolveSibling("." + primary.installedFile().getFileName() + "12345");
        Files.writeString(temp, primary.originalText());
        Files.move(temp, primary.installedFile(), StandardCopyOption.ATOMIC_MOVE);
        if (primary.linkText().isPresent()) {
            assertThat(Files.readSymbolicLink(primary.installedEntry())).hasToString(primary.linkText().get());
        }
        long rewritten = System.nanoTime();
        AgentWaits.awaitPatched(agent, primary.installedFile(), log);
        Steps.say(layout + ": rewritten primary patched again after " + Duration.ofNanos(System.nanoTime() - rewritten).toMillis() + " ms");

        String address = node.podman().runOnce(primary.network());
        List<Call> calls = node.standIn().awaitCalls(2);
        assertThat(calls).extracting(Call::command).containsExactly("ADD", "DEL");
        assertThat(calls.get(0).prevAddresses()).containsExactly(address);

        agent.destroy();
        assertThat(agent.waitFor(40, TimeUnit.SECONDS)).as("the agent stops on SIGTERM").isTrue();
        assertThat(agent.exitValue()).as(RuntimeNode.read(log)).isZero();
        assertThat(RuntimeNode.json(primary.restoredFile())).as("cleaned up on shutdown").isEqualTo(primary.original());
        assertThat(node.installedPlugin()).doesNotExist();
        assertThat(node.kubeconfig()).doesNotExist();
    }
}
