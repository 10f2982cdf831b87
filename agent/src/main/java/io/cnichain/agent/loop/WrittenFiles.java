package io.cnichain.agent.loop;

import io.cnichain.agent.time.Backoff;
import io.cnichain.agent.time.Clock;
import io.cnichain.core.CniChainException;
import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.engine.FileOutcome;
import io.cnichain.core.engine.Installer;
import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.core.fs.linux.FileSystemCalls;
import io.cnichain.core.fs.linux.FileSystemCalls.Identity;
import io.cnichain.core.host.HostPaths;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The files the agent writes, one {@link WrittenFile} each, by host path. The binaries and the kubeconfig have one too,
 * under the bin dir, for the retry of a refused write.
 */
final class WrittenFiles
{
    private static final Logger log = LoggerFactory.getLogger(WrittenFiles.class);

    private final Installer installer;
    private final HostPaths host;
    private final Path binDir;
    private final BoundedFileReader reader;
    private final AgentPolicy policy;
    private final AgentMetrics metrics;
    private final Clock clock;
    private final Map<Path, WrittenFile> files = new HashMap<>();

    WrittenFiles(Engine engine, AgentPolicy policy, AgentMetrics metrics, Clock clock)
    {
        this.installer = engine.installer();
        this.host = engine.host();
        this.binDir = engine.config().paths().binDir();
        this.reader = new BoundedFileReader(engine.config().paths().maxConfigBytes());
        this.policy = policy;
        this.metrics = metrics;
        this.clock = clock;
    }

    private WrittenFile of(Path file)
    {
        return files.computeIfAbsent(file, f -> new WrittenFile(policy.fights()));
    }

    boolean wrote(Path file)
    {
        return files.containsKey(file) && files.get(file).written();
    }

    /** A conversion deletes the file it converts: the deletion's event is our own. */
    boolean deleted(Path file)
    {
        return wrote(file) && files.get(file).isOurs(Optional.empty());
    }

    /** Read through the snapshot, so that a real change is decided from these same bytes. We write no links. */
    boolean isEcho(ConfigEntry entry, NodeSnapshot snapshot)
    {
        if (entry.isSymlink() || entry.resolvedFile().isEmpty() || !wrote(entry.resolvedFile().get())) {
            return false;
        }
        Optional<byte[]> content = snapshot.contentOf(entry);
        return content.isPresent() && files.get(entry.resolvedFile().get()).isOurs(content);
    }

    void changed(Path file, long now)
    {
        WrittenFile known = files.get(file);
        if (known != null) {
            known.retryAfresh(false);
            look(file, known, now, true);
        }
    }

    /** Once our write is undone, a change during a back-off is told by the file's identity, so that an event and a look tell it once. */
    private void look(Path file, WrittenFile known, long now, boolean told)
    {
        boolean backingOff = known.backingOff(now);
        if (known.undone() ? !backingOff : told || !holdsOurWrite(file, known)) {
            known.changedByAnother(now);
        }
        if (backingOff && known.looked(identity(file), now)) {
            known.changedByAnother(now);
        }
    }

    /** @return the outcome; one the agent is not ready for has the reason for {@code /readyz} as its detail */
    FileOutcome patch(ConfigTarget target, Selection selection, NodeSnapshot snapshot, OptionalLong firstEventNanos)
    {
        // The file we write for this target: our drop-in when the placement puts one there, else the target itself. A
        // fight is over what we write: someone deleting our drop-in as soon as it appears is backed off from too.
        Path file = installer.dropInFile(target, snapshot).orElse(target.resolvedFile());
        WrittenFile known = of(file);
        long now = clock.nanoTime();
        WrittenFile.Write may = known.mayWrite(now);
        switch (may) {
            case NOT_YET -> {
                return new FileOutcome(target.path(), FileOutcome.Result.WAITING, fightReason(file, known, selection), List.of());
            }
            case EARLY -> log.info("{} has been left alone for {} s; writing our entry again before the back-off ends", file, seconds(known.quiet()));
            case NOW -> { }
        }
        FileOutcome outcome = installer.patch(target, selection, snapshot, known.written() ? Optional.of("another writer removed it") : Optional.empty());
        long written = clock.nanoTime();
        // A conversion can fail after its new file is written (the original cannot be deleted): that file's echo is ours.
        for (FileOutcome.Written write : outcome.written()) {
            boolean ours = write.hostPath().equals(file);
            wrote(write.hostPath(), Optional.of(write), ours, ours && may == WrittenFile.Write.EARLY, written, selection);
        }
        if (outcome.result() == FileOutcome.Result.CONVERTED) {
            // A primary that puts its file back at once undoes the conversion: the runtime loads that file again.
            wrote(file, Optional.empty(), true, may == WrittenFile.Write.EARLY, written, selection);
        }
        switch (outcome.result()) {
            case PATCHED, CONVERTED -> {
                known.retryAfresh(true);
                metrics.patchWritten();
                firstEventNanos.ifPresent(first -> metrics.reaction(written - first));
            }
            case UNCHANGED, REMOVED -> {
                known.retryAfresh(true);
                known.keptOurEntry();
                // In the other writer's own bytes too: the file carries our entry, which is all a fight is about. Else
                // the fight's end, due since our write, would ask for this pass again and again.
                if (known.keptLongEnough(now)) {
                    fightOver(file, known);
                }
            }
            case WAITING -> {
                retry(known, file.toString(), false, policy.notParsed(), now, outcome.detail());
                return new FileOutcome(target.path(), FileOutcome.Result.WAITING, "waiting for " + file + ": " + outcome.detail(), outcome.written());
            }
            default -> {
                if (outcome.retryable()) {
                    retry(known, file.toString(), true, policy.refusedWrite(), now, outcome.detail());
                }
                return outcome;
            }
        }
        return known.fighting() ? new FileOutcome(target.path(), FileOutcome.Result.WAITING, fightReason(file, known, selection), outcome.written()) : outcome;
    }

