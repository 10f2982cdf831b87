package io.cnichain.agent.loop;

import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.engine.FileOutcome;
import io.cnichain.core.engine.Installer;
import io.cnichain.spi.ConfigTarget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * Patches one authoritative file, minding what the agent knows about it: a fight holds it back (and a quick revert
 * of our last write may start or extend one), a file that does not parse yet is retried on the
 * {@link RetrySchedule}, a write the filesystem refused is tried again ({@link WriteRetries}), and what we write goes
 * into the {@link WriteLedger}. Schedules the passes that follow up.
 */
final class TargetPatcher
{
    private static final Logger log = LoggerFactory.getLogger(TargetPatcher.class);

    private final Installer installer;
    private final WriteLedger ledger;
    private final FightTracker fights;
    private final RetrySchedule retries;
    private final WriteRetries writeRetries;
    private final Timers timers;
    private final AgentMetrics metrics;
    /** Files in a fight whose other writer was seen rewriting them on its own, not only undoing our entry. */
    private final Set<Path> rewriters = new HashSet<>();

    TargetPatcher(Installer installer, WriteLedger ledger, FightTracker fights, RetrySchedule retries, WriteRetries writeRetries, Timers timers,
            AgentMetrics metrics)
    {
        this.installer = requireNonNull(installer, "installer is null");
        this.ledger = requireNonNull(ledger, "ledger is null");
        this.fights = requireNonNull(fights, "fights is null");
        this.retries = requireNonNull(retries, "retries is null");
        this.writeRetries = requireNonNull(writeRetries, "writeRetries is null");
        this.timers = requireNonNull(timers, "timers is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
    }

    /**
     * Patches the file unless a fight holds it back.
     *
     * @param snapshot        the look at the node the decision was made from (a file it read is patched from those bytes)
     * @param firstEventNanos when the event that led here woke the loop, for the reaction time
     * @return why the file is not patched yet, when it is not
     */
    Optional<NotPatched> patch(ConfigTarget target, Selection selection, NodeSnapshot snapshot, OptionalLong firstEventNanos)
    {
        // The file we write for this target: our drop-in when the placement puts one there, else the target itself. A
        // fight is over what we write: someone deleting our drop-in as soon as it appears is backed off from too.
        Path file = installer.dropInFile(target, snapshot).orElse(target.resolvedFile());
        long now = System.nanoTime();
        Optional<Long> blocked = fights.blockedUntil(file, now);
        if (blocked.isPresent()) {
            Optional<Long> quietAt = writerQuietAt(file);
            if (quietAt.isEmpty() || quietAt.get() - now > 0) {
                long wake = quietAt.filter(at -> at - blocked.get() < 0).orElse(blocked.get());
                timers.schedule(wake, Timers.Kind.BACKOFF_OVER, Optional.empty());
                return Optional.of(fightReason(file, selection));
            }
            log.info("{} has been left alone for {} s; writing our entry again before the back-off ends", file, seconds(fights.policy().quiet()));
        }
        Optional<WriteLedger.Entry> before = ledger.last(file);
        Optional<Long> undone = ledger.overwrittenSince(file);
        FileOutcome outcome = installer.patch(target, selection, snapshot);
        long written = System.nanoTime();
        if (outcome.result() != FileOutcome.Result.FAILED) {
            writeRetries.succeeded(file);
        }
        switch (outcome.result()) {
            case PATCHED, CONVERTED -> {
                for (FileOutcome.Written w : outcome.written()) {
                    ledger.record(w, written);
                }
                metrics.patchWritten();
                if (firstEventNanos.isPresent()) {
                    metrics.reaction(written - firstEventNanos.getAsLong());
                }
                retries.reset(file);
                Optional<FightTracker.Step> reverted = before.isPresent() ? fights.onRevert(file, before.get().nanos(), undone.orElse(now), now) : Optional.empty();
                if (reverted.isPresent()) {
                    FightTracker.Step step = reverted.get();
                    metrics.fight();
                    FightPolicy policy = fights.policy();
                    log.warn("Backing off: {} was undone {} times within {} s, each time less than {} ms after our write; another writer is fighting "
                                    + "over it. Next write in {} s. {}", file, step.reverts(), seconds(policy.window()), policy.quickRevert().toMillis(),
                            seconds(step.backoff()), hint(selection));
                }
                if (fights.fighting(file)) {
                    timers.schedule(written + fights.policy().stable().toNanos(), Timers.Kind.STABILITY_CHECK, Optional.of(file));
                    return Optional.of(fightReason(file, selection));
                }
                return Optional.empty();
            }
            case UNCHANGED, REMOVED -> {
                retries.reset(file);
                ledger.notOverwritten(file);
                return fights.fighting(file) ? Optional.of(fightReason(file, selection)) : Optional.empty();
            }
            case WAITING -> {
                switch (retries.onWaiting(file, now)) {
                    case RetrySchedule.Retry retry -> {
                        log.debug("Retrying {} in {} ms (retry {} of {})", file, retry.delay().toMillis(), retry.number(), retry.of());
                        timers.schedule(retry.dueNanos(), Timers.Kind.RETRY, Optional.empty());
                    }
                    // The timer may have been folded into an earlier one that brought us here: keep one for the retry.
                    case RetrySchedule.Pending pending -> timers.schedule(pending.dueNanos(), Timers.Kind.RETRY, Optional.empty());
                    case RetrySchedule.GiveUp giveUp ->
                            log.warn("{} still cannot be patched after {} retries ({}); left alone until it changes", file, giveUp.retries(), outcome.detail());
                    case RetrySchedule.LeftAlone leftAlone -> {
                        // Said when it gave up; nothing to schedule until the file changes.
                    }
                }
                return Optional.of(new NotPatched(ReconcileResult.WAITING, "waiting for " + file + ": " + outcome.detail()));
            }
            default -> {
                // A conversion can fail after its new file is written (the original cannot be deleted): that file's echo is ours.
                for (FileOutcome.Written w : outcome.written()) {
                    ledger.record(w, written);
                }
                if (outcome.retryable()) {
                    writeRetries.failed(file, now);
                }
                return Optional.of(new NotPatched(ReconcileResult.FAILED, outcome.detail()));
            }
        }
    }

    /**
     * After every pass, for each file in a back-off: a wake at its end, or sooner once the writer went quiet. Not only
     * when a pass meets the file blocked: a pass that does not reach it (its link led elsewhere for a moment, only our
     * echo came, the adapter left it out) would leave no timer, and once the other writer stopped the file would wait
     * out the whole back-off, up to a minute without our entry.
     */
    void scheduleFightWakes(long now)
    {
        for (Path file : fights.fights().keySet()) {
            Optional<Long> blocked = fights.blockedUntil(file, now);
            if (blocked.isPresent()) {
                // A quiet time already past was acted on by the pass that met the file; one that did not reach it must not
                // wake the loop again at once (a link left pointing outside would spin it): the back-off's end then.
                long wake = writerQuietAt(file).filter(at -> at - blocked.get() < 0 && at - now > 0).orElse(blocked.get());
                timers.schedule(wake, Timers.Kind.BACKOFF_OVER, Optional.empty());
            }
        }
    }

    /** A stability check is due: ends the file's fight if it has kept our last write long enough. */
    void checkStable(Path file)
    {
        if (!ledger.holdsOurLastWrite(file)) {
            return;
        }
        ledger.last(file).ifPresent(last -> {
            if (fights.onStable(file, last.nanos(), System.nanoTime())) {
                rewriters.remove(file);
                log.info("{} has kept our entry for {} s; the fight is over, back to normal speed", file, seconds(fights.policy().stable()));
            }
        });
    }

    private NotPatched fightReason(Path file, Selection selection)
    {
        Duration backoff = fights.fights().get(file);
        return new NotPatched(ReconcileResult.WAITING, "another writer keeps undoing our entry in " + file + "; backing off "
                + (backoff == null ? "" : seconds(backoff) + " s") + ". " + hint(selection));
    }

    private static String hint(Selection selection)
    {
        try {
            return selection.chosen().adapter().fightHint().map(h -> "Hint: " + h)
                    .orElse("Hint: find the other agent rewriting this file and let it keep chained plugins.");
        }
        catch (RuntimeException e) {
            return "";
        }
    }

    /**
     * A back-off outlasts a writer that rewrites the file on its own: when it stops, the file would wait up to a minute
     * for our entry. Such a writer goes on changing the file after it undid our write (seen once, it stays that writer
     * for the fight); once it has left the file alone for {@link FightPolicy#quiet()}, it is gone (or resting), and our
     * entry goes back now. A writer that only undoes our entry (Cilium's exclusive mode) changes nothing while we wait:
     * its back-off stands, and it is not probed. When no event told of the undoing, it happened after our write.
     *
     * @return when the writer that kept rewriting the file counts as gone, if one did
     */
    private Optional<Long> writerQuietAt(Path file)
    {
        Optional<WriteLedger.Entry> ours = ledger.last(file);
        Optional<Long> last = ledger.lastChangedByAnother(file);
        if (ours.isEmpty() || last.isEmpty()) {
            return Optional.empty();
        }
        long undone = ledger.overwrittenSince(file).orElse(ours.get().nanos());
        if (last.get() - undone > fights.policy().quickRevert().toNanos()) {
            rewriters.add(file);
        }
        return rewriters.contains(file) ? Optional.of(last.get() + fights.policy().quiet().toNanos()) : Optional.empty();
    }

    /**
     * Whole seconds as before ("30"); a policy in milliseconds (tests) shows its fraction ("0.05"). Written out, not
     * with {@code BigDecimal}, whose initialization costs Java 25 about 20 ms ({@code JsonTrees.toTree(JsonValue)} says
     * why); for the same reason the agent doubles and halves durations with {@code plus} and milliseconds, not
     * {@code Duration.multipliedBy} and {@code dividedBy}.
     */
    static String seconds(Duration duration)
    {
        long millis = duration.toMillis();
        String sign = millis < 0 ? "-" : "";
        long magnitude = Math.abs(millis);
        String fraction = Long.toString(1000 + magnitude % 1000).substring(1).replaceFirst("0+$", "");
        return sign + magnitude / 1000 + (fraction.isEmpty() ? "" : "." + fraction);
    }

    /**
     * Why a file is not patched.
     *
     * @param result {@link ReconcileResult#WAITING} when it may be soon, {@link ReconcileResult#FAILED} when not
     * @param reason one line, for {@code /readyz}
     */
    record NotPatched(ReconcileResult result, String reason) {}
}
