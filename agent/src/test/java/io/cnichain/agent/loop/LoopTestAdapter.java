package io.cnichain.agent.loop;

import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.Detection;
import io.cnichain.spi.NodeView;
import io.cnichain.spi.ParseResult;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The adapter of the loop's tests (core's test classpath has none of the real ones). It decides as generic-symlink
 * does: the configuration the runtime loads, through its links; failing that, the only configuration, which does
 * not parse yet. It always matches, names extra directories to watch when asked to, has a fight hint, and can be
 * made to hold a pass up, to show a stuck loop.
 */
final class LoopTestAdapter
        implements CniPlatformAdapter
{
    static final String NAME = "loop-test";
    static final String FIGHT_HINT = "turn off the test primary's exclusive mode";

    private final Set<Path> extraDirectories;
    private final Optional<String> onlyFile;
    private final AtomicReference<CountDownLatch> gate = new AtomicReference<>();

    LoopTestAdapter()
    {
        this(Set.of());
    }

    /**
     * @param extraDirectories host paths returned by {@link #watchDirectories}
     */
    LoopTestAdapter(Set<Path> extraDirectories)
    {
        this(extraDirectories, Optional.empty());
    }

    private LoopTestAdapter(Set<Path> extraDirectories, Optional<String> onlyFile)
    {
        this.extraDirectories = Set.copyOf(extraDirectories);
        this.onlyFile = onlyFile;
    }

    /** An adapter that names one file of the conf dir, whatever the runtime loads: the core must patch that too. */
    static LoopTestAdapter naming(String fileName)
    {
        return new LoopTestAdapter(Set.of(), Optional.of(fileName));
    }

    /** Every decision from now on waits (up to 3 s) until the returned latch is counted down. */
    CountDownLatch holdPasses()
    {
        CountDownLatch latch = new CountDownLatch(1);
        gate.set(latch);
        return latch;
    }

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public Detection detect(NodeView node, AdapterSettings settings)
    {
        return Detection.of(Detection.HINT, "the loop tests' adapter always matches");
    }

    @Override
    public List<ConfigTarget> authoritativeConfigs(NodeView node, AdapterSettings settings)
    {
        CountDownLatch latch = gate.get();
        if (latch != null) {
            try {
                latch.await(3, TimeUnit.SECONDS);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (onlyFile.isPresent()) {
            return node.entry(onlyFile.get()).map(entry -> List.of(ConfigTarget.of(entry, "the test adapter's own file"))).orElse(List.of());
        }
        Optional<ConfigEntry> effective = node.effectiveConfig();
        if (effective.isPresent()) {
            return effective.filter(ConfigEntry::resolves).map(entry -> List.of(ConfigTarget.of(entry, "the configuration the runtime loads"))).orElse(List.of());
        }
        return node.entries().stream()
                .filter(ConfigEntry::runtimeLoadable)
                .filter(ConfigEntry::resolves)
                .filter(entry -> node.parse(entry) instanceof ParseResult.Failed failed && failed.reason() == ParseResult.Reason.INVALID)
                .findFirst()
                .map(entry -> List.of(ConfigTarget.of(entry, "the only configuration, which does not parse yet")))
                .orElse(List.of());
    }

    @Override
    public Set<Path> watchDirectories(NodeView node, AdapterSettings settings)
    {
        return extraDirectories;
    }

    @Override
    public Optional<String> fightHint()
    {
        return Optional.of(FIGHT_HINT);
    }
}