    private void wrote(Path file, Optional<FileOutcome.Written> write, boolean target, boolean early, long now, Selection selection)
    {
        WrittenFile to = of(file);
        boolean fought = to.fighting();
        to.wrote(write, target, early, now).ifPresent(backoff -> {
            metrics.fight();
            log.warn("Backing off: {} was undone {} times within {} s, each time less than {} ms after our write; another writer is fighting "
                    + "over it. Next write in {} s. {}", file, to.quickReverts(), seconds(policy.fights().window()),
                    policy.fights().quickRevert().toMillis(), seconds(backoff), hint(selection));
        });
        if (fought && !to.fighting()) {
            log.info("{} was undone {} times in a row, each time more than {} ms after our write: no fight; back to normal speed", file,
                    policy.fights().threshold(), policy.fights().quickRevert().toMillis());
        }
    }

    /**
     * The binaries and the kubeconfig, while their write keeps failing: the next try counts from this one, not from the
     * start of its wake-up, which can come before the retry it takes was due.
     */
    void prerequisites(boolean owed)
    {
        if (owed) {
            retry(of(binDir), "our binaries and kubeconfig", true, policy.refusedWrite(), clock.nanoTime(), "");
        }
        else if (files.containsKey(binDir)) {
            files.get(binDir).retryAfresh(true);
        }
    }

    private static void retry(WrittenFile known, String what, boolean refused, Backoff.Policy schedule, long now, String detail)
    {
        known.notPatched(refused, schedule, now).ifPresent(retry -> {
            if (retry.next().isEmpty()) {
                log.warn("{} still cannot be patched after {} retries ({}); left alone until it changes", what, schedule.tries(), detail);
            }
            else if (refused) {
                log.debug("Trying {} again in {} ms (try {} after a refused write)", what, retry.next().get().toMillis(), retry.number());
            }
            else {
                log.debug("Retrying {} in {} ms (retry {} of {})", what, retry.next().get().toMillis(), retry.number(), schedule.tries());
            }
        });
    }

    OptionalLong nextDue(long now)
    {
        OptionalLong next = OptionalLong.empty();
        for (WrittenFile known : files.values()) {
            OptionalLong due = known.due(now);
            next = due.isPresent() ? WrittenFile.earlier(next, due.getAsLong()) : next;
        }
        return next;
    }

    /** @return whether a pass is wanted */
    boolean wake(long now)
    {
        boolean pass = false;
        for (Map.Entry<Path, WrittenFile> entry : files.entrySet()) {
            Path file = entry.getKey();
            WrittenFile known = entry.getValue();
            if (!known.isDue(now)) {
                continue;
            }
            known.retryTaken(now);
            if (known.keptLongEnough(now) && holdsOurWrite(file, known)) {
                fightOver(file, known);
            }
            else if (known.keptLongEnough(now)) {
                known.changedByAnother(now);
            }
            else if (known.backingOff(now)) {
                look(file, known, now, false);
                pass |= known.mayWrite(now) == WrittenFile.Write.EARLY;
                continue;
            }
            pass = true;
        }
        return pass;
    }

    private void fightOver(Path file, WrittenFile known)
    {
        known.fightOver();
        log.info("{} has kept our entry for {} s; the fight is over, back to normal speed", file, seconds(policy.fights().backoff().resetAfter()));
    }

    private boolean holdsOurWrite(Path file, WrittenFile known)
    {
        try {
            Path inContainer = host.toContainer(file);
            return known.isOurs(Files.exists(inContainer, LinkOption.NOFOLLOW_LINKS) ? Optional.of(reader.read(inContainer, file)) : Optional.empty());
        }
        catch (CniChainException e) {
            return false;
        }
    }

    private Optional<Identity> identity(Path file)
    {
        try {
            return FileSystemCalls.get().identityOf(host.toContainer(file));
        }
        catch (IOException e) {
            return Optional.empty();
        }
    }

    private static String fightReason(Path file, WrittenFile known, Selection selection)
    {
        return "another writer keeps undoing our entry in " + file + "; backing off " + seconds(known.backoff()) + " s. " + hint(selection);
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

    /** "30", or "0.05": written out, as {@code BigDecimal} stays off the agent's path ({@code StartPathTest}). */
    static String seconds(Duration duration)
    {
        long millis = Math.abs(duration.toMillis());
        String fraction = Long.toString(1000 + millis % 1000).substring(1).replaceFirst("0+$", "");
        return (duration.toMillis() < 0 ? "-" : "") + millis / 1000 + (fraction.isEmpty() ? "" : "." + fraction);
    }
}
