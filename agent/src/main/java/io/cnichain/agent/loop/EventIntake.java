package io.cnichain.agent.loop;

import io.cnichain.agent.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
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
import java.util.function.Predicate;

import static java.util.Objects.requireNonNull;

/**
 * The watch service's side of the loop: blocks until something happens (or a timer is due), then takes every key
 * already queued and turns it into one {@link Batch} of typed events. What only the watches themselves need is
 * settled here: a directory that went away is watched for again, a missing directory that appeared is armed, and
 * either, like an overflow, asks for a rescan of everything.
 */
final class EventIntake
{
    private static final Logger log = LoggerFactory.getLogger(EventIntake.class);

    private final WatchService service;
    private final DirectoryWatches watches;
    private final AgentMetrics metrics;
    private final Clock clock;

    EventIntake(WatchService service, AgentMetrics metrics, Clock clock)
    {
        this.service = requireNonNull(service, "service is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.watches = new DirectoryWatches(service);
        this.metrics = requireNonNull(metrics, "metrics is null");
    }

    /**
     * Watches exactly these directories from now on.
     *
     * @return those armed by this call
     */
    Set<Path> watch(Set<Path> directories)
    {
        return watches.want(directories);
    }

    /** @return what the periodic check repaired of the watches ({@link DirectoryWatches#verify}) */
    /** @return wanted directories that exist but could not be watched, and why */
    java.util.Map<Path, String> unwatchable()
    {
        return watches.unwatchable();
    }

    /** @return the directories armed by trying the failed watches again */
    Set<Path> retryUnwatchable()
    {
        return watches.retryUnwatchable();
    }

    WatchVerification verifyWatches(Predicate<Path> settled)
    {
        return watches.verify(settled);
    }

    /**
     * Waits for events, until {@code deadlineNanos} when there is one, then takes all that are queued.
     *
     * @param deadlineNanos when to return anyway ({@link System#nanoTime()}), for a timer
     * @return what happened; empty when the deadline came first
     * @throws java.nio.file.ClosedWatchServiceException once {@link #close()} was called
     */
    Batch next(OptionalLong deadlineNanos)
            throws InterruptedException
    {
        WatchKey first;
        if (deadlineNanos.isEmpty()) {
            first = service.take();
        }
        else {
            first = service.poll();
            while (first == null && !clock.reached(deadlineNanos.getAsLong())) {
                first = service.poll(clock.blockNanos(deadlineNanos.getAsLong()), TimeUnit.NANOSECONDS);
            }
        }
        long woke = clock.nanoTime();
        List<WatchKey> keys = new ArrayList<>();
        for (WatchKey key = first; key != null; key = service.poll()) {
            keys.add(key);
        }
        return collect(keys, woke);
    }

    /** Ends {@link #next} on the loop's thread; called from any thread. */
    void close()
    {
        try {
            service.close();
        }
        catch (IOException e) {
            log.warn("Closing the watch service failed: {}", e.getMessage());
        }
    }

    private Batch collect(List<WatchKey> keys, long woke)
    {
        List<DirectoryEvent> events = new ArrayList<>();
        List<WatchKey> invalidated = new ArrayList<>();
        boolean overflow = false;
        for (WatchKey key : keys) {
            Optional<Path> directory = watches.directoryOf(key);
            for (WatchEvent<?> event : key.pollEvents()) {
                EventKind kind = EventKind.of(event.kind());
                metrics.event(kind);
                if (kind == EventKind.OVERFLOW) {
                    overflow = true;
                }
                else if (directory.isPresent()) {
                    events.add(new DirectoryEvent(directory.get(), event.context().toString(), kind));
                }
            }
            if (!key.reset()) {
                invalidated.add(key);
            }
        }
        boolean rescan = !invalidated.isEmpty();
        Set<Path> appeared = new LinkedHashSet<>();
        for (WatchKey key : invalidated) {
            appeared.addAll(watches.invalidated(key));
        }
        Set<Path> replaced = new LinkedHashSet<>();
        for (DirectoryEvent event : events) {
            if (watches.isAncestor(event.directory()) && !watches.isWanted(event.directory())) {
                watches.replaced(event.directory(), event.name()).ifPresent(replaced::add);
            }
            if (event.kind() == EventKind.CREATE && watches.isAncestor(event.directory())) {
                appeared.addAll(watches.retryPending());
            }
        }
        if (!replaced.isEmpty()) {
            log.warn("{} now names another directory (renamed away, or another renamed in its place); watching what it names now and "
                    + "rescanning", replaced);
            rescan = true;
        }
        if (!appeared.isEmpty()) {
            log.info("{} appeared; watching again and rescanning", appeared);
            rescan = true;
        }
        if (overflow) {
            log.warn("More events arrived at once than the watch queue holds (overflow); rescanning everything");
            rescan = true;
        }
        // An ancestor watched only for a missing directory to appear has done its job above.
        List<DirectoryEvent> relevant = new ArrayList<>();
        for (DirectoryEvent event : events) {
            if (!watches.isAncestor(event.directory()) || watches.isWanted(event.directory())) {
                relevant.add(event);
            }
        }
        return new Batch(woke, relevant, rescan);
    }

    /**
     * What one wake-up found.
     *
     * @param wokeNanos when the loop woke ({@link System#nanoTime()}): the start of the reaction time
     * @param events    the events of wanted directories, in order
     * @param rescan    whether only a rescan of everything is safe (overflow, a directory gone or back)
     */
    record Batch(long wokeNanos, List<DirectoryEvent> events, boolean rescan)
    {
        Batch
        {
            events = List.copyOf(events);
        }
    }
}
