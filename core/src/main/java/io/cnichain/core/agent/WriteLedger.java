package io.cnichain.core.agent;

import io.cnichain.core.engine.FileOutcome;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What we last wrote to each file: its hash, to recognise our own echo among the events, and when, to tell a
 * quick revert by another writer from a primary that simply rewrites its file now and then.
 */
final class WriteLedger
{
    private final Map<Path, Entry> entries = new HashMap<>();

    void record(FileOutcome.Written written, long nanos)
    {
        entries.put(written.hostPath(), new Entry(written.sha256(), nanos));
    }

    Optional<Entry> last(Path hostPath)
    {
        return Optional.ofNullable(entries.get(hostPath));
    }

    boolean isOurs(Path hostPath, String sha256)
    {
        Entry entry = entries.get(hostPath);
        return entry != null && entry.sha256().equals(sha256);
    }

    void forget(Path hostPath)
    {
        entries.remove(hostPath);
    }

    /**
     * @param sha256 the hash of what we wrote
     * @param nanos  when ({@link System#nanoTime()})
     */
    record Entry(String sha256, long nanos) {}
}
