package io.cnichain.distribution.runtime;

import io.cnichain.agent.shutdown.StandInCluster;
import io.cnichain.distribution.runtime.Layout.Primary;
import io.cnichain.distribution.runtime.StandInLog.Call;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The drop-in placement judged by a real runtime: Debian's containerd 1.6 (libcni 1.1) loads a list without its
 * plugin directory, so a pod it sets up with our drop-in in place runs the primary's plugins alone, while the same node
 * patched runs linkerd-cni after them. That is why {@code placement: auto} must not choose drop-in there, and it does
 * not: given the version this containerd reports (as a kubelet would put it in the Node object, here a stand-in
 * API server's), it patches. No libcni 1.3 runtime (containerd 2.1+, CRI-O 1.33+) can be installed on these machines,
 * so that a drop-in does run there is not shown by a runtime here (docs/configuration.md, "Placement").
 */
@RealRuntime
class ContainerdDropInIT
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
    void containerdOneSixDoesNotRunADropIn(Sandbox sandbox)
            throws Exception
    {
        node = sandbox.node("drop-in");
        Primary primary = Layout.PLAIN_CONFLIST.lay(node);
        byte[] before = Files.readAllBytes(primary.installedFile());
        node.yaml("placement: drop-in\n");
        Containerd containerd = sandbox.containerd();

        Commands.Result install = Launcher.run(node, "install");
        assertThat(install.code()).as(install.toString()).isZero();
        Path dropIn = node.confDir().resolve(primary.network()).resolve(RuntimeNode.PLUGIN + ".conf");
        assertThat(dropIn).isRegularFile();
        assertThat(Files.readAllBytes(primary.installedFile())).as("the primary's list, byte for byte").isEqualTo(before);

        Commands.Result pod = containerd.run(node, "ip", "-4", "addr", "show", "eth0");
        assertThat(pod.code()).as("containerd set up the pod's network: " + pod).isZero();
        List<Call> dropInCalls = node.standIn().calls();
        assertThat(dropInCalls).as("containerd " + containerd.version() + " ignored the drop-in").isEmpty();

        node.yaml("placement: patch\n");
        Commands.Result patch = Launcher.run(node, "install");
        assertThat(patch.code()).as(patch.toString()).isZero();
        assertThat(dropIn.getParent()).as("switching removes the drop-in and the directory it made").doesNotExist();
        Commands.Result patched = containerd.run(node, "ip", "-4", "addr", "show", "eth0");
        assertThat(patched.code()).as(patched.toString()).isZero();
        assertThat(node.standIn().calls()).as("the patched list runs linkerd-cni").extracting(Call::command).containsExactly("ADD", "DEL");
        Steps.say("containerd " + containerd.version() + ": with our drop-in " + dropIn.getFileName() + " in " + dropIn.getParent().getFileName()
                + "/, a pod ran the primary's plugins alone (0 linkerd-cni calls); patched, it ran linkerd-cni (ADD, DEL)");

        assertThat(Launcher.run(node, "uninstall").code()).isZero();
        assertThat(Files.readAllBytes(primary.restoredFile())).isEqualTo(before);
    }

    @Test
    void autoPatchesOnTheVersionThisContainerdReports(Sandbox sandbox)
            throws Exception
    {
        node = sandbox.node("auto");
        Primary primary = Layout.PLAIN_CONFLIST.lay(node);
        Containerd containerd = sandbox.containerd();
        node.yaml("placement: auto\n");
        try (StandInCluster cluster = StandInCluster.start(node.serviceAccountDir())) {
            String reported = "containerd://" + containerd.version();
            cluster.reportRuntime(reported);
            Map<String, String> env = new HashMap<>(Launcher.env(node));
            env.putAll(cluster.environment());

            Commands.Result install = Commands.run(Launcher.command(node, "install"), env, Optional.empty(), Duration.ofSeconds(60));

            assertThat(install.code()).as(install.toString()).isZero();
            assertThat(install.err() + install.out()).contains("Placing the entry by patch: auto: the Node reports containerRuntimeVersion " + reported
                    + ", which ignores drop-ins (containerd applies them from 2.1.0); patching");
            assertThat(node.confDir().resolve(primary.network())).doesNotExist();
            Commands.Result pod = containerd.run(node, "ip", "-4", "addr", "show", "eth0");
            assertThat(pod.code()).as(pod.toString()).isZero();
            assertThat(node.standIn().calls()).extracting(Call::command).containsExactly("ADD", "DEL");
            Steps.say("placement auto with the Node reporting " + reported + ": patched, and the pod ran linkerd-cni");
        }
        assertThat(Launcher.run(node, "uninstall").code()).isZero();
    }
}
