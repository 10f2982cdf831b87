package io.cnichain.agent.loop;

import io.cnichain.agent.time.Clock;
import io.cnichain.core.CniChainException;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.engine.FileOutcome;
import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.core.host.HostPaths;
import io.cnichain.spi.ConfigEntry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What we last wrote to each file (host paths): its bytes, to recognise our own echo among the events, and when, to
 * tell a quick revert by another writer from a primary that simply rewrites its file now and then; and when another
 * writer was first seen changing it since.
 */
final class WriteLedger
{
    private final HostPaths host;
    private final BoundedFileReader reader;
    private final Clock clock;
    private final Map<Path, Entry> entries = new HashMap<>();
    private final Map<Path, Long> overwritten = new HashMap<>();
    private final Map<Path, Long> lastOverwritten = new HashMap<>();

    WriteLedger(HostPaths host, BoundedFileReader reader, Clock clock)
    {
        this.clock = requireNonNull(clock, "clock is null");
        this.host = requireNonNull(host, "host is null");
        this.reader = requireNonNull(reader, "reader is null");
    }

    void record(FileOutcome.Written written, long nanos)
    {
        entries.put(written.hostPath(), new Entry(written, nanos));
        overwritten.remove(written.hostPath());
        lastOverwritten.remove(written.hostPath());
    }

    Optional<Entry> last(Path hostPath)
    {
        return Optional.ofNullable(entries.get(hostPath));
    }

    /**
     * Is an event on this entry our own write coming back? Only when the entry is a file (we never write links: an
     * event on a link is someone else's doing, whatever it resolves to) whose bytes are what we last wrote there.
     *
     * @param entry    the entry the event named, as it is now
     * @param snapshot the node now, which reads the entry's file
     * @return whether the event is our echo
     */
    boolean isEcho(ConfigEntry entry, NodeSnapshot snapshot)
    {
        if (entry.isSymlink() || entry.resolvedFile().isEmpty()) {
            return false;
        }
        Entry ours = entries.get(entry.resolvedFile().get());
        if (ours == null) {
            return false;
        }
        // Read through the snapshot: a real change is then decided from these same bytes, not read again.
        Optional<byte[]> content = snapshot.contentOf(entry);
        return content.isPresent() && ours.written().sameContent(content.get());
    }

    /** @return whether the file holds exactly what we last wrote to it */
    boolean holdsOurLastWrite(Path hostPath)
    {
        Entry entry = entries.get(hostPath);
        if (entry == null) {
            return false;
        }
        Optional<byte[]> content = contentOf(hostPath);
        return content.isPresent() && entry.written().sameContent(content.get());
    }

    /** Another writer changed a file we wrote: the first time since our last write is when our write was undone. */
    void overwrittenAt(Path hostPath, long nanos)
    {
        if (entries.containsKey(hostPath)) {
            overwritten.putIfAbsent(hostPath, nanos);
            lastOverwritten.put(hostPath, nanos);
        }
    }

    /**
     * @return when another writer last changed the file since our last write, or empty while the file still holds our
     *         last write: the later of the last change an event told and the file's own change time (mtime or ctime,
     *         as {@link System#nanoTime()}). Events can be missed (a watch lost while its directory was swapped for a
     *         link); the file's bytes and times cannot.
     */
    Optional<Long> lastChangedByAnother(Path hostPath)
    {
        if (!entries.containsKey(hostPath) || holdsOurLastWrite(hostPath)) {
            return Optional.empty();
        }
        Long seen = lastOverwritten.get(hostPath);
        Optional<Long> changed = changedNanos(hostPath);
        if (changed.isPresent() && (seen == null || changed.get() - seen > 0)) {
            return changed;
        }
        return Optional.ofNullable(seen);
    }

    /** The file's last change (mtime or ctime, whichever is later) on the {@link System#nanoTime()} scale. */
    private Optional<Long> changedNanos(Path hostPath)
    {
        try {
            Path file = host.toContainer(hostPath);
            Instant latest = Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS).toInstant();
            if (Files.getAttribute(file, "unix:ctime", LinkOption.NOFOLLOW_LINKS) instanceof FileTime ctime && ctime.toInstant().isAfter(latest)) {
                latest = ctime.toInstant();
            }
            long agoNanos = Duration.between(latest, Instant.now()).toNanos();
            return Optional.of(clock.nanoTime() - Math.max(0, agoNanos));
        }
        catch (IOException | UnsupportedOperationException | IllegalArgumentException | ArithmeticException e) {
            return Optional.empty();
        }
    }

    /** The file still holds our entry after all: no revert to count. */
    void notOverwritten(Path hostPath)
    {
        overwritten.remove(hostPath);
        lastOverwritten.remove(hostPath);
    }

    /** @return when another writer was first seen changing the file since our last write */
    Optional<Long> overwrittenSince(Path hostPath)
    {
        return Optional.ofNullable(overwritten.get(hostPath));
    }

    private Optional<byte[]> contentOf(Path hostPath)
    {
        try {
            return Optional.of(reader.read(host.toContainer(hostPath), hostPath));
        }
        catch (CniChainException e) {
            return Optional.empty();
        }
    }

    /**
     * @param written what we wrote
     * @param nanos   when ({@link System#nanoTime()})
     */
    record Entry(FileOutcome.Written written, long nanos) {}
}
