package io.cnichain.agent.loop;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class FightTrackerTest
{
    static final Path FILE = Path.of("/etc/cni/net.d/05-cilium.conflist");
    static final long MS = 1_000_000;

    final FightTracker tracker = new FightTracker(FightPolicy.defaults());

    @Test
    void quickRevertsPastTheThresholdStartAnExponentialCappedBackoff()
    {
        long now = 0;
        for (int i = 1; i < 5; i++) {
            assertThat(tracker.onRevert(FILE, now, now + 50 * MS, now + 50 * MS)).as("revert %d", i).isEmpty();
            now += 60 * MS;
        }
        Optional<FightTracker.Step> first = tracker.onRevert(FILE, now, now + 50 * MS, now + 50 * MS);
        assertThat(first).map(FightTracker.Step::backoff).contains(Duration.ofSeconds(1));
        assertThat(tracker.blockedUntil(FILE, now + 100 * MS)).contains(now + 50 * MS + Duration.ofSeconds(1).toNanos());
        assertThat(tracker.fighting(FILE)).isTrue();

        Duration backoff = Duration.ofSeconds(1);
        for (int step = 0; step < 10; step++) {
            now += backoff.toNanos() + 100 * MS;
            backoff = tracker.onRevert(FILE, now, now + 50 * MS, now + 50 * MS).orElseThrow().backoff();
        }
        assertThat(backoff).as("capped").isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void aPrimaryRewritingEverySecondIsNotAFight()
    {
        long now = 0;
        for (int i = 0; i < 100; i++) {
            // Our write at `now`, their rewrite a second later: never quick.
            assertThat(tracker.onRevert(FILE, now, now + 1000 * MS, now + 1000 * MS)).isEmpty();
            now += 1000 * MS;
        }
        assertThat(tracker.fighting(FILE)).isFalse();
        assertThat(tracker.blockedUntil(FILE, now)).isEmpty();
    }

    @Test
    void quickRevertsSpreadBeyondTheWindowDoNotAddUp()
    {
        long now = 0;
        for (int i = 0; i < 20; i++) {
            assertThat(tracker.onRevert(FILE, now, now + 50 * MS, now + 50 * MS)).isEmpty();
            now += Duration.ofSeconds(8).toNanos();
        }
    }

    @Test
    void theFightEndsOnceTheFileKeptOurEntryLongEnough()
    {
        long now = 0;
        for (int i = 0; i < 5; i++) {
            tracker.onRevert(FILE, now, now + 10 * MS, now + 10 * MS);
            now += 20 * MS;
        }
        assertThat(tracker.fighting(FILE)).isTrue();
        assertThat(tracker.onStable(FILE, now, now + Duration.ofSeconds(5).toNanos())).isFalse();
        assertThat(tracker.onStable(FILE, now, now + Duration.ofSeconds(10).toNanos())).isTrue();
        assertThat(tracker.fighting(FILE)).isFalse();
    }

    @Test
    void aRevertHandledOnlyAfterTheBackoffStillCountsAsQuickAndTheNextBackoffRunsFromNow()
    {
        long now = 0;
        for (int i = 0; i < 5; i++) {
            tracker.onRevert(FILE, now, now + 10 * MS, now + 10 * MS);
            now += 20 * MS;
        }
        // Our write at `now` is undone 10 ms later, but the file is held back: we handle it when the 1 s back-off is over.
        long handled = now + Duration.ofSeconds(1).toNanos();
        Optional<FightTracker.Step> step = tracker.onRevert(FILE, now, now + 10 * MS, handled);
        assertThat(step).map(FightTracker.Step::backoff).contains(Duration.ofSeconds(2));
        assertThat(tracker.blockedUntil(FILE, handled)).contains(handled + Duration.ofSeconds(2).toNanos());
    }
}
