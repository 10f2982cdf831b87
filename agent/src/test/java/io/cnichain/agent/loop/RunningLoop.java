package io.cnichain.agent.loop;

import static io.cnichain.testkit.PluginList.patched;
import io.cnichain.agent.loop.AgentPolicy.FightPolicy;
import io.cnichain.agent.time.Backoff;
import io.cnichain.agent.time.ManualClock;
import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.discovery.CniConfigParser;
import io.cnichain.core.discovery.LibcniGeneration;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.logcapture.CapturedLog;
import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.testkit.Await;
import io.cnichain.testkit.KubeletVolume;
import io.cnichain.testkit.TestNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The reconcile loop on a thread of its own, on a {@link TestNode}, with a real engine, a real watch service
 * (inotify) and the {@link LoopTestAdapter}; its time is a {@link ManualClock} the test moves ({@link #advance}). What
 * it logs is in {@link CapturedLog}, cleared when it starts.
 *
 * <p>A check that something did <em>not</em> happen is ordered by {@link #barrier()}, never by a sleep: the clock is moved
 * to just before when it would happen, then the barrier shows that the loop has dealt with everything up to then.
 */
final class RunningLoop
        implements AutoCloseable
{
    /**
     * Retries after 10, 20 and 40 ms, refused writes after 0.25 s doubling to 30 s; a fight is 3 reverts within 100 ms of
     * our write, backed off 50 ms doubling to 200 ms, over after 150 ms of peace.
     */
    static final AgentPolicy FAST = new AgentPolicy(backoff(10, 40, 3, 0), AgentPolicy.defaults().refusedWrite(),
            new FightPolicy(Duration.ofMillis(100), 3, Duration.ofSeconds(10), backoff(50, 200, 0, 150), Duration.ofMillis(100)),
            Duration.ofMillis(200));

    /** @return a back-off from {@code first} doubling to {@code cap} (milliseconds), without jitter */
    static Backoff.Policy backoff(long first, long cap, int tries, long resetAfter)
    {
        return new Backoff.Policy(Duration.ofMillis(first), Duration.ofMillis(cap), 0, tries, Duration.ofMillis(resetAfter));
    }

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    final TestNode node;
    /** The loop's time: it stands still until a test moves it. */
    final ManualClock clock = new ManualClock();
    final AgentStatus status = new AgentStatus(clock);
    final AgentMetrics metrics = new AgentMetrics();
    private final ReconcileLoop loop;
    private final Thread thread;
    private final Engine engine;
    private final String pluginType;
    private final List<String> invariantBreaks = new java.util.concurrent.CopyOnWriteArrayList<>();
    private int barriers;

    private RunningLoop(TestNode node, AgentConfig config, AgentPolicy policy, List<CniPlatformAdapter> adapters, EventIntake.Opener watchService)
    {
        this(node, config, policy, adapters, watchService, new io.cnichain.core.fs.AtomicFileWriter());
    }

    /** With the writer every file goes through, so that a test can make a pass throw half-way. */
    private RunningLoop(TestNode node, AgentConfig config, AgentPolicy policy, List<CniPlatformAdapter> adapters, EventIntake.Opener watchService,
            io.cnichain.core.fs.AtomicFileWriter writer)
    {
        this.node = node;
        AdapterRegistry registry = new AdapterRegistry(adapters.stream().map(adapter -> new LoadedAdapter(adapter, "test", LoadedAdapter.Origin.CLASSPATH,
                "core tests")).toList(), List.of());
        Engine engine = new Engine(config, registry, writer);
        loop = new ReconcileLoop(engine, watchService, status, metrics, policy, clock);
        thread = new Thread(loop::run, "reconcile-loop");
        this.engine = engine;
        this.pluginType = config.plugin().type();
    }

    /**
     * The promise, wherever the loop is at rest (after every {@link #barrier()}, and at the end of every test): ready
     * means the file the runtime loads, under either libcni generation, carries our entry. Not checked in the middle
     * of a burst: there a pass that only saw our own echo may still say ready for a moment after another writer undid
     * our entry, until the pass that event wakes.
     */
    private void checkInvariantAtRest(String where)
    {
        if (!status.ready()) {
            return;
        }
        Optional<String> lacking = runtimesFileLackingOurEntry();
        if (lacking.isPresent()) {
            invariantBreaks.add("ready " + where + " while " + lacking.get());
        }
    }

    private Optional<String> runtimesFileLackingOurEntry()
    {
        NodeSnapshot snapshot = engine.snapshot();
        if (engine.installer().placement().placement() == io.cnichain.core.config.Placement.DROP_IN) {
            // Drop-ins are for libcni 1.3 runtimes: its list, drop-ins included, ends with ours, run once.
            Optional<ConfigEntry> effective = snapshot.effectiveConfig();
            List<String> types = effective.map(snapshot::runtimePluginTypes).orElse(List.of());
            boolean ours = !types.isEmpty() && types.get(types.size() - 1).equals(pluginType) && types.indexOf(pluginType) == types.size() - 1;
            return ours || effective.isEmpty() ? Optional.empty() : Optional.of(effective.get().path() + " with its drop-ins runs " + types);
        }
        for (LibcniGeneration generation : LibcniGeneration.values()) {
            Optional<ConfigEntry> effective = snapshot.effectiveConfig(generation);
            if (effective.isEmpty()) {
                continue;
            }
            NodeSnapshot.Loaded loaded = snapshot.load(effective.get());
            boolean ours;
            try {
                ours = CniConfigParser.parse(effective.get().name(), loaded.bytes().orElseThrow(), generation).summary().hasPluginType(pluginType);
            }
            catch (RuntimeException e) {
                ours = false;
            }
            if (!ours) {
                return Optional.of(effective.get().path() + " (what " + generation.description() + " loads) lacks our entry, holding "
                        + new String(loaded.bytes().orElse(new byte[0]), java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        return Optional.empty();
    }

    static RunningLoop start(TestNode node)
    {
        return start(node, FAST, new LoopTestAdapter());
    }

    /**
     * Starts the loop and waits for its first pass to end, and for the echoes of what it wrote (binaries, kubeconfig,
     * files) to be dealt with: a test's first change then meets a loop at rest.
     */
    static RunningLoop start(TestNode node, AgentPolicy policy, LoopTestAdapter adapter)
    {
        return start(node, node.config(), policy, adapter);
    }

    /** {@link #start(TestNode, AgentPolicy, LoopTestAdapter)} with this configuration file (its path, as given to {@code --config}). */
    static RunningLoop start(TestNode node, Path configFile)
    {
        return start(node, node.config(Optional.of(configFile)), FAST, new LoopTestAdapter());
    }

    /** {@link #start(TestNode, AgentPolicy, LoopTestAdapter)} with this configuration file's settings (YAML). */
    static RunningLoop start(TestNode node, String yaml, AgentPolicy policy, LoopTestAdapter adapter)
    {
        return start(node, node.config(Optional.of(yamlFile(node, yaml))), policy, adapter);
    }

    private static RunningLoop start(TestNode node, AgentConfig config, AgentPolicy policy, LoopTestAdapter adapter)
    {
        RunningLoop running = startWithoutBarrier(node, config, policy, adapter);
        running.barrier();
        return running;
    }

    /** {@link #start(TestNode)} with another adapter beside the loop tests' own: a plug-in the selector may prefer. */
    static RunningLoop start(TestNode node, CniPlatformAdapter other)
    {
        RunningLoop running = startWithoutBarrier(node, node.config(), FAST, List.of(other, new LoopTestAdapter()), FileSystems.getDefault()::newWatchService);
        running.barrier();
        return running;
    }

    /**
     * Starts the loop and waits for its first pass to end, but not for its echoes: for a node without a conf dir, which
     * the {@link #barrier()} would make.
     */
    static RunningLoop startWithoutBarrier(TestNode node)
    {
        return startWithoutBarrier(node, node.config(), FAST, new LoopTestAdapter());
    }

    /** {@link #startWithoutBarrier(TestNode)} with this configuration file's settings (YAML). */
    static RunningLoop startWithoutBarrier(TestNode node, String yaml)
    {
        return startWithoutBarrier(node, node.config(Optional.of(yamlFile(node, yaml))), FAST, new LoopTestAdapter());
    }

    /** The configuration file as a pod gets it: a ConfigMap volume the kubelet projected. */
    private static Path yamlFile(TestNode node, String yaml)
    {
        try {
            return KubeletVolume.configMapFile(Files.createTempDirectory(node.root(), "config-"), "cni-chain.yaml", yaml);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@link #start(TestNode, String, AgentPolicy, LoopTestAdapter)} with every file written through {@code writer}. */
    static RunningLoop start(TestNode node, String yaml, io.cnichain.core.fs.AtomicFileWriter writer)
    {
        CapturedLog.clear();
        RunningLoop running = new RunningLoop(node, node.config(Optional.of(yamlFile(node, yaml))), FAST, List.of(new LoopTestAdapter()),
                FileSystems.getDefault()::newWatchService, writer);
        List<String> starting = running.status.notReady();
        running.thread.start();
        running.await(() -> running.status.notReady() != starting, () -> "the first pass never ended");
        running.barrier();
        return running;
    }

    /** A change the test makes; it may fail as file operations do. */
    @FunctionalInterface
    interface Change
    {
        void make()
                throws IOException;
    }

    /**
     * Holds the loop at the end of its next pass, so that nothing takes the events meanwhile; writes 600 files into the
     * conf dir (new ones at each call), more than a watch key holds, then makes {@code change}, whose events the overflow drops; lets the loop
     * go, and waits for it to say so.
     */
    void overflowHiding(Change change)
            throws IOException
    {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean hold = new java.util.concurrent.atomic.AtomicBoolean(true);
        status.onReadiness(ready -> {
            if (hold.getAndSet(false)) {
                try {
                    release.await(10, java.util.concurrent.TimeUnit.SECONDS);
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        long overflows = count("overflow");
        node.write("notes.txt", "not a configuration, but looked at");
        await(() -> !hold.get(), () -> "no pass began");
        for (int i = 0; i < 600; i++) {
            Files.writeString(node.conf(".scratch-" + overflows + "-" + i + ".tmp"), "");
        }
        change.make();
        release.countDown();
        awaitCount("overflow", overflows + 1);
    }

    /** Whether the loop's thread still runs. */
    boolean loopAlive()
    {
        return thread.isAlive();
    }

    /** {@link #startWithoutBarrier(TestNode)} with its watch service from {@code watchService}, which may refuse as the kernel does. */
    static RunningLoop startWithoutBarrier(TestNode node, LoopTestAdapter adapter, EventIntake.Opener watchService)
    {
        return startWithoutBarrier(node, node.config(), FAST, adapter, watchService);
    }

    private static RunningLoop startWithoutBarrier(TestNode node, AgentConfig config, AgentPolicy policy, LoopTestAdapter adapter)
    {
        return startWithoutBarrier(node, config, policy, adapter, FileSystems.getDefault()::newWatchService);
    }

    private static RunningLoop startWithoutBarrier(TestNode node, AgentConfig config, AgentPolicy policy, LoopTestAdapter adapter,
            EventIntake.Opener watchService)
    {
        return startWithoutBarrier(node, config, policy, List.of(adapter), watchService);
    }

    private static RunningLoop startWithoutBarrier(TestNode node, AgentConfig config, AgentPolicy policy, List<CniPlatformAdapter> adapters,
            EventIntake.Opener watchService)
    {
        CapturedLog.clear();
        RunningLoop running = new RunningLoop(node, config, policy, adapters, watchService);
        List<String> starting = running.status.notReady();
        running.thread.start();
        running.await(() -> running.status.notReady() != starting, () -> "the first pass never ended");
        return running;
    }

    /**
     * Moves the loop's time on once it has dealt with everything before (a pass under way would read the new time for
     * what it did before); what falls due is dealt with as soon as the loop looks (within milliseconds).
     */
    void advance(Duration by)
    {
        barrier(false);
        clock.advance(by);
    }

    /** Moves the loop's time on at once, whatever the loop is doing: for a pass held up on purpose, or a conf dir it cannot see. */
    void advanceNow(Duration by)
    {
        clock.advance(by);
    }

    /**
     * Everything that happened on the node before this call has been dealt with when it returns: it creates a file
     * the loop ignores, waits for the loop to say so, then for the wake-up that saw it to be done, pass included.
     */
    void barrier()
    {
        barrier(true);
    }

    /**
     * {@link #barrier()} while the test has changed the node behind the loop's back (no event tells of it): readiness
     * may not hold until the loop's second chance finds it.
     */
    void barrierWhileUnseen()
    {
        barrier(false);
    }

    private void barrier(boolean checkInvariant)
    {
        for (int attempt = 1; ; attempt++) {
            long overflows = count("overflow");
            Path file = node.write("barrier-" + ++barriers + ".tmp", "");
            // Said with the conf dir's real path (it may be reached through a link).
            String line = "/" + file.getFileName() + "; not a configuration";
            // More than 512 events queued at once come back as one overflow, which drops the barrier's event too (the
            // loop rescans instead): then another barrier is made.
            await(() -> count(line) > 0 || count("overflow") > overflows, () -> "expected a line with '" + line + "'");
            boolean seen = count(line) > 0;
            if (seen || attempt == 5) {
                if (!seen) {
                    awaitLog(line);
                    seen = true;
                }
                long started = status.wakeUpsStarted();
                await(() -> status.wakeUpsDone() >= started, () -> "the wake-up that saw " + file + " never ended");
            }
            long overflowsBefore = count("overflow");
            try {
                Files.delete(file);
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (seen) {
                // The deletion wakes the loop too: dealt with before this returns, or that wake-up, its time read before
                // the test moves the clock, could take in the test's next change as seen at the old time.
                await(() -> count(line) > 1 || count("overflow") > overflowsBefore, () -> "expected the deletion of " + file + " to be seen");
                long started = status.wakeUpsStarted();
                await(() -> status.wakeUpsDone() >= started, () -> "the wake-up that saw " + file + " deleted never ended");
                if (checkInvariant) {
                    checkInvariantAtRest("after a barrier");
                }
                return;
            }
        }
    }

    /** @return the log lines containing {@code text} */
    List<String> lines(String text)
    {
        List<String> found = new ArrayList<>();
        for (String line : CapturedLog.lines()) {
            if (line.contains(text)) {
                found.add(line);
            }
        }
        return found;
    }

    /** @return the back-off of a "Backing off" line, in seconds as logged */
    static String afterNextWrite(String backingOffLine)
    {
        String rest = backingOffLine.substring(backingOffLine.indexOf("Next write in ") + "Next write in ".length());
        return rest.substring(0, rest.indexOf(" s."));
    }

    long count(String text)
    {
        return lines(text).size();
    }

    /** @return how many times our entry was written into files whose path starts so: created (a list, a drop-in), or put back */
    long writes(String path)
    {
        return count("Created CNI config " + path) + count("Created CNI drop-in " + path) + count("Put our entry back in " + path);
    }

    void awaitWrites(String path, long count)
    {
        await(() -> writes(path) >= count, () -> "expected " + count + " writes of our entry into " + path);
    }

    void awaitLog(String text)
    {
        awaitCount(text, 1);
    }

    void awaitCount(String text, long count)
    {
        await(() -> count(text) >= count, () -> "expected " + count + " lines with '" + text + "'");
    }

    /** Waits until the file holds our entry, last and once. */
    void awaitPatched(Path file)
    {
        await(() -> patched(file), () -> file + " was not patched; it holds " + read(file));
    }

    void awaitReady()
    {
        await(status::ready, () -> "not ready: " + status.notReady());
    }

    String metrics()
    {
        return metrics.render(status.ready());
    }

    /** @return the sum of a metric's samples, as {@code /metrics} shows them */
    long metric(String name)
    {
        return metrics().lines().filter(line -> line.startsWith(name + " ") || line.startsWith(name + "{"))
                .mapToLong(line -> Long.parseLong(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    void await(BooleanSupplier condition, Supplier<String> failure)
    {
        Await.until(TIMEOUT, () -> {
            if (condition.getAsBoolean()) {
                return true;
            }
            if (!thread.isAlive()) {
                throw new AssertionError("the loop ended; " + failure.get() + "\nthe log:\n" + String.join("\n", CapturedLog.lines()));
            }
            return false;
        }, () -> failure.get() + "\nthe log:\n" + String.join("\n", CapturedLog.lines()));
    }

    static String read(Path file)
    {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            return "";
        }
    }

    @Override
    public void close()
            throws InterruptedException
    {
        // At rest first (everything the test did has been dealt with); a node the barrier cannot be made on (no conf
        // dir) is not checked at the end.
        boolean atRest;
        try {
            barrier();
            atRest = true;
        }
        catch (AssertionError | RuntimeException e) {
            atRest = false;
        }
        loop.stop();
        thread.join(TIMEOUT.toMillis());
        if (thread.isAlive()) {
            throw new AssertionError("the loop did not stop");
        }
        if (atRest) {
            checkInvariantAtRest("at the end");
        }
        if (!invariantBreaks.isEmpty()) {
            throw new AssertionError("readiness said the runtime's file carries our entry when it did not:\n  " + String.join("\n  ", invariantBreaks));
        }
    }
}
