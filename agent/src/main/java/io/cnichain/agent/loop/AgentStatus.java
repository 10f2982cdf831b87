package io.cnichain.agent.loop;

import io.cnichain.agent.time.Clock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What the health endpoints report, published by the reconcile thread after every pass, and the wake-ups started and
 * done, so that whoever made a change can tell when everything queued before it has been dealt with.
 */
final class AgentStatus
{
    /** A pass longer than this makes readiness false until it ends (passes take milliseconds). */
    static final Duration PASS_NOT_READY = Duration.ofSeconds(1);

    private final Clock clock;
    private volatile List<String> notReady = List.of("starting: first reconcile not done yet");
    private volatile long busySinceNanos;
    private volatile boolean loopRunning;
    private volatile boolean loopEnded;
    private final AtomicLong wakeUpsStarted = new AtomicLong();
    private final AtomicLong wakeUpsDone = new AtomicLong();
    private final List<Consumer<Boolean>> readinessListeners = new CopyOnWriteArrayList<>();
    private final List<Supplier<String>> details = new CopyOnWriteArrayList<>();
    private final List<Supplier<java.util.Optional<String>>> conditions = new CopyOnWriteArrayList<>();

    AgentStatus(Clock clock)
    {
        this.clock = clock;
    }

    void publish(List<String> reasons)
    {
        notReady = List.copyOf(reasons);
        boolean ready = notReady.isEmpty() && conditions().isEmpty();
        readinessListeners.forEach(listener -> listener.accept(ready));
    }

    /** Told the readiness after every pass, on the loop's thread: it must return at once. */
    void onReadiness(Consumer<Boolean> listener)
    {
        readinessListeners.add(listener);
    }

    /** A line shown by {@code /readyz} whether ready or not; information, never a reason not to be ready. */
    void addDetail(Supplier<String> detail)
    {
        details.add(detail);
    }

    /** A reason not to be ready that no pass sees, asked whenever readiness is: it may begin between passes (a token's end). */
    void addCondition(Supplier<java.util.Optional<String>> condition)
    {
        conditions.add(condition);
    }

    private List<String> conditions()
    {
        return conditions.stream().map(Supplier::get).flatMap(java.util.Optional::stream).toList();
    }

    List<String> details()
    {
        return details.stream().map(Supplier::get).filter(detail -> !detail.isEmpty()).toList();
    }

    /** What the runtime loads is not known until a pass ends: one stuck on a file says so within a second. */
    List<String> notReady()
    {
        List<String> reasons = new java.util.ArrayList<>();
        long since = busySinceNanos;
        if (loopEnded) {
            // An Error, or a stop: nothing keeps what it last said true.
            reasons.add("the reconcile loop is not running");
        }
        else if (since != 0 && clock.nanoTime() - since > PASS_NOT_READY.toNanos()) {
            reasons.add("a reconcile pass has been under way for " + (clock.nanoTime() - since) / 1_000_000
                    + " ms; what the runtime loads is not known until it ends");
        }
        List<String> published = notReady;
        List<String> conditions = conditions();
        if (reasons.isEmpty() && conditions.isEmpty()) {
            // The very list the last pass published: a test tells a new publication by its identity.
            return published;
        }
        reasons.addAll(published);
        reasons.addAll(conditions);
        return reasons;
    }

    boolean ready()
    {
        return notReady().isEmpty();
    }

    void loopRunning(boolean running)
    {
        loopEnded |= loopRunning && !running;
        loopRunning = running;
    }

    boolean busy()
    {
        return busySinceNanos != 0;
    }

    void busy(boolean busy)
    {
        busySinceNanos = busy ? clock.nanoTime() : 0;
    }

    void wakeUpStarted()
    {
        wakeUpsStarted.incrementAndGet();
    }

    void wakeUpDone()
    {
        wakeUpsDone.incrementAndGet();
    }

    /** Each wake-up takes every event queued by then. */
    long wakeUpsStarted()
    {
        return wakeUpsStarted.get();
    }

    long wakeUpsDone()
    {
        return wakeUpsDone.get();
    }

    /** @return why the loop is not healthy, or null when it is */
    String unhealthy(Duration stuckAfter)
    {
        if (!loopRunning) {
            return "the reconcile loop is not running";
        }
        long since = busySinceNanos;
        if (since != 0 && clock.nanoTime() - since > stuckAfter.toNanos()) {
            return "the reconcile loop has been busy with one pass for " + (clock.nanoTime() - since) / 1_000_000 + " ms";
        }
        return null;
    }
}
