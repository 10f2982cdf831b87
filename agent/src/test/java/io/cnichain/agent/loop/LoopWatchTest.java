package io.cnichain.agent.loop;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.KubeletVolume;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The watches besides the configuration: the service-account token, our binary, directories that come and go. */
@ExtendWith(TempNodeExtension.class)
class LoopWatchTest
{
    /**
     * No inotify instance to be had (fs.inotify.max_user_instances used up): the node gets the plugin all the same, the
     * agent is not ready and says why, and a try of the watches on the loop's back-off opens one once the kernel allows.
     * A directory still to come counts too: nothing would tell of its appearance.
     */
    @Test
    void withoutAnInotifyInstanceTheLoopInstallsIsNotReadyAndWatchesOnceOneCanBeHad(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        AtomicBoolean kernelRefuses = new AtomicBoolean(true);
        EventIntake.Opener instances = () -> {
            if (kernelRefuses.get()) {
                throw new IOException("User limit of inotify instances reached or too many open files");
            }
            return FileSystems.getDefault().newWatchService();
        };
        Path staging = node.host("/var/run/test-primary/staging");
        try (RunningLoop loop = RunningLoop.startWithoutBarrier(node, new LoopTestAdapter(Set.of(Path.of("/var/run/test-primary/staging"))), instances)) {
            loop.awaitPatched(file);
            assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason).startsWith("not watching /")
                    .contains("cannot watch anything: no inotify instance (User limit of inotify instances reached").contains("looking again every 1 s"));
            assertThat(loop.status.notReady()).anySatisfy(reason -> assertThat(reason).startsWith("not watching /var/run/test-primary/staging: "));

            // A change no event tells of: the next try of the watches looks at everything.
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            loop.advanceNow(Duration.ofSeconds(1));
            loop.awaitPatched(file);
            assertThat(loop.count("An inotify instance could be had again")).isZero();

