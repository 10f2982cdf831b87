package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import io.cnichain.testkit.NeedsRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The inotify watch limit used up (fs.inotify.max_user_watches on a busy node): the agent runs in a user namespace of
 * its own whose limit is 0, the kernel's own refusal. Without its watches it is not ready and says why, finds a change
 * no event told of by looking again on a timer, and is ready once the limit is lifted and the watches are back.
 */
@NeedsRoot(commands = {"unshare", "nsenter"})
@ExtendWith(TempNodeExtension.class)
class FaultWatchLimitTest
{
    @Test
    void withoutItsWatchesTheAgentIsNotReadySaysWhyAndLooksAgainUntilTheyAreBack(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        List<String> limited = List.of("unshare", "--user", "--map-root-user", "sh", "-c", "echo 0 > /proc/sys/user/max_inotify_watches && exec \"$@\"", "sh");
        try (AgentProcess agent = AgentProcess.launch(node, limited, List.of())) {
            agent.awaitLog("Cannot watch", Duration.ofSeconds(20));
            awaitPatched(agent, file);
            Await.until(Duration.ofSeconds(10), () -> agent.get("/readyz").body().contains("not watching /etc/cni/net.d: User limit of inotify watches reached"),
                    () -> "/readyz: " + agent.get("/readyz") + "\n" + agent.log());
            assertThat(agent.get("/readyz").status()).isEqualTo(503);
            assertThat(agent.log()).as("it never says it is watching").doesNotContain("Watching /etc/cni/net.d (and");

            // A primary's rename drops our entry: no event tells, the rescan on the timer does.
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            Await.until(Duration.ofSeconds(15), () -> PluginList.patched(file), () -> "the rename was never repaired:\n" + agent.log());

            // The limit lifted: the watches come back on the next try, and readiness with them.
            Process lift = new ProcessBuilder("nsenter", "--target", String.valueOf(agent.pid()), "--user", "sh", "-c",
                    "echo 100000 > /proc/sys/user/max_inotify_watches").inheritIO().start();
            assertThat(lift.waitFor()).isZero();
            agent.awaitLog("Every watch is in place again", Duration.ofSeconds(40));
            Await.until(Duration.ofSeconds(10), () -> agent.get("/readyz").status() == 200, () -> "/readyz: " + agent.get("/readyz"));
            // Watched again: the next rename is an event.
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            awaitPatched(agent, file);
        }
    }

    /**
     * No inotify instance at all (fs.inotify.max_user_instances used up, 0 in a user namespace of its own): every
     * directory is one that cannot be watched. The agent installs, is not ready and says why, looks again on the loop's
     * back-off, and watches once an instance can be had.
     */
    @Test
    void withoutAnInotifyInstanceTheAgentInstallsPollsAndIsNotReadyUntilOneIsBack(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        List<String> limited = List.of("unshare", "--user", "--map-root-user", "sh", "-c", "echo 0 > /proc/sys/user/max_inotify_instances && exec \"$@\"", "sh");
        try (AgentProcess agent = AgentProcess.launch(node, limited, List.of())) {
            agent.awaitLog("cannot watch anything: no inotify instance", Duration.ofSeconds(20));
            awaitPatched(agent, file);
            Await.until(Duration.ofSeconds(10), () -> agent.get("/readyz").body().contains("cannot watch anything: no inotify instance"),
                    () -> "/readyz: " + agent.get("/readyz") + "\n" + agent.log());
            assertThat(agent.get("/readyz").status()).isEqualTo(503);

            // The primary drops our entry: no event could tell, the next look repairs it.
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            Await.until(Duration.ofSeconds(15), () -> PluginList.patched(file), () -> "never repaired:\n" + agent.log());

            Process lift = new ProcessBuilder("nsenter", "--target", String.valueOf(agent.pid()), "--user", "sh", "-c",
                    "echo 128 > /proc/sys/user/max_inotify_instances").inheritIO().start();
            assertThat(lift.waitFor()).isZero();
            agent.awaitLog("An inotify instance could be had again", Duration.ofSeconds(40));
            agent.awaitLog("Every watch is in place again", Duration.ofSeconds(10));
            Await.until(Duration.ofSeconds(10), () -> agent.get("/readyz").status() == 200, () -> "/readyz: " + agent.get("/readyz"));
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            awaitPatched(agent, file);
            assertThat(agent.terminate(Duration.ofSeconds(25))).as(agent.log()).isZero();
        }
    }
}
