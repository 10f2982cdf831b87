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
    /** Files the runtime reads but we may not write (outside the allowed roots), by entry path. */
    private final Map<Path, Path> readableOnly;

    NodeSnapshot(NodeLayout layout, SymlinkResolver resolver, BoundedFileReader reader, Map<String, ConfigEntry> entries,
            Map<Path, Path> readableOnly, Optional<String> listingProblem, List<FileSystemCalls.EntryName> unnameable, Optional<ParseCache> cache)
    {
        this.unnameable = unnameable;
        this.layout = layout;
        this.readableOnly = readableOnly;
        this.resolver = resolver;
        this.reader = reader;
        this.entries = entries;
        this.entryList = List.copyOf(entries.values());
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
        // The target is parsed under the name the runtime loads it by (the link's name decides the format).
        String loadName = entry.runtimeLoadable() ? entry.name() : target.getFileName().toString();
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
        byte[] bytes;
        try {
            bytes = reader.read(container, target);
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

    @Override
    public Optional<ConfigEntry> effectiveConfig()
    {
        for (ConfigEntry entry : entries.values()) {
            if (entry.runtimeLoadable() && parse(entry).isValid()) {
                return Optional.of(entry);
            }
        }
        return Optional.empty();
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
            return loaded.result().isValid();
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
     * may load although we cannot tell what they hold: a regular file too large to read whole, or one that cannot be
     * read. Such a file may be the runtime's, without our entry.
     *
     * @return one line per such entry
     */
    public List<String> unknownBeforeEffective()
    {
        List<String> problems = new ArrayList<>();
        Optional<ConfigEntry> effective = effectiveConfig();
        for (ConfigEntry entry : entries.values()) {
            if (effective.isPresent() && entry.name().equals(effective.get().name())) {
                break;
            }
            if (entry.runtimeLoadable() && unknown(entry)) {
                problems.add(entry.path() + (effective.isPresent() ? " sorts before the effective configuration" : " is in the conf dir")
                        + " and cannot be read whole (" + parse(entry).error().orElse("") + "): the runtime may load it, and we cannot tell whether "
                        + "it carries our entry; make it smaller than maxConfigBytes or readable, or remove it");
            }
        }
        byte[] effectiveName = effective.isPresent() ? effective.get().name().getBytes(java.nio.charset.StandardCharsets.UTF_8) : null;
        for (FileSystemCalls.EntryName name : unnameable) {
            String printable = PathNames.printable(name.bytes());
            // By bytes, as the runtime sorts; a name the fallback saw only decoded may sort anywhere.
            boolean before = effectiveName == null || !name.exact() || java.util.Arrays.compareUnsigned(name.bytes(), effectiveName) < 0;
            if (ConfigNames.isRuntimeLoadable(printable) && before) {
                problems.add(layout.confDir().resolve(printable.replace('/', '?')) + " has a name the agent cannot open (its bytes are not valid "
                        + PathNames.ENCODING + ")" + (effective.isPresent() ? " and sorts before the effective configuration" : "")
                        + ": the runtime may load it, and we cannot tell whether it carries our entry; rename it");
            }
        }
        return problems;
    }

    /** Too large to read whole, or a regular file we could not read: the runtime may still load it. */
    private boolean unknown(ConfigEntry entry)
    {
        ParseResult result = parse(entry);
        if (!(result instanceof ParseResult.Failed failed)) {
            return false;
        }
        if (failed.reason() == ParseResult.Reason.TOO_LARGE) {
            return true;
        }
        // A link that leads nowhere, a FIFO or a directory is something no runtime loads; a regular file may be.
        return failed.reason() == ParseResult.Reason.UNREADABLE && entry.resolvedFile().isPresent()
                && Files.isRegularFile(layout.host().toContainer(entry.resolvedFile().get()), java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Runtime-loadable entries that sort before the effective configuration (or anywhere, when there is none)
     * and that the runtime cannot load. containerd stops at the first such file; CRI-O skips it. Files the runtime
     * may load after all are not among them: those we cannot read whole ({@link #unknownBeforeEffective()}) and those
     * an older libcni loads.
     *
     * @return one line per broken entry
     */
    public List<String> brokenBeforeEffective()
    {
        List<String> problems = new ArrayList<>();
        Optional<ConfigEntry> effective = effectiveConfig();
        for (ConfigEntry entry : entries.values()) {
            if (effective.isPresent() && entry.name().equals(effective.get().name())) {
                break;
            }
            if (entry.runtimeLoadable() && !unknown(entry) && !loadsUnder(entry, LibcniGeneration.V1_1)) {
                ParseResult result = parse(entry);
                if (!result.isValid()) {
                    String error = result.error().orElseThrow();
                    String reason = error.startsWith(entry.path() + ": ") ? error.substring(entry.path().toString().length() + 2) : error;
                    problems.add(entry.path() + (effective.isPresent() ? " sorts before the effective configuration and" : "")
                            + " cannot be loaded (" + reason + "); containerd fails on it, CRI-O skips it");
                }
            }
        }
        return problems;
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
