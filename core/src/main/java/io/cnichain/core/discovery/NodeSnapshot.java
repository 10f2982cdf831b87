package io.cnichain.core.discovery;

import io.cnichain.core.discovery.CniConfigParser.LoadedConfig;
import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.core.fs.SymlinkResolver;
import io.cnichain.core.fs.linux.FileSystemCalls;
import io.cnichain.core.fs.linux.PathNames;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.NodeView;
import io.cnichain.spi.ParseResult;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One consistent look at a node: the entries of the configuration directory with their links resolved, and
 * (on demand, cached) what each one parses to. Adapters decide from it; the engine patches a file the runtime loads
 * from the same bytes it validated here (a file under another name is read again, {@link #load}).
 */
public final class NodeSnapshot
        implements NodeView
{
    /** Runtimes sort names by their bytes (Go's string order), not by UTF-16 units. */
    public static final Comparator<String> BYTE_ORDER = ConfigNames::compareBytes;

    private final NodeLayout layout;
    private final SymlinkResolver resolver;
    private final BoundedFileReader reader;
    private final Map<String, ConfigEntry> entries;
    private final List<ConfigEntry> entryList;
    private final Optional<String> listingProblem;
    /** Entries whose names the JVM cannot name (not valid in its path encoding): reported, never opened. */
    private final List<FileSystemCalls.EntryName> unnameable;
    /** Files the runtime reads but we may not write (outside the allowed roots), by entry path. */
    private final Map<Path, Path> readableOnly;
    private final TargetReads reads;
    /**
     * What libcni 1.3 appends to each runtime-loadable list, by entry name, read when first asked. Concurrent, as
     * {@link TargetReads}'s maps are: adapters read through this snapshot on the guard's threads.
     */
    private final Map<String, DropIns.Reading> dropIns = new ConcurrentHashMap<>();

    NodeSnapshot(NodeLayout layout, SymlinkResolver resolver, BoundedFileReader reader, Map<String, ConfigEntry> entries,
            Map<Path, Path> readableOnly, Optional<String> listingProblem, List<FileSystemCalls.EntryName> unnameable, Optional<ParseCache> cache)
    {
        this(layout, resolver, reader, entries, List.copyOf(entries.values()), readableOnly, listingProblem, unnameable, cache);
    }

    /** @param entryList the entries' values in their order, made once for as many snapshots as share them */
    NodeSnapshot(NodeLayout layout, SymlinkResolver resolver, BoundedFileReader reader, Map<String, ConfigEntry> entries, List<ConfigEntry> entryList,
            Map<Path, Path> readableOnly, Optional<String> listingProblem, List<FileSystemCalls.EntryName> unnameable, Optional<ParseCache> cache)
    {
        this.unnameable = unnameable;
        this.layout = layout;
        this.readableOnly = readableOnly;
        this.resolver = resolver;
        this.reader = reader;
        this.entries = entries;
        this.entryList = entryList;
        this.listingProblem = listingProblem;
        this.reads = new TargetReads(layout, reader, readableOnly, cache);
    }

    static NodeSnapshot take(NodeLayout layout, SymlinkResolver resolver, BoundedFileReader reader)
    {
        ConfDirListing listing = ConfDirListing.list(layout, resolver);
        return new NodeSnapshot(layout, resolver, reader, listing.entries(), listing.readableOnly(), listing.problem(), listing.unnameable(),
                Optional.empty());
    }

    public NodeLayout layout()
    {
        return layout;
    }

    /** @return entries whose names the JVM cannot name, as printable text (see {@link PathNames#printable}) */
    public List<String> unnameableNames()
    {
        List<String> names = new ArrayList<>();
        for (FileSystemCalls.EntryName name : unnameable) {
            names.add(PathNames.printable(name.bytes()));
        }
        return names;
    }

    /** Why the configuration directory could not be listed, when it could not. */
    public Optional<String> listingProblem()
    {
        return listingProblem;
    }

    /**
     * Why what the configuration directory holds is unknown: it could not be listed, and not for being absent or no
     * directory (a permission, a security module's denial, on it or above it). It may hold files the runtime loads.
     */
    public Optional<String> contentsUnknown()
    {
        return listingProblem.filter(problem -> !problem.endsWith(ConfDirListing.ABSENT) && !problem.endsWith(ConfDirListing.NOT_A_DIRECTORY));
    }

    @Override
    public Path confDir()
    {
        return layout.confDir();
    }

    @Override
    public Path binDir()
    {
        return layout.binDir();
    }

    @Override
    public List<ConfigEntry> entries()
    {
        return entryList;
    }

    @Override
    public Optional<ConfigEntry> entry(String fileName)
    {
        return Optional.ofNullable(entries.get(fileName));
    }

    @Override
    public ConfigEntry inspect(Path hostPath)
    {
        Path normalized = Path.of("/").resolve(hostPath).normalize();
        if (layout.confDir().equals(normalized.getParent()) && entries.containsKey(normalized.getFileName().toString())) {
            return entries.get(normalized.getFileName().toString());
        }
        return ConfDirListing.toEntry(resolver, normalized, readableOnly);
    }

    @Override
    public ParseResult parse(ConfigEntry entry)
    {
        return reads.look(entry).result();
    }

    /**
     * The entry's target as read and parsed, for the engine: the bytes and tree behind {@link #parse}.
     *
     * @param entry an entry
     * @return what was loaded
     */
    public Loaded load(ConfigEntry entry)
    {
        return reads.load(entry);
    }

    /**
     * The bytes of the file an entry resolves to, as this snapshot reads it: read now unless it was read already, and
     * parsed, when it is, from these same bytes (the agent compares them with its last write, then decides from them);
     * a file under a name the runtime does not load is parsed from its own read.
     *
     * @param entry an entry
     * @return the content; empty when the entry does not resolve to a file that can be read, or to one read already that
     *         libcni 1.3 refuses (whose bytes are not kept: we never patch it)
     */
    public Optional<byte[]> contentOf(ConfigEntry entry)
    {
        return reads.contentOf(entry);
    }

    @Override
    public Optional<ConfigEntry> effectiveConfig()
    {
        for (ConfigEntry entry : entries.values()) {
            if (entry.runtimeLoadable() && parse(entry).isValid() && dropIns(entry).failure().isEmpty()) {
                return Optional.of(entry);
            }
        }
        return Optional.empty();
    }

    /**
     * What libcni 1.3 appends to a runtime-loadable list of the conf dir ({@link DropIns}): nothing for anything else.
     *
     * @param entry an entry of the conf dir
     * @return its drop-ins as this snapshot read them
     */
    public DropIns.Reading dropIns(ConfigEntry entry)
    {
        if (!entry.runtimeLoadable() || !layout.confDir().equals(entry.path().getParent())) {
            return DropIns.Reading.NONE;
        }
        DropIns.Reading known = dropIns.get(entry.name());
        if (known != null) {
            return known;
        }
        Optional<LoadedConfig> config = load(entry).config();
        DropIns.Reading read = config.isPresent() ? DropIns.read(layout, reader, entry.name(), config.get()) : DropIns.Reading.NONE;
        dropIns.putIfAbsent(entry.name(), read);
        return read;
    }

    /**
     * The plugins a libcni 1.3 runtime runs for a runtime-loadable entry, in order: the file's own, then its drop-ins.
     *
     * @return their types; empty when the entry does not load
     */
    public List<String> runtimePluginTypes(ConfigEntry entry)
    {
        Optional<LoadedConfig> config = load(entry).config();
        if (config.isEmpty()) {
            return List.of();
        }
        List<String> types = new ArrayList<>(config.get().summary().pluginTypes());
        types.addAll(dropIns(entry).types());
        return types;
    }

    /**
     * The configuration a runtime linking this generation of libcni loads: the first runtime-loadable entry it accepts.
     *
     * @param generation whose rules decide; {@link LibcniGeneration#V1_3} is {@link #effectiveConfig()}
     * @return the entry, if any loads
     */
    public Optional<ConfigEntry> effectiveConfig(LibcniGeneration generation)
    {
        if (generation == LibcniGeneration.V1_3) {
            return effectiveConfig();
        }
        for (ConfigEntry entry : entries.values()) {
            if (entry.runtimeLoadable() && loadsUnder(entry, generation)) {
                return Optional.of(entry);
            }
        }
        return Optional.empty();
    }

    /** Whether a runtime-loadable entry, as read for this snapshot, loads under a generation's rules. */
    public boolean loadsUnder(ConfigEntry entry, LibcniGeneration generation)
    {
        Loaded loaded = load(entry);
        if (generation == LibcniGeneration.V1_3) {
            return loaded.result().isValid() && dropIns(entry).failure().isEmpty();
        }
        return loaded.olderLoads();
    }

    /**
     * Runtime-loadable entries before the effective configuration (or anywhere, when there is none) that the runtime
     * may load although we cannot tell what they hold ({@link BeforeEffective#unknown}).
     *
     * @return one line per such entry
     */
    public List<String> unknownBeforeEffective()
    {
        return BeforeEffective.unknown(this, unnameable);
    }

    /**
     * Runtime-loadable entries that sort before the effective configuration (or anywhere, when there is none) and that
     * the runtime cannot load ({@link BeforeEffective#broken}).
     *
     * @return one line per broken entry
     */
    public List<String> brokenBeforeEffective()
    {
        return BeforeEffective.broken(this);
    }

    @Override
    public boolean hasBinary(String name)
    {
        return Files.exists(layout.host().toContainer(layout.binDir().resolve(name)));
    }

    @Override
    public boolean isNeverConfig(String fileName)
    {
        return ConfigNames.isNeverConfig(fileName);
    }

    /**
     * What this snapshot already read and parsed of a file, without reading it: the engine patches from those bytes (the
     * write checks, just before its rename, that the file still holds them).
     *
     * @param loadName the name the file is loaded under
     * @param target   the file (host path)
     * @return what was loaded, when an adapter or the effective-file rule looked at it in this pass
     */
    public Optional<Loaded> loadedAlready(String loadName, Path target)
    {
        return reads.loadedAlready(loadName, target);
    }

    /**
     * What reading an entry's target gave.
     *
     * @param bytes      the content, when it is valid (a file we never patch keeps none; one under a name the runtime
     *                   does not load keeps none until the engine reads it whole)
     * @param config     the parsed configuration, when the bytes are kept
     * @param result     the result adapters see
     * @param olderLoads whether {@link LibcniGeneration#V1_1} loads it, decided when it was read under a name the runtime
     *                   loads (false under any other)
     */
    public record Loaded(Optional<byte[]> bytes, Optional<LoadedConfig> config, ParseResult result, boolean olderLoads) {}
}
