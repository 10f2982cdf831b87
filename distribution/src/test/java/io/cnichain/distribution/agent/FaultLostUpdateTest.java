package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static io.cnichain.testkit.PluginList.plugins;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A primary rewrites its file at random moments, in place or by a rename, while the agent reads, patches and writes
 * it back: our write must not bring back an older version of the primary's content. The writer checks the file again
 * right before its rename and abandons the write when it changed; the observer holds every sample to the generation
 * the primary last finished writing, and the primary checks what it reads. 10 s in {@code mvn verify}, 60 s in the
 * soak run. What the check cannot catch is a write landing between it and the rename (microseconds, longer when the
 * agent's thread is descheduled right there): rename(2) replaces whatever is there, and only renameat2's
 * RENAME_EXCHANGE, out of Java's reach, could undo it. The test counts those, with the primary's and our log lines
 * around each, and holds them to two plus a quarter of the races (without the check, every race would lose a version).
 */
@Tag("reliability")
@ExtendWith(TempNodeExtension.class)
class FaultLostUpdateTest
{
    static final int RACING_WRITES = 4;

    /**
     * Each cycle, the primary writes a fresh version (without our entry), then four read-modify-writes of its own at
     * random moments within the next 15 ms, the time the agent takes to react, read, patch and write: each lands
     * before, during or after our read-modify-write. A pause of 0.4 to 0.6 s follows, so that the agent does not take
     * the fresh versions for a fight over the file (it would back off: a quick revert is one within 250 ms of our write).
     */
    @Test
    void ourReadModifyWriteLosesAPrimarysVersionOnlyInTheMomentBetweenItsCheckAndItsRename(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", FaultKillStormTest.calico(0));
        long seed = FaultSettings.seed();
        Random random = new Random(seed);
        Duration race = FaultSettings.race();
        try (Cleanup cleanup = new Cleanup()) {
            AgentProcess agent = cleanup.add(AgentProcess.start(node, "--log-level", "debug"));
            awaitPatched(agent, file);
            Primary primary = cleanup.add(Primary.idle(file, FaultKillStormTest::calico));
            Observer observer = cleanup.add(Observer.start(node.confDir(), node.binDir().resolve("linkerd-cni"),
                    Observer.Rules.strict().primaryWritesInPlace(primary::inPlaceSequence).generations(primary::generation)));
            long cycles = 0;
            long end = System.nanoTime() + race.toNanos();
            while (System.nanoTime() < end) {
                long fresh = System.nanoTime();
                primary.writeNext(mode(random));
                long[] offsets = random.longs(RACING_WRITES, 0, 15_000_000).toArray();
                java.util.Arrays.sort(offsets);
                for (long offset : offsets) {
                    LockSupport.parkNanos(fresh + offset - System.nanoTime());
                    primary.writeNextKeepingOthers(mode(random));
                }
                cycles++;
                Files2.pause(400 + random.nextInt(200));
            }
            long last = primary.generation();
            // A fight may have started (the primary's own read-modify-write can still undo ours right after it lands):
            // the agent writes again when its back-off is over.
            Await.until(Duration.ofSeconds(10).plus(lastBackoff(agent)), () -> PluginList.patched(file) && Observer.generation(read(file)).orElse(-1) == last,
                    () -> "the primary's last version, " + last + ", was not patched: " + Files2.read(file) + "\n" + agent.log());
            Barrier.await(agent, node);
            observer.close();

            long ours = agent.writes("/etc/cni/net.d/10-calico.conflist");
            // Caught by the check before the rename, or (Java 25) by what the exchange displaced, swapped back.
            long abandoned = agent.count("changed while we patched it; not written") + agent.count("the other writer's version was put back");
            long halfRead = agent.count("Waiting for /etc/cni/net.d/10-calico.conflist: ") - abandoned;
            java.util.Set<Long> lost = new java.util.TreeSet<>(observer.lostGenerations());
            // The primary may see one the observer's samples missed.
            lost.addAll(primary.lostGenerationsFound());
            FaultSettings.report("lost updates", race.toSeconds() + " s, " + cycles + " cycles (seed " + seed + "): " + primary.writes()
                    + " primary writes (" + primary.inPlaceWrites() + " in place), " + ours + " writes of ours, " + abandoned
                    + " of ours abandoned because the file changed before our rename, " + halfRead + " reads of a half-written file left alone, "
                    + agent.count("Backing off") + " back-offs; " + observer.samples() + " samples; primary versions lost: " + lost.size()
                    + " of " + (abandoned + lost.size()) + " races (seen by the observer: " + observer.lostGenerations().size()
                    + ", by the primary reading its file: " + primary.lostGenerationsFound().size() + ")");
            lost.forEach(generation -> FaultSettings.report("lost updates", "generation " + generation + " lost; written at "
                    + primary.writtenAt(generation).orElse("?") + "; our log around then:\n"
                    + around(agent.log(), primary.writtenAt(generation).map(at -> java.time.Instant.parse(at.substring(0, at.indexOf(' ')))))));
            // The check before the rename catches a change that comes before it; one in the moment between the check and
            // the rename cannot be caught (rename(2) replaces whatever is there; only renameat2's RENAME_EXCHANGE, out of
            // Java's reach, could undo it). A race is a primary write inside our read-modify-write: without the check,
            // every race would lose a version; with it, only those in that last moment (a few in a hundred, measured).
            long races = abandoned + lost.size();
            assertThat(abandoned).as("races the check caught").isPositive();
            // A lost version is the one thing the race may cause: never a file that does not load, our entry twice, or
            // a configuration naming a missing binary.
            assertThat(observer.violationsOtherThanLostGenerations()).as("samples breaking another rule, seed " + seed + ": " + observer.violations())
                    .isZero();
            assertThat((long) lost.size()).as("versions lost, of " + races + " races, seed " + seed + "; " + observer.violations())
                    .isLessThanOrEqualTo(2 + races / 4);
            assertThat(plugins(file)).containsExactly("calico", "portmap", "linkerd-cni");
        }
    }

    private static Duration lastBackoff(AgentProcess agent)
    {
        return agent.log().lines().filter(line -> line.contains("Backing off: ")).reduce((first, second) -> second)
                .map(line -> line.substring(line.indexOf("Next write in ") + "Next write in ".length()))
                .map(rest -> Duration.ofSeconds(Long.parseLong(rest.substring(0, rest.indexOf(' ')))))
                .orElse(Duration.ZERO);
    }

    /** The agent's log lines within 500 ms of a moment (its line comes after the directory's fsync, which can take that long). */
    private static String around(String log, java.util.Optional<java.time.Instant> moment)
    {
        if (moment.isEmpty()) {
            return "";
        }
        StringBuilder lines = new StringBuilder();
        for (String line : log.lines().toList()) {
            if (line.startsWith("[") && line.indexOf(']') > 0) {
                try {
                    java.time.Instant at = java.time.Instant.parse(line.substring(1, line.indexOf(']')));
                    if (Math.abs(java.time.Duration.between(moment.get(), at).toMillis()) <= 500) {
                        lines.append("    ").append(line).append('\n');
                    }
                }
                catch (java.time.format.DateTimeParseException notATime) {
                    // a continuation line
                }
            }
        }
        return lines.toString();
    }

    private static Primary.Mode mode(Random random)
    {
        return random.nextBoolean() ? Primary.Mode.RENAME : Primary.Mode.IN_PLACE;
    }

    private static byte[] read(Path file)
    {
        try {
            return Files.readAllBytes(file);
        }
        catch (java.io.IOException e) {
            return new byte[0];
        }
    }
}