            kernelRefuses.set(false);
            loop.advanceNow(Duration.ofSeconds(2));
            loop.awaitLog("An inotify instance could be had again: watching from now on");
            loop.awaitLog("Every watch is in place again");
            loop.barrier();
            loop.awaitReady();
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            loop.awaitPatched(file);
            Files.createDirectories(staging);
            // Armed by the event on its parent, or by a pass that came first: either way, said in the log, and heard.
            loop.await(() -> loop.count("[" + staging + "] appeared; watching again and rescanning") + loop.count("Watching [" + staging + "] as well") > 0,
                    () -> staging + " is not watched");
            Files.writeString(staging.resolve("10-calico.conflist"), "{}");
            loop.awaitLog("Ignoring event: CREATE /var/run/test-primary/staging/10-calico.conflist; not a file we patch");
        }
    }

    @Test
    void tokenRotationByAKubeletStyleDataSwapRewritesTheKubeconfig(TestNode node)
            throws Exception
    {
        // The kubelet's atomic writer: timestamped dir, ..data link to it, token -> ..data/token.
        KubeletVolume account = node.serviceAccount().update("token", "first-token");
        Path firstPayload = account.dataDirectory();
        node.write("10-calico.conflist", TestNode.CALICO);
        Path kubeconfig = node.conf("ZZZ-linkerd-cni-kubeconfig");
        try (RunningLoop loop = RunningLoop.start(node)) {
            assertThat(kubeconfig).content().contains("token: first-token");

            account.update("token", "second-token");
            assertThat(firstPayload).as("the kubelet deletes the old payload").doesNotExist();

            loop.await(() -> RunningLoop.read(kubeconfig).contains("token: second-token"), () -> "the kubeconfig still holds " + RunningLoop.read(kubeconfig));
            loop.awaitLog("Detected change in service account files; recreating kubeconfig file");
            assertThat(loop.count("first-token") + loop.count("second-token")).as("the token never reaches the log").isZero();
        }
    }

    @Test
    void aConfDirReplacedByRenameIsWatchedWhereItIsNow(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(file);
            Path confDir = node.confDir();
            Path fresh = Files.createDirectories(confDir.resolveSibling("net.d.new"));
            Files.writeString(fresh.resolve("10-calico.conflist"), TestNode.CALICO);
            Path old = confDir.resolveSibling("net.d.old");
            // The watch follows the inode: without the parent's events, the new directory would go unseen until the
            // periodic check (a minute), ready all the while, and the old one's events taken for it.
            Files.move(confDir, old);
            Files.move(fresh, confDir);

            loop.awaitPatched(file);
            loop.awaitLog("now names another directory (renamed away, or another renamed in its place)");
            loop.barrier();
            assertThat(loop.status.ready()).as(String.valueOf(loop.status.notReady())).isTrue();

            // What happens in the old directory is not the conf dir's business any more.
            Files.writeString(old.resolve("10-calico.conflist"), TestNode.CALICO);
            loop.barrier();
            assertThat(Files.readString(old.resolve("10-calico.conflist"))).doesNotContain("linkerd-cni");
            assertThat(PluginList.plugins(file)).last().isEqualTo("linkerd-cni");
        }
    }

    /**
     * The runtime's file links to a file in the conf dir's parent, which is then watched for that file: the conf dir's
     * replacement is told there too, though the parent is watched for its own sake and not only as the conf dir's.
     */
    @Test
    void aConfDirReplacedByRenameIsWatchedWhereItIsNowAlsoWhenItsParentIsWatchedForAFile(TestNode node)
            throws Exception
    {
        Path real = node.writeAt(node.host("/etc/cni/10-oci.conflist-current"), TestNode.OCI);
        node.link("10-oci.conflist", "../10-oci.conflist-current");
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(real);
            loop.awaitReady();
            Path confDir = node.confDir();
            Path fresh = Files.createDirectories(confDir.resolveSibling("net.d.new"));
            Files.writeString(fresh.resolve("05-calico.conflist"), TestNode.CALICO);
            Files.move(confDir, confDir.resolveSibling("net.d.old"));
            Files.move(fresh, confDir);

            // The runtime now loads 05-calico.conflist, which sorts first.
            loop.awaitPatched(confDir.resolve("05-calico.conflist"));
            loop.awaitReady();
        }
    }

    /**
     * {@code placement: drop-in}: the plugin directory, in the conf dir, renamed away and made again. The pass its
     * event wakes puts our drop-in in the new one, and the watch follows: our drop-in deleted there is put back.
     */
    @Test
    void aPluginDirectoryReplacedByRenameIsWatchedWhereItIsNow(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Path pluginDir = node.conf("k8s-pod-network");
        Path dropIn = pluginDir.resolve("linkerd-cni.conf");
        try (RunningLoop loop = RunningLoop.start(node, LoopDropInTest.YAML, RunningLoop.FAST, new LoopTestAdapter())) {
            loop.awaitReady();
            assertThat(dropIn).isRegularFile();

            Files.move(pluginDir, node.conf("k8s-pod-network.old"));
            // The agent may make it first, to put our drop-in back: either way another directory is in its place.
            Files.createDirectories(pluginDir);
            loop.await(() -> Files.isRegularFile(dropIn), () -> "our drop-in was not written into the new plugin directory");
            loop.barrier();
            loop.awaitReady();

            String putBack = "Put our entry back in /etc/cni/net.d/k8s-pod-network/linkerd-cni.conf: another writer removed it";
            long before = loop.count(putBack);
            Files.delete(dropIn);
            loop.awaitCount(putBack, before + 1);
            loop.awaitReady();
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

    /**
     * Linkerd's own installer, replaced by the agent, removes our entry, the kubeconfig and the binary on its way out (they
     * carry its names). The pass that finds any of them missing puts it back, whatever the events that woke it named:
     * here the pass woken by the binary's deletion is held while the rest goes.
     */
    @Test
    void whatLinkerdsInstallerRemovesOnItsWayOutIsPutBackByThePassThatFindsItMissing(TestNode node)
            throws Exception
    {
        LoopTestAdapter adapter = new LoopTestAdapter();
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        Path kubeconfig = node.conf("ZZZ-linkerd-cni-kubeconfig");
        Path binary = node.binDir().resolve("linkerd-cni");
        try (RunningLoop loop = RunningLoop.start(node, RunningLoop.FAST, adapter)) {
            loop.awaitPatched(file);
            CountDownLatch held = adapter.holdPasses();
            long woken = loop.status.wakeUpsStarted();
            Files.delete(binary);
            loop.await(() -> loop.status.wakeUpsStarted() > woken, () -> "the binary's deletion woke no pass");
            Files.delete(kubeconfig);
            node.rewriteInPlace("10-calico.conflist", TestNode.CALICO);
            held.countDown();

            loop.awaitPatched(file);
            loop.await(() -> Files.exists(kubeconfig) && Files.exists(binary), () -> "the kubeconfig or the binary is not back");
            loop.awaitReady();
            loop.barrier();
            assertThat(loop.count("kubeconfig is missing")).as("nothing said missing that the pass puts back").isZero();
            // Each written once at start, and put back once, in the install order.
            assertThat(loop.lines("Wrote kubeconfig")).hasSize(2).last().isEqualTo("INFO Wrote kubeconfig /etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig: it was missing");
            assertThat(loop.lines("CNI binaries")).hasSize(2).last().isEqualTo("INFO Wrote linkerd CNI binaries to /opt/cni/bin: linkerd-cni was missing");
            assertThat(loop.lines("Put our entry back")).containsExactly("INFO Put our entry back in /etc/cni/net.d/10-calico.conflist: another writer removed it");
            List<String> log = loop.lines("");
            assertThat(log.indexOf(loop.lines("Wrote kubeconfig").get(1))).isLessThan(log.indexOf(loop.lines("CNI binaries").get(1)));
        }
    }

    /**
     * More events than a watch key holds (512) while the loop is busy: the JDK drops the rest and says overflow. The
     * rewrite among the dropped events is found by the look at everything an overflow calls for.
     */
    @Test
    void aRewriteLostToAnOverflowIsFoundByTheLookAtEverything(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(file);
            loop.awaitReady();
            loop.overflowHiding(() -> node.rewriteInPlace("10-calico.conflist", TestNode.CALICO));
            loop.awaitPatched(file);
        }
    }

    /** A storm overflows the queue again and again: warned of once, and again only for an overflow a minute after the last. */
    @Test
    void aStormOfOverflowsIsWarnedOfOnce(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        String warning = "WARN More events arrived at once than the watch queue holds (overflow)";
        try (RunningLoop loop = RunningLoop.start(node)) {
            loop.awaitPatched(file);
            loop.overflowHiding(() -> { });
            loop.advance(Duration.ofSeconds(59));
            loop.overflowHiding(() -> { });
            assertThat(loop.count(warning)).isEqualTo(1);
            assertThat(loop.count("DEBUG Another overflow of the storm warned of")).isPositive();
            loop.advance(Duration.ofSeconds(60));
            loop.overflowHiding(() -> { });
            assertThat(loop.count(warning)).isEqualTo(2);
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
            long writes = loop.writes("/etc/cni/net.d/10-calico.conflist");
            node.replaceAtomically("10-calico.conflist", TestNode.CALICO);
            loop.awaitWrites("/etc/cni/net.d/10-calico.conflist", writes + 1);
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

    /**
     * A wanted directory made one level at a time while the loop arms the watch that waits for it, again and again:
     * fresh, and after the whole chain was deleted. Whatever the pause between levels, the directory ends up watched
     * (a file made in it is heard of): a level made between a look and the watch that should tell of it sends no event
     * anywhere, so the watches are armed level by level, each before the look below it.
     */
    @Test
    void aDirectoryMadeLevelByLevelWhileTheLoopArmsIsAlwaysWatched(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        Path top = node.host("/var");
        Path staging = node.host("/var/run/test-primary/staging");
        long[] pausesMicros = {0, 25, 50, 75, 100, 150, 200, 300, 500, 1000, 2000};
        int rounds = 10;
        List<String> missed = new ArrayList<>();
        String log = "";
        try (RunningLoop loop = RunningLoop.start(node, RunningLoop.FAST, new LoopTestAdapter(Set.of(Path.of("/var/run/test-primary/staging"))))) {
            loop.awaitLog(staging + " does not exist yet; watching for it");
            int probe = 0;
            long armed = armedLines(loop, staging);
            for (int round = 0; round < rounds; round++) {
                for (long pause : pausesMicros) {
                    if (Files.exists(top)) {
                        long gone = loop.count("Watched directory " + staging + " is gone");
                        deleteTree(top);
                        if (missed.isEmpty()) {
                            // Watched: the loop hears it go (a chain it missed, it cannot).
                            loop.awaitCount("Watched directory " + staging + " is gone", gone + 1);
                        }
                    }
                    Path level = node.hostRoot();
                    for (String name : List.of("var", "run", "test-primary", "staging")) {
                        level = Files.createDirectory(level.resolve(name));
                        Await.pauseMicros(pause);
                    }
                    // Armed by the event on a parent, or by a pass that came first: either way, said in the log.
                    String line = "Ignoring event: CREATE /var/run/test-primary/staging/probe-" + ++probe + ".conflist; not a file we patch";
                    long before = armed;
                    if (Await.within(Duration.ofSeconds(3), () -> armedLines(loop, staging) > before)) {
                        // Now armed: what happens in it reaches the loop.
                        Files.writeString(staging.resolve("probe-" + probe + ".conflist"), "{}");
                        Await.within(Duration.ofSeconds(3), () -> loop.count(line) > 0);
                    }
                    armed = armedLines(loop, staging);
                    if (loop.count(line) == 0) {
                        missed.add("round " + round + ", pause " + pause + " µs");
                        if (missed.size() == 1) {
                            log = String.join("\n", loop.lines(""));
                        }
                    }
                }
            }
        }
        assertThat(missed).as("chains whose last level was never watched, of %d; the log at the first:\n%s", rounds * pausesMicros.length, log).isEmpty();
    }

    /**
     * The conf dir made one level at a time ({@code etc}, {@code etc/cni}, {@code etc/cni/net.d}) on a node that had
     * none when the loop started, then the primary's list: every time, on a fresh loop, the list is patched. The pass
     * that arms the conf dir must look at everything in it: a list written between its look and the watch sent no event.
     */
    @Test
    void aConfDirMadeLevelByLevelAfterTheLoopStartedGetsItsListPatched()
            throws Exception
    {
        long[] pausesMicros = {0, 50, 100, 200, 500, 1000};
        int rounds = 5;
        List<String> missed = new ArrayList<>();
        String log = "";
        for (int round = 0; round < rounds; round++) {
            for (long pause : pausesMicros) {
                Path root = Files.createTempDirectory("cni-chain-node-");
                try {
                    TestNode node = TestNode.create(root);
                    deleteTree(node.host("/etc"));
                    try (RunningLoop loop = RunningLoop.startWithoutBarrier(node)) {
                        Path level = node.hostRoot();
                        for (String name : List.of("etc", "cni", "net.d")) {
                            level = Files.createDirectory(level.resolve(name));
                            Await.pauseMicros(pause);
                        }
                        Path file = node.write("10-calico.conflist", TestNode.CALICO);
                        if (!Await.within(Duration.ofSeconds(3), () -> PluginList.patched(file))) {
                            missed.add("round " + round + ", pause " + pause + " µs");
                            log = log.isEmpty() ? String.join("\n", loop.lines("")) : log;
                        }
                    }
                }
                finally {
                    deleteTree(root);
                }
            }
        }
        assertThat(missed).as("lists never patched, of %d; the log at the first:\n%s", rounds * pausesMicros.length, log).isEmpty();
    }

    private static long armedLines(RunningLoop loop, Path directory)
    {
        return loop.count("[" + directory + "] appeared; watching again and rescanning") + loop.count("Watching [" + directory + "] as well");
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
