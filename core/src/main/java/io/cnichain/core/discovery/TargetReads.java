package io.cnichain.core.discovery;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.discovery.CniConfigParser.LoadedConfig;
import io.cnichain.core.discovery.NodeSnapshot.Loaded;
import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ParseResult;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one snapshot read and parsed of the files its entries lead to: each file the runtime loads read once and parsed
 * once under the name it is loaded by, so that the engine patches from the very bytes an adapter decided from.
 *
 * <p>Of a file under a name the runtime does not load, which adapters look through by the thousand, only the verdict is
 * kept ({@link #look}): kept whole, as many of them as a conf dir holds, up to maxConfigBytes each, would fill the agent's
 * heap. The engine reads such a file again at each use ({@link #load}), and its write checks, just before the rename,
 * that the file still holds the bytes it patched.
 */
final class TargetReads
{
    private final NodeLayout layout;
    private final BoundedFileReader reader;
    /** Files the runtime reads but we may not write (outside the allowed roots), by entry path. */
    private final Map<Path, Path> readableOnly;
    /** Parses kept across the agent's passes; none for a one-shot command's snapshot. */
    private final Optional<ParseCache> cache;
    // Concurrent: adapters run on the guard's threads, and a call abandoned after its time limit may still be
    // reading through this snapshot while the engine goes on with it.
    private final Map<LoadKey, Loaded> loaded = new ConcurrentHashMap<>();
    /** Bytes read for {@link #contentOf} before any parse of them: the parse takes them instead of reading again. */
    private final Map<Path, byte[]> readFirst = new ConcurrentHashMap<>();

    TargetReads(NodeLayout layout, BoundedFileReader reader, Map<Path, Path> readableOnly, Optional<ParseCache> cache)
    {
        this.layout = layout;
        this.reader = reader;
        this.readableOnly = readableOnly;
        this.cache = cache;
    }

    /** What the engine patches from: the bytes and tree of a valid file, whatever its name. */
    Loaded load(ConfigEntry entry)
    {
        Loaded seen = look(entry);
        if (!seen.result().isValid() || seen.config().isPresent()) {
            return seen;
        }
        // Read again at each call, never kept: an adapter may name every such file of the conf dir as its own.
        Path target = readable(entry).orElseThrow();
        return readNow(layout.host().toContainer(target), target, loadName(entry, target), true);
    }

    /** What adapters see: the verdict, and the bytes and tree only under a name the runtime loads (see the class comment). */
    Loaded look(ConfigEntry entry)
    {
        if (cache.isPresent() && !entry.runtimeLoadable() && !entry.isSymlink() && entry.path().getParent().equals(layout.confDir())) {
            // An adapter looking through thousands of other files: one look-up each.
            Loaded trusted = cache.get().trusted(entry.name());
            if (trusted != null) {
                return trusted;
            }
        }
        Optional<Path> readable = readable(entry);
        if (readable.isEmpty()) {
            return new Loaded(Optional.empty(), Optional.empty(),
                    new ParseResult.Failed(ParseResult.Reason.UNREADABLE, entry.problem().orElseThrow()), false);
        }
        Path target = readable.get();
        String loadName = loadName(entry, target);
        LoadKey key = new LoadKey(loadName, target);
        Loaded known = loaded.get(key);
        if (known != null) {
            return known;
        }
        // Two threads may both read it (rarely: the adapters' thread and the loop's); the first read stays.
        Loaded read = read(target, loadName, keepsWhole(entry, target, loadName));
        Loaded first = loaded.putIfAbsent(key, read);
        return first != null ? first : read;
    }

    private Optional<Path> readable(ConfigEntry entry)
    {
        Optional<Path> resolved = entry.resolvedFile();
        return resolved.isPresent() ? resolved : Optional.ofNullable(readableOnly.get(entry.path()));
    }

    /** The name a target is parsed under: the one the runtime loads it by (the link's name decides the format). */
    private static String loadName(ConfigEntry entry, Path target)
    {
        return entry.runtimeLoadable() ? entry.name() : target.getFileName().toString();
    }

    /**
     * Whether a valid file is kept whole: when the runtime loads it by this name, through the entry or as itself in the
     * conf dir (a file reached through a link of another name, from elsewhere, is not one the runtime loads).
     */
    private boolean keepsWhole(ConfigEntry entry, Path target, String loadName)
    {
        return entry.runtimeLoadable() || layout.confDir().equals(target.getParent()) && ConfigNames.isRuntimeLoadable(loadName);
    }

    private Loaded read(Path target, String loadName, boolean whole)
    {
        Path container = layout.host().toContainer(target);
        if (cache.isPresent()) {
            return cache.get().load(loadName, target, container, () -> readNow(container, target, loadName, whole));
        }
        return readNow(container, target, loadName, whole);
    }

    /** @param whole whether a valid file's bytes and tree are kept, or its verdict only */
    private Loaded readNow(Path container, Path target, String loadName, boolean whole)
    {
        byte[] bytes = readFirst.get(target);
        try {
            if (bytes == null) {
                bytes = reader.read(container, target);
            }
        }
        catch (CniChainException e) {
            ParseResult.Reason reason = e.code() == ErrorCode.TOO_LARGE ? ParseResult.Reason.TOO_LARGE : ParseResult.Reason.UNREADABLE;
            return new Loaded(Optional.empty(), Optional.empty(), new ParseResult.Failed(reason, e.getMessage()), false);
        }
        try {
            LoadedConfig config = CniConfigParser.parse(loadName, bytes);
            if (!whole) {
                return new Loaded(Optional.empty(), Optional.empty(), new ParseResult.Valid(config.summary()), loadsUnderOlder(loadName, bytes));
            }
            return new Loaded(Optional.of(bytes), Optional.of(config), new ParseResult.Valid(config.summary()), loadsUnderOlder(loadName, bytes));
        }
        catch (CniConfigParser.TooComplex e) {
            return new Loaded(Optional.empty(), Optional.empty(), new ParseResult.Failed(ParseResult.Reason.TOO_LARGE, target + ": " + e.getMessage()),
                    false);
        }
        catch (CniConfigParser.InvalidConfigException e) {
            // Its verdicts only, not its bytes: those of files we never patch, up to maxConfigBytes each and as many as the
            // conf dir holds, would fill the agent's heap.
            return new Loaded(Optional.empty(), Optional.empty(), new ParseResult.Failed(ParseResult.Reason.INVALID, target + ": " + e.getMessage()),
                    loadsUnderOlder(loadName, bytes));
        }
    }

    /** Asked only under a name the runtime loads: an adapter looking through thousands of other files pays one parse each. */
    private static boolean loadsUnderOlder(String loadName, byte[] bytes)
    {
        if (!ConfigNames.isRuntimeLoadable(loadName)) {
            return false;
        }
        try {
            CniConfigParser.parse(loadName, bytes, LibcniGeneration.V1_1);
            return true;
        }
        catch (CniConfigParser.InvalidConfigException e) {
            return false;
        }
    }

    Optional<byte[]> contentOf(ConfigEntry entry)
    {
        Optional<Path> target = entry.resolvedFile();
        if (target.isEmpty()) {
            return Optional.empty();
        }
        String loadName = loadName(entry, target.get());
        Loaded known = loaded.get(new LoadKey(loadName, target.get()));
        if (known != null && (known.bytes().isPresent() || !known.result().isValid())) {
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
            // Kept for the parse to take only under a name the runtime loads: a file under another name is read again at
            // each use (see the class comment).
            if (keepsWhole(entry, target.get(), loadName)) {
                readFirst.putIfAbsent(target.get(), bytes);
            }
        }
        return Optional.of(bytes);
    }

    Optional<Loaded> loadedAlready(String loadName, Path target)
    {
        return Optional.ofNullable(loaded.get(new LoadKey(loadName, target)));
    }

    private record LoadKey(String loadName, Path target)
    {
        // Written out, as FileSystemCalls.Identity's are: a record's own are linked at their first call, before the
        // agent's first patch, and called slowly by its C1-only JIT; a key is made for every file a pass reads.
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
}
