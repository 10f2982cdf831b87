package io.cnichain.core.adapters;

import io.cnichain.core.config.AdapterChoice;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.logcapture.CapturedLog;
import io.cnichain.testkit.TestNode;
import io.cnichain.spi.AdapterException;
import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.Detection;
import io.cnichain.spi.NodeView;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The containment every adapter sits behind: a time limit for each call of an adapter from a plugin jar or elsewhere on
 * the class path, and for the agent's own (built-in) adapters everything but the thread and its time limit.
 */
class GuardedAdapterTest
{
    static final Duration LIMIT = Duration.ofMillis(300);

    @TempDir
    Path temp;

    TestNode node;

    @BeforeEach
    void setUp()
    {
        node = TestNode.create(temp);
        node.write("10-calico.conflist", TestNode.CALICO);
        CapturedLog.clear();
    }

    /** An adapter whose detect does what the test says, counting calls. */
    static class Scripted
            implements CniPlatformAdapter
    {
        final String name;
        final Runnable detectBehaviour;
        final AtomicInteger calls = new AtomicInteger();
        volatile NodeView seen;

        Scripted(String name, Runnable detectBehaviour)
        {
            this.name = name;
            this.detectBehaviour = detectBehaviour;
        }

        @Override
        public String name()
        {
            return name;
        }

        @Override
        public Detection detect(NodeView node, AdapterSettings settings)
        {
            calls.incrementAndGet();
            seen = node;
            detectBehaviour.run();
            return Detection.of(50, name + " matched");
        }

        @Override
        public List<ConfigTarget> authoritativeConfigs(NodeView node, AdapterSettings settings)
        {
            return List.of(ConfigTarget.of(node.entry("10-calico.conflist").orElseThrow(), "test"));
        }
    }

