package io.cnichain.distribution.agent;

import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.core.install.BinaryInstaller;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import io.cnichain.testkit.NeedsRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What docs/design.md promises of every write, checked on the system calls of the real launcher ({@code strace}): the
 * temp file is created with its final mode (the kubeconfig never readable by others, not for a moment), synced before
 * its rename, and the directory synced after the rename or the unlink, so that the change survives a crash; and no
 * file we write in place of another has wider permissions than it.
 */
@NeedsRoot(commands = "strace")
@ExtendWith(TempNodeExtension.class)
class FaultDurabilityTest
{
    @Test
    void everyWriteIsSyncedBeforeItsRenameAndItsDirectoryAfterAndCreatedWithItsFinalMode(TestNode node)
            throws Exception
    {
        Path conf = node.write("10-bridge.conf", FaultKillStormTest.bridge(0));
        Files.setPosixFilePermissions(conf, PosixFilePermissions.fromString("rw-r-----"));
        // An earlier kubeconfig of ours (or Linkerd's installer's) left wider than it should be by someone: replaced with
        // the configured mode.
        Path kubeconfig = node.write("ZZZ-linkerd-cni-kubeconfig", "# Kubeconfig file for linkerd CNI plugin.\nold\n");
        Files.setPosixFilePermissions(kubeconfig, PosixFilePermissions.fromString("rw-r--r--"));

        List<List<Strace.Call>> install = traced(node, "install");
        Map<String, String> created = checkDurable(install);
        assertThat(created).containsOnlyKeys("linkerd-cni", BinaryInstaller.RECORD, "ZZZ-linkerd-cni-kubeconfig", "10-bridge.conflist")
                .containsEntry(BinaryInstaller.RECORD, "0644")
                .containsEntry("ZZZ-linkerd-cni-kubeconfig", "0600")
                .containsEntry("linkerd-cni", "0755")
                .containsEntry("10-bridge.conflist", "0640");
        assertThat(mode(kubeconfig)).isEqualTo("rw-------");
        assertThat(mode(node.conf("10-bridge.conflist"))).as("the list takes the .conf's mode").isEqualTo("rw-r-----");
        assertThat(unlinked(install)).containsExactly(conf);

        List<List<Strace.Call>> uninstall = traced(node, "uninstall");
        assertThat(checkDurable(uninstall)).containsOnly(Map.entry("10-bridge.conf", "0640"));
        assertThat(mode(conf)).isEqualTo("rw-r-----");
        assertThat(unlinked(uninstall)).containsExactlyInAnyOrder(node.conf("10-bridge.conflist"), kubeconfig, node.binDir().resolve("linkerd-cni"),
                node.binDir().resolve(BinaryInstaller.RECORD));
        FaultSettings.report("fsync", "install: 4 files written (the binary's record included), each created with its final mode, synced, renamed, its directory synced; the"
                + " .conf unlinked and its directory synced; uninstall likewise");
    }

    /**
     * Checks every rename of one of our temp files: created (with O_EXCL), synced, renamed, then its directory synced;
     * and every unlink followed by a sync of its directory.
     *
     * @return the files written, by name, with the mode their temp file was created with
     */
    private static Map<String, String> checkDurable(List<List<Strace.Call>> threads)
    {
        Map<String, String> created = new LinkedHashMap<>();
        for (List<Strace.Call> calls : threads) {
            for (int i = 0; i < calls.size(); i++) {
                Strace.Call call = calls.get(i);
                if (call.kind() == Strace.Kind.RENAME && AtomicFileWriter.isTempName(call.from().getFileName().toString())) {
                    Path temp = call.from();
                    int creation = lastBefore(calls, i, Strace.Kind.CREATE, temp);
                    assertThat(creation).as("the creation of " + temp).isNotNegative();
                    assertThat(calls.get(creation).line()).contains("O_EXCL");
                    assertThat(lastBefore(calls, i, Strace.Kind.SYNC, temp)).as("fsync of " + temp + " before its rename: " + call.line())
                            .isGreaterThan(creation);
                    assertThat(firstAfter(calls, i, Strace.Kind.SYNC, call.to().getParent())).as("fsync of the directory after " + call.line())
                            .isPositive();
                    created.put(call.to().getFileName().toString(), calls.get(creation).mode());
                }
                if (call.kind() == Strace.Kind.UNLINK) {
                    assertThat(firstAfter(calls, i, Strace.Kind.SYNC, call.from().getParent())).as("fsync of the directory after " + call.line())
                            .isPositive();
                }
            }
        }
        return created;
    }

    private static List<Path> unlinked(List<List<Strace.Call>> threads)
    {
        List<Path> unlinked = new ArrayList<>();
        threads.forEach(calls -> calls.stream().filter(c -> c.kind() == Strace.Kind.UNLINK)
                .filter(c -> !AtomicFileWriter.isTempName(c.from().getFileName().toString())).forEach(c -> unlinked.add(c.from())));
        return unlinked;
    }

    private static int lastBefore(List<Strace.Call> calls, int index, Strace.Kind kind, Path path)
    {
        for (int i = index - 1; i >= 0; i--) {
            if (calls.get(i).kind() == kind && calls.get(i).from().equals(path)) {
                return i;
            }
        }
        return -1;
    }

    private static int firstAfter(List<Strace.Call> calls, int index, Strace.Kind kind, Path path)
    {
        for (int i = index + 1; i < calls.size(); i++) {
            if (calls.get(i).kind() == kind && calls.get(i).from().equals(path)) {
                return i;
            }
        }
        return -1;
    }

    private static List<List<Strace.Call>> traced(TestNode node, String command)
            throws IOException, InterruptedException
    {
        Path prefix = Files.createDirectories(node.root().resolve("strace-" + command)).resolve("trace");
        List<String> launcher = new ArrayList<>(List.of(AgentProcess.HOME.resolve("bin/cni-chain").toString(), command));
        launcher.addAll(node.flags());
        ProcessBuilder builder = new ProcessBuilder(Strace.command(prefix, launcher)).redirectErrorStream(true);
        builder.environment().putAll(node.env());
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(out).isZero();
        return Strace.read(prefix);
    }

    private static String mode(Path file)
            throws IOException
    {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
    }
}
