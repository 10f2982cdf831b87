package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import io.cnichain.testkit.NeedsRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static io.cnichain.testkit.PluginList.plugins;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * SIGTERM during a storm, twice, and with a cleanup too slow for its bound. A slow cleanup is made for real: {@code
 * strace} attached to the agent holds each of its fsync calls for a while, so the cleanup takes seconds. The exit code
 * says whether cleanup completed, the bound holds, and what the runtime loads is whole at every moment (the observer),
 * never naming a binary that is gone.
 */
@NeedsRoot(commands = "strace")
@ExtendWith(TempNodeExtension.class)
class FaultSignalTest
{
    @Test
    void sigtermDuringAStormCleansUpCompletelyAndExitsZero(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", FaultKillStormTest.calico(0));
        try (Cleanup cleanup = new Cleanup()) {
            Observer observer = cleanup.add(Observer.start(node.confDir(), node.binDir().resolve("linkerd-cni"), Observer.Rules.strict()));
            AgentProcess agent = cleanup.add(AgentProcess.start(node));
            awaitPatched(agent, file);
            long seed = FaultSettings.seed();
            Primary primary = cleanup.add(Primary.start(file, FaultKillStormTest::calico, Primary.Mode.RENAME, 50, 50, seed));
            Files2.pause(1000);
            long signalled = System.nanoTime();
            int code = agent.terminate(Duration.ofSeconds(25));
            long exitMs = (System.nanoTime() - signalled) / 1_000_000;
            primary.close();
            observer.close();
            assertThat(code).as(agent.log()).isZero();
            assertThat(agent.log()).contains("Exiting.");
            assertThat(observer.violations()).as("seed " + seed).isEmpty();
            assertThat(plugins(file)).containsExactly("calico", "portmap");
            assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
            assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).doesNotExist();
            assertThat(tempFiles(node)).isEmpty();
            FaultSettings.report("SIGTERM during a storm", "exit 0 after " + exitMs + " ms (seed " + seed + "), " + primary.writes()
                    + " primary writes meanwhile, "
                    + "everything removed, " + observer.samples() + " samples, none broken");
        }
    }

    @Test
    void aSecondSigtermDuringASlowCleanupExitsAtOnceWithOneAndLeavesNothingTheRuntimeLoadsBroken(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (Cleanup cleanup = new Cleanup()) {
            Observer observer = cleanup.add(Observer.start(node.confDir(), node.binDir().resolve("linkerd-cni"), Observer.Rules.strict()));
            AgentProcess agent = cleanup.add(AgentProcess.start(node, "--shutdown-timeout", "20"));
            awaitPatched(agent, file);
            SlowSync slow = cleanup.add(SlowSync.attach(agent.pid(), Duration.ofSeconds(3)));
            assertThat(agent.signal("TERM")).isZero();
            agent.awaitLog("Removing linkerd-cni artifacts.", Duration.ofSeconds(10));
            java.time.Instant second = java.time.Instant.now();
            assertThat(agent.signal("TERM")).isZero();
            agent.awaitLog("SIGTERM received again; exiting at once, cleanup unfinished", Duration.ofSeconds(10));
            // strace holds a thread of the agent in its fsync, and the process cannot end before that thread does:
            // let it go (a real slow disk would not hold it past the kill).
            slow.close();
            int code = agent.exitCode(Duration.ofSeconds(10));
            long handledMs = Duration.between(second, loggedAt(agent, "SIGTERM received again")).toMillis();
            observer.close();
            assertThat(code).isEqualTo(1);
            assertThat(handledMs).as("at once: long before the cleanup (four fsyncs held 3 s each) or its 20 s bound").isLessThan(2500);
            assertThat(observer.violations()).isEmpty();
            assertCompleteOrNeverStartedAndTheNextRunCleansUp(node, file);
            FaultSettings.report("SIGTERM twice", "exit 1, halting " + handledMs + " ms after the second signal (strace slowing the process),"
                    + " cleanup cut short, nothing the runtime loads broken");
        }
    }

    @Test
    void aCleanupSlowerThanTheShutdownTimeoutIsCutAtTheBoundWithExitOne(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        try (Cleanup cleanup = new Cleanup()) {
            Observer observer = cleanup.add(Observer.start(node.confDir(), node.binDir().resolve("linkerd-cni"), Observer.Rules.strict()));
            AgentProcess agent = cleanup.add(AgentProcess.start(node, "--shutdown-timeout", "2"));
            awaitPatched(agent, file);
            // Four fsyncs at least (file, directory, kubeconfig's and binary's directory), 1.5 s each: 6 s, against a bound of 2.
            SlowSync slow = cleanup.add(SlowSync.attach(agent.pid(), Duration.ofMillis(1500)));
            long signalled = System.nanoTime();
            assertThat(agent.signal("TERM")).isZero();
            agent.awaitLog("Shutdown did not finish within 2 s; exiting with cleanup unfinished", Duration.ofSeconds(15));
            slow.close();
            int code = agent.exitCode(Duration.ofSeconds(10));
            long exitMs = (System.nanoTime() - signalled) / 1_000_000;
            observer.close();
            assertThat(code).isEqualTo(1);
            assertThat(observer.violations()).isEmpty();
            assertCompleteOrNeverStartedAndTheNextRunCleansUp(node, file);
            long boundMs = Duration.between(loggedAt(agent, "SIGTERM received"), loggedAt(agent, "Shutdown did not finish")).toMillis();
            assertThat(boundMs).as("from the signal handled to the watchdog").isBetween(1900L, 2500L);
            FaultSettings.report("cleanup bounded", "--shutdown-timeout 2 with a cleanup of 6 s: cut " + boundMs + " ms after the signal was handled"
                    + " (exit 1 " + exitMs + " ms after it was sent, strace slowing the process), nothing the runtime loads broken");
        }
    }

    /**
     * Cut short, a cleanup leaves each file as it was or as it would be, whole: our entry still there (with its binary
     * and kubeconfig) or gone; at most a temp file of ours, which no runtime loads and the next run removes.
     */
    private static void assertCompleteOrNeverStartedAndTheNextRunCleansUp(TestNode node, Path file)
            throws IOException
    {
        List<String> plugins = plugins(file);
        assertThat(plugins).isIn(List.of("calico", "portmap", "linkerd-cni"), List.of("calico", "portmap"));
        if (plugins.contains("linkerd-cni")) {
            assertThat(node.binDir().resolve("linkerd-cni")).exists();
            assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).exists();
        }
        InProcessCli.Result uninstall = InProcessCli.run(node, List.of("uninstall"));
        assertThat(uninstall.code()).as(uninstall.all()).isZero();
        assertThat(tempFiles(node)).isEmpty();
        assertThat(plugins(file)).containsExactly("calico", "portmap");
    }

    /** @return when the agent logged its first line with this text */
    static java.time.Instant loggedAt(AgentProcess agent, String text)
    {
        String line = agent.log().lines().filter(l -> l.contains(text)).findFirst().orElseThrow(() -> new AssertionError("no line with " + text));
        return java.time.Instant.parse(line.substring(1, line.indexOf(']')));
    }

    private static List<Path> tempFiles(TestNode node)
            throws IOException
    {
        try (Stream<Path> conf = Files.list(node.confDir()); Stream<Path> bin = Files.list(node.binDir())) {
            return Stream.concat(conf, bin).filter(p -> p.getFileName().toString().startsWith(".cni-chain-")).toList();
        }
    }

    /** strace attached to every thread of a process, holding each fsync for a while on its way in. */
    static final class SlowSync
            implements AutoCloseable
    {
        private final Process strace;

        private SlowSync(Process strace)
        {
            this.strace = strace;
        }

        static SlowSync attach(long pid, Duration delay)
                throws IOException
        {
            Process strace = new ProcessBuilder("strace", "-f", "-qq", "-p", String.valueOf(pid), "-e", "trace=fsync,fdatasync",
                    "-e", "inject=fsync,fdatasync:delay_enter=" + delay.toNanos() / 1000, "-o", "/dev/null")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            SlowSync slow = new SlowSync(strace);
            Await.until(Duration.ofSeconds(10), () -> slow.tracing(pid), () -> "strace never attached to every thread of " + pid);
            return slow;
        }

        /** @return whether every thread of the process has strace for tracer */
        private boolean tracing(long pid)
        {
            try (Stream<Path> tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
                return tasks.allMatch(task -> {
                    try {
                        return Files.readAllLines(task.resolve("status")).stream()
                                .anyMatch(line -> line.equals("TracerPid:\t" + strace.pid()));
                    }
                    catch (IOException gone) {
                        return true;
                    }
                });
            }
            catch (IOException e) {
                return false;
            }
        }

        /**
         * SIGKILL: the kernel then detaches strace from every thread and resumes the ones it held. Not SIGTERM: once the
         * traced process has exited, strace can wait for it forever and ignore SIGTERM (seen here, one run in a few).
         */
        @Override
        public void close()
                throws InterruptedException
        {
            strace.destroyForcibly();
            if (!strace.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new AssertionError("strace " + strace.pid() + " survived SIGKILL for 10 s");
            }
        }
    }
}