    @Test
    void anAdapterThatThrowsIsDisabledAndReportedOnce()
    {
        Scripted raw = new Scripted("boom", () -> {
            throw new IllegalStateException("detect exploded");
        });
        GuardedAdapter guarded = GuardedAdapter.guard(raw, "plugin jar /p/boom.jar", LIMIT);

        assertThatThrownBy(() -> guarded.detect(node.snapshot(), AdapterSettings.empty("x")))
                .isInstanceOf(AdapterException.class)
                .hasMessageStartingWith("is disabled: detect() threw java.lang.IllegalStateException: detect exploded (at ");
        assertThatThrownBy(() -> guarded.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("boom")))
                .hasMessageStartingWith("is disabled: detect() threw");
        assertThat(raw.calls).hasValue(1);
        assertThat(guarded.disabledReason()).get().asString().startsWith("detect() threw java.lang.IllegalStateException: detect exploded");
        assertThat(CapturedLog.lines().stream().filter(l -> l.contains("ERROR"))).singleElement().asString()
                .contains("Adapter boom (plugin jar /p/boom.jar) disabled: detect() threw java.lang.IllegalStateException: detect exploded")
                .contains("the agent goes on without it");
    }

    @Test
    void aBuiltInAdaptersCallsRunOnTheCallersThreadAndThrowingStillDisablesIt()
    {
        Seen seen = new Seen();
        Scripted raw = new Scripted("built-in", () -> {
            seen.record();
            throw new IllegalStateException("a bug of ours");
        });
        GuardedAdapter guarded = GuardedAdapter.guard(raw, "built-in", LIMIT, true);

        assertThatThrownBy(() -> guarded.detect(node.snapshot(), AdapterSettings.empty("x")))
                .hasMessageStartingWith("is disabled: detect() threw java.lang.IllegalStateException: a bug of ours");
        assertThat(seen.threads).containsExactly(Thread.currentThread());
        assertThat(seen.loaders).containsExactly(Scripted.class.getClassLoader());
        assertThat(guarded.disabledReason()).isPresent();

        Scripted outside = new Scripted("outside", seen::record);
        GuardedAdapter.guard(outside, "plugin jar /p/outside.jar", LIMIT, false).detect(node.snapshot(), AdapterSettings.empty("x"));
        assertThat(seen.threads).hasSize(2).element(1).isNotSameAs(Thread.currentThread());
    }

    /**
     * Never disabled for good, nor decided without: a built-in adapter's heap is the agent's, and its OutOfMemoryError ends
     * the pass as any other does (the loop stops, the agent exits and restarts with a fresh heap).
     */
    @Test
    void aBuiltInAdapterThatRunsOutOfHeapIsNotDisabledAndTheErrorPassesThrough()
    {
        Scripted raw = new Scripted("built-in", () -> {
            throw new OutOfMemoryError("Java heap space");
        });
        GuardedAdapter guarded = GuardedAdapter.guard(raw, "built-in", LIMIT, true);

        assertThatThrownBy(() -> guarded.detect(node.snapshot(), AdapterSettings.empty("x"))).isInstanceOf(OutOfMemoryError.class)
                .hasMessage("Java heap space");
        assertThat(guarded.disabledReason()).isEmpty();
        assertThatThrownBy(() -> guarded.detect(node.snapshot(), AdapterSettings.empty("x"))).isInstanceOf(OutOfMemoryError.class);
        assertThat(raw.calls).as("asked again").hasValue(2);
        assertThat(CapturedLog.lines()).noneMatch(line -> line.contains("disabled"));

        Scripted plugin = new Scripted("plugin", () -> {
            throw new OutOfMemoryError("Java heap space");
        });
        GuardedAdapter fromAJar = GuardedAdapter.guard(plugin, "plugin jar /p/plugin.jar", LIMIT);
        assertThatThrownBy(() -> fromAJar.detect(node.snapshot(), AdapterSettings.empty("x"))).hasMessageStartingWith("is disabled: detect() threw "
                + "java.lang.OutOfMemoryError");
        assertThat(fromAJar.disabledReason()).as("a jar's adapter may be what fills the heap").isPresent();
    }

    @Test
    void anAdapterThatHangsIsAbandonedAtTheTimeLimit()
    {
        Scripted raw = new Scripted("hang", () -> {
            try {
                Thread.sleep(60_000);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        GuardedAdapter guarded = GuardedAdapter.guard(raw, "plugin jar /p/hang.jar", LIMIT);
        long start = System.nanoTime();

        assertThatThrownBy(() -> guarded.detect(node.snapshot(), AdapterSettings.empty("x"))).hasMessage("is disabled: detect() did not return within 300 ms");

        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).isGreaterThanOrEqualTo(LIMIT).isLessThan(Duration.ofSeconds(5));
        assertThat(guarded.disabledReason()).contains("detect() did not return within 300 ms");
    }

    @Test
    void aListWhoseSizeNeverReturnsHangsOnlyTheGuardedCall()
    {
        // Copied inside the call, under its time limit: on the engine's thread, the copy would have no limit.
        Scripted raw = new Scripted("slow-list", () -> {})
        {
            @Override
            public List<ConfigTarget> authoritativeConfigs(NodeView node, AdapterSettings settings)
            {
                return new java.util.AbstractList<>()
                {
                    @Override
                    public ConfigTarget get(int index)
                    {
                        throw new IndexOutOfBoundsException(index);
                    }

                    @Override
                    public int size()
                    {
                        sleep(Duration.ofSeconds(60));
                        return 0;
                    }
                };
            }
        };
        GuardedAdapter guarded = GuardedAdapter.guard(raw, "plugin jar /p/slow.jar", LIMIT);
        long start = System.nanoTime();
        assertThatThrownBy(() -> guarded.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("slow-list")))
                .hasMessage("is disabled: authoritativeConfigs() did not return within 300 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aTargetTheAdapterBuiltIsResolvedAgainAndOutsideTheAllowedRootsRefused()
    {
        node.writeAt(node.host("/elsewhere/10-x.conflist"), TestNode.CALICO);
        Scripted raw = new Scripted("outside", () -> {})
        {
            @Override
            public List<ConfigTarget> authoritativeConfigs(NodeView view, AdapterSettings settings)
            {
                // An entry of its own making that claims to resolve to a file outside /etc/cni.
                ConfigEntry real = view.entry("10-calico.conflist").orElseThrow();
                Path outside = Path.of("/elsewhere/10-x.conflist");
                return List.of(ConfigTarget.of(new ConfigEntry("10-x.conflist", outside, real.kind(), List.of(), Optional.of(outside), Optional.empty(), true),
                        "claimed"));
            }
        };
        GuardedAdapter guarded = GuardedAdapter.guard(raw, "plugin jar /p/outside.jar", LIMIT);
        assertThatThrownBy(() -> guarded.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("outside")))
                .isInstanceOf(AdapterException.class)
                .hasMessageContaining("/elsewhere/10-x.conflist: cannot be patched");
    }

    @Test
    void anAdapterExceptionIsTheAdapterSpeakingAndDisablesNothing()
    {
        AtomicInteger count = new AtomicInteger();
        GuardedAdapter guarded = GuardedAdapter.guard(new Scripted("picky", () -> {
            if (count.incrementAndGet() == 1) {
                throw new AdapterException(AdapterException.Code.NOT_PATCHABLE, "/etc/cni/net.d/x: dangling");
            }
        }), "built-in", LIMIT);

        assertThatThrownBy(() -> guarded.detect(node.snapshot(), AdapterSettings.empty("x"))).isInstanceOf(AdapterException.class).hasMessage("/etc/cni/net.d/x: dangling");
        assertThat(guarded.detect(node.snapshot(), AdapterSettings.empty("x")).score()).isEqualTo(50);
        assertThat(guarded.disabledReason()).isEmpty();
    }

    @Test
    void nullIsABugAndDisables()
    {
        CniPlatformAdapter nulls = new Scripted("nulls", () -> {})
        {
            @Override
            public Set<Path> watchDirectories(NodeView node, AdapterSettings settings)
            {
                return null;
            }
        };
        GuardedAdapter guarded = GuardedAdapter.guard(nulls, "built-in", LIMIT);

        assertThatThrownBy(() -> guarded.watchDirectories(node.snapshot(), AdapterSettings.empty("nulls")))
                .hasMessage("is disabled: watchDirectories() returned null");
    }

    @Test
    void adaptersSeeAReadOnlyViewNotTheEnginesSnapshot()
    {
        Scripted raw = new Scripted("looker", () -> {});
        GuardedAdapter.guard(raw, "built-in", LIMIT).detect(node.snapshot(), AdapterSettings.empty("looker"));
        assertThat(raw.seen).isInstanceOf(ReadOnlyNodeView.class);
        assertThat(raw.seen.entry("10-calico.conflist")).isPresent();
    }

    @Test
    void theSelectorGoesOnWithTheOthersWhenOneIsDisabled()
    {
        Scripted broken = new Scripted("broken", () -> {
            throw new NoClassDefFoundError("com/acme/Missing");
        });
        Scripted fine = new Scripted("fine", () -> {});
        AdapterRegistry registry = registryOf(broken, fine);

        AdapterSelector.Selection selection = new AdapterSelector(registry, node.config().adapters()).select(node.snapshot(), AdapterChoice.auto());

        assertThat(selection.chosen().name()).isEqualTo("fine");
        assertThat(selection.candidates()).filteredOn(c -> c.adapter().name().equals("broken")).singleElement()
                .satisfies(c -> assertThat(c.failure()).get().asString()
                        .startsWith("adapter broken: is disabled: detect() threw java.lang.NoClassDefFoundError: com/acme/Missing"));
        assertThat(registry.find("broken").orElseThrow().state()).isEqualTo("disabled");
        assertThat(registry.find("fine").orElseThrow().state()).isEqualTo("enabled");
    }

    @Test
    void oneDecisionRunsEveryAdapterCallOnOneThreadEachUnderItsOwnClassLoader()
    {
        ClassLoader own = new ClassLoader(getClass().getClassLoader()) {};
        Seen seen = new Seen();
        Scripted first = new Scripted("first", seen::record);
        Scripted second = new Scripted("second", seen::record);
        AdapterRegistry registry = registryOf(first, second);
        List<Thread> decider = new CopyOnWriteArrayList<>();
        NodeSnapshot snapshot = node.snapshot();
        NodeView view = watched(snapshot, () -> decider.add(Thread.currentThread()));
        Thread.currentThread().setContextClassLoader(own);
        try {
            new AdapterSelector(registry, node.config().adapters()).select(view, snapshot, AdapterChoice.auto());
        }
        finally {
            Thread.currentThread().setContextClassLoader(getClass().getClassLoader());
        }

        assertThat(seen.threads).hasSize(2).doesNotContain(Thread.currentThread());
        assertThat(decider).as("the selector's own look at the node, between the calls").isNotEmpty().doesNotContain(Thread.currentThread());
        assertThat(seen.threads).containsOnly(decider.get(0));
        assertThat(seen.loaders).containsOnly(Scripted.class.getClassLoader()).doesNotContain(own);
    }

    @Test
    void aCallThatHangsInADecisionDisablesItsAdapterAndTheDecisionIsMadeAgainWithoutIt()
    {
        Scripted hang = new Scripted("a-hang", () -> sleep(Duration.ofSeconds(60)));
        Scripted fine = new Scripted("b-fine", () -> {});
        AdapterRegistry registry = registryOf(hang, fine);
        long start = System.nanoTime();

        AdapterSelector.Selection selection = new AdapterSelector(registry, node.config().adapters()).select(node.snapshot(), AdapterChoice.auto());

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(LIMIT).isLessThan(Duration.ofSeconds(5));
        assertThat(selection.chosen().name()).isEqualTo("b-fine");
        assertThat(selection.candidates()).filteredOn(c -> c.adapter().name().equals("a-hang")).singleElement()
                .satisfies(c -> assertThat(c.failure()).get().asString().isEqualTo("adapter a-hang: is disabled: detect() did not return within 300 ms [ADAPTER_FAILURE]"));
        assertThat(registry.find("a-hang").orElseThrow().state()).isEqualTo("disabled");
        assertThat(hang.calls).as("asked once, then disabled").hasValue(1);
        assertThat(CapturedLog.lines().stream().filter(l -> l.contains("ERROR"))).singleElement().asString()
                .contains("Adapter a-hang (").contains("disabled: detect() did not return within 300 ms");
    }

    @Test
    void anAbandonedDecisionCallsNoFurtherAdapterWhenItsLateCallReturns()
    {
        Scripted late = new Scripted("a-late", () -> sleep(LIMIT.multipliedBy(2)));
        Scripted fine = new Scripted("b-fine", () -> {});
        AdapterRegistry registry = registryOf(late, fine);

        new AdapterSelector(registry, node.config().adapters()).select(node.snapshot(), AdapterChoice.auto());
        // The abandoned thread's late call returns 2 limits after it started: give it time to go on, if it would.
        sleep(LIMIT.multipliedBy(4));

        assertThat(fine.calls).as("detected once, by the decision made again; never by the abandoned one").hasValue(1);
    }

    @Test
    void onlyTheAgentsOwnAdaptersDecideOnTheCallingThreadEachCallUnderItsAdaptersClassLoader()
    {
        ClassLoader own = new ClassLoader(getClass().getClassLoader()) {};
        Seen seen = new Seen();
        AdapterRegistry registry = registryOf(LoadedAdapter.Origin.BUILT_IN, new Scripted("first", seen::record), new Scripted("second", seen::record));
        Thread.currentThread().setContextClassLoader(own);
        try {
            new AdapterSelector(registry, node.config().adapters()).select(node.snapshot(), AdapterChoice.auto());
            assertThat(Thread.currentThread().getContextClassLoader()).as("put back after each call").isSameAs(own);
        }
        finally {
            Thread.currentThread().setContextClassLoader(getClass().getClassLoader());
        }

        assertThat(registry.onlyBuiltIn()).isTrue();
        assertThat(seen.threads).hasSize(2).containsOnly(Thread.currentThread());
        assertThat(seen.loaders).containsOnly(Scripted.class.getClassLoader());
    }

    @Test
    void aBuiltInAdapterThatThrowsIsStillDisabledAndTheOthersGoOn()
    {
        Scripted broken = new Scripted("broken", () -> {
            throw new IllegalStateException("a bug of ours");
        });
        Scripted fine = new Scripted("fine", () -> {});
        AdapterRegistry registry = registryOf(LoadedAdapter.Origin.BUILT_IN, broken, fine);

        AdapterSelector.Selection selection = new AdapterSelector(registry, node.config().adapters()).select(node.snapshot(), AdapterChoice.auto());

        assertThat(selection.chosen().name()).isEqualTo("fine");
        assertThat(registry.find("broken").orElseThrow().state()).isEqualTo("disabled");
        assertThat(broken.calls).as("asked once, then disabled").hasValue(1);
    }

    /** No decision without the adapter that ran out of heap: the error reaches the pass, also from the guarded thread. */
    @Test
    void aBuiltInAdapterThatRunsOutOfHeapEndsTheDecisionInsteadOfAnotherAdapterMakingIt()
    {
        Scripted outOfHeap = new Scripted("out-of-heap", () -> {
            throw new OutOfMemoryError("Java heap space");
        });
        Scripted fine = new Scripted("fine", () -> {});
        AdapterRegistry builtIn = registryOf(LoadedAdapter.Origin.BUILT_IN, outOfHeap, fine);
        assertThatThrownBy(() -> new AdapterSelector(builtIn, node.config().adapters()).select(node.snapshot(), AdapterChoice.auto()))
                .isInstanceOf(OutOfMemoryError.class);
        assertThat(builtIn.find("out-of-heap").orElseThrow().state()).isNotEqualTo("disabled");

        Scripted outside = new Scripted("outside", () -> {});
        AdapterRegistry withAPlugin = new AdapterRegistry(List.of(new LoadedAdapter(outOfHeap, "1", LoadedAdapter.Origin.BUILT_IN, "built-in"),
                new LoadedAdapter(outside, "1", LoadedAdapter.Origin.PLUGIN, "/plugins/outside.jar", Optional.of("outside"))), List.of(), LIMIT);
        assertThatThrownBy(() -> new AdapterSelector(withAPlugin, node.config().adapters()).select(node.snapshot(), AdapterChoice.auto()))
                .isInstanceOf(OutOfMemoryError.class);
    }

    @Test
    void oneAdapterFromOutsideTheAgentSendsTheWholeDecisionToTheGuardedThread()
    {
        Seen seen = new Seen();
        Scripted builtIn = new Scripted("built-in", seen::record);
        Scripted outside = new Scripted("outside", seen::record);
        AdapterRegistry registry = new AdapterRegistry(List.of(new LoadedAdapter(builtIn, "1", LoadedAdapter.Origin.BUILT_IN, "built-in"),
                new LoadedAdapter(outside, "1", LoadedAdapter.Origin.PLUGIN, "/plugins/outside.jar", Optional.of("outside"))), List.of(), LIMIT);

        new AdapterSelector(registry, node.config().adapters()).select(node.snapshot(), AdapterChoice.auto());

        assertThat(registry.onlyBuiltIn()).isFalse();
        assertThat(seen.threads).hasSize(2).doesNotContain(Thread.currentThread());
        assertThat(seen.threads.get(0)).isSameAs(seen.threads.get(1));
    }

    /** The threads adapter calls ran on, and their context class loaders, in call order. */
    static final class Seen
    {
        final List<Thread> threads = new CopyOnWriteArrayList<>();
        final List<ClassLoader> loaders = new CopyOnWriteArrayList<>();

        void record()
        {
            threads.add(Thread.currentThread());
            loaders.add(Thread.currentThread().getContextClassLoader());
        }
    }

    /** The adapters, in this order, as if each came from a jar of its own on the class path. */
    private static AdapterRegistry registryOf(Scripted... adapters)
    {
        return registryOf(LoadedAdapter.Origin.CLASSPATH, adapters);
    }

    private static AdapterRegistry registryOf(LoadedAdapter.Origin origin, Scripted... adapters)
    {
        return new AdapterRegistry(Arrays.stream(adapters)
                .map(adapter -> new LoadedAdapter(adapter, "1", origin, "/x/" + adapter.name() + ".jar")).toList(), List.of(), LIMIT);
    }

    /** A node view that says when the selector itself (not an adapter, which sees a read-only copy) asks for the effective file. */
    private static NodeView watched(NodeView node, Runnable onEffective)
    {
        return (NodeView) Proxy.newProxyInstance(NodeView.class.getClassLoader(), new Class<?>[] {NodeView.class}, (proxy, method, args) -> {
            if (method.getName().equals("effectiveConfig")) {
                onEffective.run();
            }
            try {
                return method.invoke(node, args);
            }
            catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    private static void sleep(Duration duration)
    {
        long end = System.nanoTime() + duration.toNanos();
        // Sleeps through the interrupt a cancelled call gets: an adapter that ignores it is what the guard is for.
        for (long left = duration.toNanos(); left > 0; left = end - System.nanoTime()) {
            try {
                Thread.sleep(Math.max(1, left / 1_000_000));
            }
            catch (InterruptedException e) {
                // ignored on purpose
            }
        }
    }

    @Test
    void anAdapterWithoutAUsableNameIsRefused()
    {
        assertThatThrownBy(() -> GuardedAdapter.guard(new Scripted(null, () -> {}), "plugin jar /p/x.jar", LIMIT))
                .isInstanceOf(AdapterException.class)
                .hasMessageEndingWith("(plugin jar /p/x.jar): name() returned null, not a name of lower-case letters, digits and dashes");
    }
}
