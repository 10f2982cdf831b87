package io.cnichain.agent.loop;

import io.cnichain.agent.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The watch service's side of the loop: every key already queued becomes one {@link Batch} of events. A directory gone,
 * back or replaced is settled here with the watches, and asks, like an overflow, for a rescan of everything.
 *
 * <p>The one watch service is opened when a watch first needs it. A node whose inotify instances are used up has none:
 * every directory is then one that cannot be watched, looked at again on the loop's back-off, and the service is
 * asked for again at each try.
 */
final class EventIntake
{
    private static final Logger log = LoggerFactory.getLogger(EventIntake.class);
    private static final long STORM_GAP_NANOS = TimeUnit.SECONDS.toNanos(60);

    @FunctionalInterface
    interface Opener
    {
        WatchService open()
                throws IOException;
    }

    private final Opener opener;
    private final DirectoryWatches watches;
    private final AgentMetrics metrics;
    private final Clock clock;
    /** Guarded by this: null until one could be opened. */
    private WatchService service;
    private boolean closed;
    private boolean hadNone;
    /** The last overflow: a storm is warned of once, not at each overflow. */
    private OptionalLong overflowAt = OptionalLong.empty();

    EventIntake(Opener opener, AgentMetrics metrics, Clock clock)
    {
        this.opener = opener;
        this.watches = new DirectoryWatches(this::service);
        this.metrics = metrics;
        this.clock = clock;
    }

    /** @throws ClosedWatchServiceException once {@link #close()} was called */
    private synchronized WatchService service()
            throws IOException
    {
        if (closed) {
            throw new ClosedWatchServiceException();
        }
        if (service == null) {
            try {
                service = opener.open();
            }
            catch (IOException e) {
                hadNone = true;
                throw new IOException("cannot watch anything: no inotify instance (" + e.getMessage() + "; fs.inotify.max_user_instances is likely "
                        + "used up on this node)", e);
            }
            if (hadNone) {
                log.info("An inotify instance could be had again: watching from now on");
            }
        }
        return service;
    }

    DirectoryWatches watches()
    {
        return watches;
    }

    /** @throws java.nio.file.ClosedWatchServiceException once {@link #close()} was called */
    Batch next(OptionalLong deadlineNanos)
            throws InterruptedException
    {
        WatchService service = awaitService(deadlineNanos);
        if (service == null) {
            return new Batch(clock.nanoTime(), List.of(), false);
        }
        WatchKey first = deadlineNanos.isEmpty() ? service.take() : service.poll();
        while (first == null && !clock.reached(deadlineNanos.getAsLong())) {
            first = service.poll(clock.blockNanos(deadlineNanos.getAsLong()), TimeUnit.NANOSECONDS);
        }
        long woke = clock.nanoTime();
        List<WatchKey> keys = new ArrayList<>();
        for (WatchKey key = first; key != null; key = service.poll()) {
            keys.add(key);
        }
        return collect(keys, woke);
    }

    /** Without a service, the wait for the deadline: only a try at a watch can open one. */
    private synchronized WatchService awaitService(OptionalLong deadlineNanos)
            throws InterruptedException
    {
        while (service == null && !closed && (deadlineNanos.isEmpty() || !clock.reached(deadlineNanos.getAsLong()))) {
            TimeUnit.NANOSECONDS.timedWait(this, deadlineNanos.isEmpty() ? Long.MAX_VALUE : Math.max(1, clock.blockNanos(deadlineNanos.getAsLong())));
        }
        if (closed) {
            throw new ClosedWatchServiceException();
        }
        return service;
    }

    synchronized void close()
    {
        closed = true;
        notifyAll();
        if (service != null) {
            try {
                service.close();
            }
            catch (IOException e) {
                log.warn("Closing the watch service failed: {}", e.getMessage());
            }
        }
    }

    private Batch collect(List<WatchKey> keys, long woke)
    {
        List<Event> events = new ArrayList<>();
        List<WatchKey> invalidated = new ArrayList<>();
        boolean overflow = false;
        for (WatchKey key : keys) {
            Optional<Path> directory = watches.directoryOf(key);
            for (WatchEvent<?> event : key.pollEvents()) {
                EventKind kind = EventKind.of(event.kind());
                metrics.event(kind);
                overflow |= kind == EventKind.OVERFLOW;
                if (kind != EventKind.OVERFLOW && directory.isPresent()) {
                    events.add(new Event(directory.get(), event.context().toString(), kind));
                }
            }
            if (!key.reset()) {
                invalidated.add(key);
            }
        }
        // Only once every key's events are taken: arming again may drop a watch whose key is in this batch.
        Set<Path> appeared = new LinkedHashSet<>();
        for (WatchKey key : invalidated) {
            appeared.addAll(watches.invalidated(key));
        }
        Set<Path> replaced = new LinkedHashSet<>();
        for (Event event : events) {
            // In any watched directory: the parent of a wanted one may be wanted itself (the conf dir, a plugin directory in it).
            watches.replaced(event.directory(), event.name()).ifPresent(replaced::add);
            if (event.kind() == EventKind.CREATE && watches.isAncestor(event.directory())) {
                appeared.addAll(watches.retryPending());
            }
        }
        if (!replaced.isEmpty()) {
            log.warn("{} now names another directory (renamed away, or another renamed in its place); watching what it names now and "
                    + "rescanning", replaced);
        }
        if (!appeared.isEmpty()) {
            log.info("{} appeared; watching again and rescanning", appeared);
        }
        if (overflow) {
            sayOverflow(woke);
            // The events lost may have told of a watched directory replaced: each is checked by its identity now.
            for (DirectoryWatches.Repair repair : watches.verify(directory -> true).repairs()) {
                log.warn("{} {}; watching it again", repair.directory(), repair.why());
            }
        }
        return new Batch(woke, events, !invalidated.isEmpty() || overflow || !replaced.isEmpty() || !appeared.isEmpty());
    }

    /** An overflow within {@link #STORM_GAP_NANOS} of the one before belongs to the same storm, which was warned of. */
    private void sayOverflow(long now)
    {
        boolean sameStorm = overflowAt.isPresent() && now - overflowAt.getAsLong() < STORM_GAP_NANOS;
        overflowAt = OptionalLong.of(now);
        if (sameStorm) {
            log.debug("Another overflow of the storm warned of; rescanning everything");
            return;
        }
        log.warn("More events arrived at once than the watch queue holds (overflow); rescanning everything. Overflows less than {} s apart "
                + "are this one's storm, at debug; cnichain_events_total{kind=\"overflow\"} counts each", STORM_GAP_NANOS / 1_000_000_000L);
    }

    /** @param kind never {@link EventKind#OVERFLOW}: that is the batch's */
    record Event(Path directory, String name, EventKind kind) {}

    /** @param wokeNanos the start of the reaction time */
    record Batch(long wokeNanos, List<Event> events, boolean rescan) {}
}
