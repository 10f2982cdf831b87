package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import io.cnichain.testkit.NeedsRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static io.cnichain.testkit.PluginList.plugins;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writes the system refuses: a read-only conf dir, a directory the agent may not write, an immutable file, no bin
 * dir. Each time: one clear reason in the log and on {@code /readyz}, nothing half done (never a configuration naming
 * a binary that is not there; an observer samples the conf dir throughout), and the patch follows once the condition
 * clears, whether or not that sends an event.
 */
@NeedsRoot(commands = {"mount", "umount", "chattr", "setpriv"})
@ExtendWith(TempNodeExtension.class)
class FaultRefusedWriteTest
{
    @Test
    void aReadOnlyConfDirIsNotReadyWithTheReasonAndIsPatchedOnceRemountedWritable(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (Cleanup cleanup = new Cleanup()) {
            cleanup.readOnly(node.confDir());
            Observer observer = cleanup.add(Observer.start(node.confDir(), node.binDir().resolve("linkerd-cni"), Observer.Rules.strict()));
            AgentProcess agent = cleanup.add(AgentProcess.start(node, "--log-level", "debug"));
            awaitNotReady(agent, "Read-only file system");
            assertThat(agent.get("/readyz").body()).contains("/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig: cannot be written: ")
                    .contains("/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig: the plugin's kubeconfig is missing");
            agent.awaitCount("Trying our binaries and kubeconfig again in 500 ms", 1);
            assertThat(plugins(file)).containsExactly("calico", "portmap");

            // A remount sends no event: the retry timer finds out.
            Cleanup.writable(node.confDir());
            awaitPatched(agent, file);
            awaitReady(agent);
            observer.close();
            assertThat(observer.violations()).isEmpty();
            report(agent, "read-only conf dir");
        }
    }

    /**
     * Root passes every permission check, so mode bits alone cannot deny it anything: the agent runs here as root
     * without {@code CAP_DAC_OVERRIDE} (as in a container whose capabilities are dropped), and the directory of the
     * runtime's file is {@code r-xr-xr-x}.
     */
    @Test
    void permissionDeniedOnTheTargetsDirectoryIsNotReadyWithTheReasonUntilTheModeAllowsIt(TestNode node)
            throws Exception
    {
        Path real = node.writeAt(node.host("/etc/cni/oci/10-oci.conflist-current"), TestNode.OCI);
        node.link("10-oci.conflist", "../oci/10-oci.conflist-current");
        Path directory = real.getParent();
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("r-xr-xr-x"));
        try (Cleanup cleanup = new Cleanup()) {
            cleanup.undo(() -> Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x")));
            Observer observer = cleanup.add(Observer.start(node.confDir(), node.binDir().resolve("linkerd-cni"), Observer.Rules.strict()));
            AgentProcess agent = cleanup.add(AgentProcess.launch(node,
                    List.of("setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--inh-caps", "-dac_override,-dac_read_search", "--"),
                    List.of("--log-level", "debug")));
            awaitNotReady(agent, "/etc/cni/oci/10-oci.conflist-current: cannot be written: permission denied");
            assertThat(agent.log()).contains("Not patching /etc/cni/net.d/10-oci.conflist: /etc/cni/oci/10-oci.conflist-current: cannot be written: "
                    + "permission denied");
            assertThat(plugins(real)).containsExactly("oci-ipvlan", "oci-ptp");

            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
            awaitPatched(agent, real);
            awaitReady(agent);
            assertThat(Files.isSymbolicLink(node.conf("10-oci.conflist"))).isTrue();
            observer.close();
            assertThat(observer.violations()).isEmpty();
            report(agent, "permission denied");
        }
    }

    @Test
    void anImmutableFileIsNotReadyWithTheReasonAndIsPatchedOnceItIsNot(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        String before = Files2.read(file);
        try (Cleanup cleanup = new Cleanup()) {
            cleanup.immutable(file);
            Observer observer = cleanup.add(Observer.start(node.confDir(), node.binDir().resolve("linkerd-cni"), Observer.Rules.strict()));
            AgentProcess agent = cleanup.add(AgentProcess.start(node, "--log-level", "debug"));
            awaitNotReady(agent, "/etc/cni/net.d/10-calico.conflist: cannot be written: ");
            assertThat(agent.get("/readyz").body()).contains("Operation not permitted");
            Barrier.await(agent, node);
            assertThat(Files2.read(file)).isEqualTo(before);
            assertThat(FaultKillStormTest.tempFiles(node.confDir())).isEmpty();

            Cleanup.mutable(file);
            awaitPatched(agent, file);
            awaitReady(agent);
            observer.close();
            assertThat(observer.violations()).isEmpty();
            report(agent, "immutable .conflist");
        }
    }

