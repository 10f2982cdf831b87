package io.cnichain.core.discovery;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
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
 * (on demand, cached) what each one parses to. Adapters decide from it; the engine patches from the same
 * bytes it validated here.
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
    /** Parses kept across the agent's passes; none for a one-shot command's snapshot. */
    private final Optional<ParseCache> cache;
    // Concurrent: adapters run on the guard's threads, and a call abandoned after its time limit may still be
    // reading through this snapshot while the engine goes on with it.
    private final Map<LoadKey, Loaded> loaded = new ConcurrentHashMap<>();
    /** What libcni 1.3 appends to each runtime-loadable list, by entry name, read when first asked. */
    private final Map<String, DropIns.Reading> dropIns = new ConcurrentHashMap<>();
    /** Files the runtime reads but we may not write (outside the allowed roots), by entry path. */
    private final Map<Path, Path> readableOnly;
    /** Bytes read for {@link #contentOf} before any parse of them: the parse takes them instead of reading again. */
    private final Map<Path, byte[]> readFirst = new ConcurrentHashMap<>();

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
        this.cache = cache;
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
        return load(entry).result();
    }

    /**
     * The entry's target as read and parsed, for the engine: the bytes and tree behind {@link #parse}.
     *
     * @param entry an entry
     * @return what was loaded
     */
    public Loaded load(ConfigEntry entry)
    {
        if (cache.isPresent() && !entry.runtimeLoadable() && !entry.isSymlink() && entry.path().getParent().equals(layout.confDir())) {
            // An adapter looking through thousands of other files: one look-up each.
            Loaded trusted = cache.get().trusted(entry.name());
            if (trusted != null) {
                return trusted;
            }
        }
        Optional<Path> readable = entry.resolvedFile();
        if (readable.isEmpty()) {
            readable = Optional.ofNullable(readableOnly.get(entry.path()));
        }
        if (readable.isEmpty()) {
            return new Loaded(Optional.empty(), Optional.empty(),
                    new ParseResult.Failed(ParseResult.Reason.UNREADABLE, entry.problem().orElseThrow()));
        }
        Path target = readable.get();
        String loadName = loadName(entry, target);
        LoadKey key = new LoadKey(loadName, target);
        Loaded known = loaded.get(key);
        if (known != null) {
            return known;
        }
        // Two threads may both read it (rarely: the adapters' thread and the loop's); the first read stays.
        Loaded read = read(target, loadName);
        Loaded first = loaded.putIfAbsent(key, read);
        return first != null ? first : read;
    }

    /** The name a target is parsed under: the one the runtime loads it by (the link's name decides the format). */
    private static String loadName(ConfigEntry entry, Path target)
    {
        return entry.runtimeLoadable() ? entry.name() : target.getFileName().toString();
    }

    private Loaded read(Path target, String loadName)
    {
        Path container = layout.host().toContainer(target);
        if (cache.isPresent()) {
            return cache.get().load(loadName, target, container, () -> readNow(container, target, loadName));
        }
        return readNow(container, target, loadName);
    }

    private Loaded readNow(Path container, Path target, String loadName)
    {
        byte[] bytes = readFirst.get(target);
        try {
            if (bytes == null) {
                bytes = reader.read(container, target);
            }
        }
        catch (CniChainException e) {
            ParseResult.Reason reason = e.code() == ErrorCode.TOO_LARGE ? ParseResult.Reason.TOO_LARGE : ParseResult.Reason.UNREADABLE;
            return new Loaded(Optional.empty(), Optional.empty(), new ParseResult.Failed(reason, e.getMessage()));
        }
        try {
            LoadedConfig config = CniConfigParser.parse(loadName, bytes);
            return new Loaded(Optional.of(bytes), Optional.of(config), new ParseResult.Valid(config.summary()));
        }
        catch (CniConfigParser.TooComplex e) {
            return new Loaded(Optional.empty(), Optional.empty(), new ParseResult.Failed(ParseResult.Reason.TOO_LARGE, target + ": " + e.getMessage()));
        }
        catch (CniConfigParser.InvalidConfigException e) {
            return new Loaded(Optional.of(bytes), Optional.empty(), new ParseResult.Failed(ParseResult.Reason.INVALID, target + ": " + e.getMessage()));
        }
    }

    /**
     * The bytes of the file an entry resolves to, as this snapshot reads it: read now unless it was read already, and
     * parsed, when it is, from these same bytes (the agent compares them with its last write, then decides from them).
     *
     * @param entry an entry
     * @return the content; empty when the entry does not resolve to a file that can be read
     */
    public Optional<byte[]> contentOf(ConfigEntry entry)
    {
        Optional<Path> target = entry.resolvedFile();
        if (target.isEmpty()) {
            return Optional.empty();
        }
        Loaded known = loaded.get(new LoadKey(loadName(entry, target.get()), target.get()));
        if (known != null) {
            return known.bytes();
        }
        byte[] bytes = readFirst.get(target.get());
        if (bytes == null) {
            try {
                bytes = reader.read(layout.host().toContainer(target.get()), target.get());
            }
            catch (CniChainException e) {
                return Optional.empty();
            }
            readFirst.putIfAbsent(target.get(), bytes);
        }
        return Optional.of(bytes);
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
        if (loaded.bytes().isEmpty()) {
            return false;
        }
        if (generation == LibcniGeneration.V1_3) {
            return loaded.result().isValid() && dropIns(entry).failure().isEmpty();
        }
        try {
            CniConfigParser.parse(entry.name(), loaded.bytes().get(), generation);
            return true;
        }
        catch (CniConfigParser.InvalidConfigException e) {
            return false;
        }
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
        return Optional.ofNullable(loaded.get(new LoadKey(loadName, target)));
    }

    private record LoadKey(String loadName, Path target)
    {
        // Written out: a record's own equals and hashCode go through method handles, which the agent's C1-only JIT
        // calls slowly; with thousands of entries they are on the reaction path (the benchmark's link chain with
        // thousands of entries: docs/performance.md).
        @Override
        public boolean equals(Object other)
        {
            return other instanceof LoadKey key && loadName.equals(key.loadName) && target.equals(key.target);
        }

        @Override
        public int hashCode()
        {
            return 31 * loadName.hashCode() + target.hashCode();
        }
    }

    /**
     * What reading an entry's target gave.
     *
     * @param bytes  the content, when it could be read
     * @param config the parsed configuration, when it is valid
     * @param result the result adapters see
     */
    public record Loaded(Optional<byte[]> bytes, Optional<LoadedConfig> config, ParseResult result) {}
}
