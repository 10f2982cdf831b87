package io.cnichain.core.agent;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The watches besides the configuration: the service-account token, our binary, directories that come and go. */
@ExtendWith(TempNodeExtension.class)
class LoopWatchTest
{
    @Test
    void tokenRotationByAKubeletStyleDataSwapRewritesTheKubeconfig(TestNode node)
            throws Exception
    {
        // The kubelet's atomic writer: timestamped dir, ..data link to it, token -> ..data/token.
        Path sa = node.serviceAccountDir();
        Files.delete(sa.resolve("token"));
        Files.delete(sa.resolve("ca.crt"));
        Path first = Files.createDirectories(sa.resolve("..2026_11_29_10_00_00.1"));
        Files.writeString(first.resolve("token"), "first-token");
        Files.writeString(first.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
        Files.createSymbolicLink(sa.resolve("..data"), first.getFileName());
        Files.createSymbolicLink(sa.resolve("token"), Path.of("..data/token"));
        Files.createSymbolicLink(sa.resolve("ca.crt"), Path.of("..data/ca.crt"));
        node.write("10-calico.conflist", TestNode.CALICO);
        Path kubeconfig = node.conf("ZZZ-linkerd-cni-kubeconfig");
        try (RunningLoop loop = RunningLoop.start(node)) {
            assertThat(kubeconfig).content().contains("token: first-token");

            Path second = Files.createDirectories(sa.resolve("..2026_11_29_11_00_00.2"));
            Files.writeString(second.resolve("token"), "second-token");
            Files.writeString(second.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
            Files.createSymbolicLink(sa.resolve("..data_tmp"), second.getFileName());
            Files.move(sa.resolve("..data_tmp"), sa.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);

            loop.await(() -> RunningLoop.read(kubeconfig).contains("token: second-token"), () -> "the kubeconfig still holds " + RunningLoop.read(kubeconfig));
            loop.awaitLog("Detected change in service account files; recreating kubeconfig file");
            assertThat(loop.count("first-token") + loop.count("second-token")).as("the token never reaches the log").isZero();
        }
    }

    @Test
    void ourBinaryDeletedOrTamperedWithIsReinstalled(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            Path binary = node.binDir().resolve("linkerd-cni");
            Files.delete(binary);
            loop.await(() -> Files.isExecutable(binary), () -> binary + " is not back");
            assertThat(binary).hasSameBinaryContentAs(node.imageBinDir().resolve("linkerd-cni"));
            Files.writeString(binary, "tampered");
            loop.await(() -> RunningLoop.read(binary).equals(RunningLoop.read(node.imageBinDir().resolve("linkerd-cni"))), () -> binary + " is still tampered");
            loop.awaitReady();
        }
    }

    @Test
    void theConfDirDeletedAndRecreatedIsWatchedAgain(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            deleteTree(node.confDir());
            loop.awaitLog("Watched directory " + node.confDir() + " is gone; watching for it to come back");
            Files.createDirectories(node.confDir());
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            loop.awaitPatched(file);
            loop.await(() -> Files.exists(node.conf("ZZZ-linkerd-cni-kubeconfig")), () -> "the kubeconfig went with the directory and is not back");
            // The new directory is watched: a later rewrite is seen too.
            long writes = loop.count("Created CNI config /etc/cni/net.d/10-calico.conflist");
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            loop.awaitCount("Created CNI config /etc/cni/net.d/10-calico.conflist", writes + 1);
            loop.awaitPatched(file);
        }
    }

    @Test
    void theAdaptersDirectoriesAreWatchedAlsoOnceTheyAppear(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Path staging = node.host("/var/run/test-primary/staging");
        try (RunningLoop loop = RunningLoop.start(node, RunningLoop.FAST, new LoopTestAdapter(Set.of(Path.of("/var/run/test-primary/staging"))))) {
            loop.awaitLog(staging + " does not exist yet; watching for it");
            Files.createDirectories(staging);
            // Armed by the event on its parent, or by a pass that came first: either way, said in the log.
            loop.await(() -> loop.count("[" + staging + "] appeared; watching again and rescanning") + loop.count("Watching [" + staging + "] as well") > 0,
                    () -> staging + " is not watched");
            // Now armed: what happens in it reaches the loop (and is not a file we patch).
            Files.writeString(staging.resolve("10-calico.conflist"), "{}");
            loop.awaitLog("Ignoring event: CREATE /var/run/test-primary/staging/10-calico.conflist; not a file we patch");
        }
    }

    /** As {@code rm -rf}: the loop may write a file into the directory while it goes (the kubeconfig, deleted first). */
    private static void deleteTree(Path directory)
            throws IOException
    {
        for (int attempt = 1; ; attempt++) {
            try (Stream<Path> walk = Files.walk(directory)) {
                for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
                return;
            }
            catch (DirectoryNotEmptyException | NoSuchFileException e) {
                if (attempt == 10) {
                    throw e;
                }
            }
        }
    }
}