    @Test
    void anImmutableConfIsTriedOnTheBackOffOnlyAndConvertedOnceItIsNotImmutable(TestNode node)
            throws Exception
    {
        Path conf = node.write("10-bridge.conf", FaultKillStormTest.bridge(0));
        String before = Files2.read(conf);
        Path conflist = node.conf("10-bridge.conflist");
        try (Cleanup cleanup = new Cleanup()) {
            cleanup.immutable(conf);
            Observer observer = cleanup.add(Observer.start(node.confDir(), node.binDir().resolve("linkerd-cni"),
                    Observer.Rules.strict().converting("10-bridge")));
            AgentProcess agent = cleanup.add(AgentProcess.start(node, "--log-level", "debug"));
            awaitNotReady(agent, "/etc/cni/net.d/10-bridge.conf: cannot be deleted: ");
            // 0.25 + 0.5 + 1 s of back-off: the first try and three more, not one try per echo of our own list (that spun,
            // a write every few milliseconds, before the list was recorded as ours).
            agent.awaitCount("Trying /etc/cni/net.d/10-bridge.conf again in 2000 ms", 1);
            long tries = agent.count("Renaming /etc/cni/net.d/10-bridge.conf extension to .conflist");
            assertThat(tries).isBetween(4L, 6L);
            assertThat(Files2.read(conf)).as("what the runtime loads is untouched").isEqualTo(before);
            assertThat(plugins(conflist)).as("the list beside it, which the runtime does not load while the .conf is there, is whole")
                    .containsExactly("bridge", "linkerd-cni");

            Cleanup.mutable(conf);
            awaitPatched(agent, conflist);
            Await.until(Duration.ofSeconds(10), () -> !Files.exists(conf), agent::log);
            awaitReady(agent);
            observer.close();
            assertThat(observer.violations()).isEmpty();
            report(agent, "immutable .conf", tries + " tries before the back-off's 2 s step (0.25 + 0.5 + 1 s of back-off)");
        }
    }

    @Test
    void noBinDirIsNotReadyNamesNothingAndInstallsOnceItAppears(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        Files.delete(node.binDir());
        try (Cleanup cleanup = new Cleanup()) {
            Observer observer = cleanup.add(Observer.start(node.confDir(), node.binDir().resolve("linkerd-cni"), Observer.Rules.strict()));
            AgentProcess agent = cleanup.add(AgentProcess.start(node, "--log-level", "debug"));
            awaitNotReady(agent, "/opt/cni/bin: the CNI bin dir does not exist on the host");
            Barrier.await(agent, node);
            assertThat(plugins(file)).containsExactly("calico", "portmap");

            Files.createDirectory(node.binDir());
            awaitPatched(agent, file);
            awaitReady(agent);
            assertThat(node.binDir().resolve("linkerd-cni")).exists();
            observer.close();
            assertThat(observer.violations()).isEmpty();
            report(agent, "no bin dir");
        }
    }

    private static void awaitNotReady(AgentProcess agent, String reason)
    {
        Await.until(Duration.ofSeconds(20), () -> agent.poll("/readyz").body().contains(reason), () -> "/readyz never said '" + reason + "': "
                + agent.poll("/readyz").body() + "\nagent log:\n" + agent.log());
        assertThat(agent.get("/readyz").status()).isEqualTo(503);
        assertThat(agent.get("/metrics").body()).contains("cnichain_ready 0");
    }

    private static void awaitReady(AgentProcess agent)
    {
        Await.until(Duration.ofSeconds(20), () -> agent.get("/readyz").status() == 200, () -> agent.get("/readyz").body() + "\n" + agent.log());
    }

    private static void report(AgentProcess agent, String what)
    {
        report(agent, what, "");
    }

    private static void report(AgentProcess agent, String what, String more)
    {
        assertThat(agent.log()).doesNotContain("Exception").doesNotContain("\tat ");
        FaultSettings.report(what, "not ready with the reason, nothing half done, patched once it cleared" + (more.isEmpty() ? "" : "; " + more));
    }
}
