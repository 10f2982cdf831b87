package io.cnichain.agent.time;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class BackoffTest
{
    private static final long SECOND = 1_000_000_000L;

    @Test
    void doublesUpToItsCapAndGivesUpAfterItsTries()
    {
        Backoff backoff = new Backoff(new Backoff.Policy(Duration.ofMillis(100), Duration.ofMillis(350), 0, 4, Duration.ZERO), new SplittableRandom(1));
        List<Optional<Duration>> waits = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            waits.add(backoff.failed(0));
        }
        assertThat(waits).containsExactly(Optional.of(Duration.ofMillis(100)), Optional.of(Duration.ofMillis(200)), Optional.of(Duration.ofMillis(350)),
                Optional.of(Duration.ofMillis(350)), Optional.empty(), Optional.empty());
        assertThat(backoff.gaveUp()).isTrue();
        backoff.reset();
        assertThat(backoff.failed(0)).contains(Duration.ofMillis(100));
    }

    @Test
    void aSuccessResetsItOnlyOnceItHasLasted()
    {
        Backoff backoff = new Backoff(withoutJitter(Backoff.Policy.apiServer()), new SplittableRandom(1));
        backoff.failed(0);
        backoff.failed(0);
        backoff.succeeded(SECOND);
        assertThat(backoff.failed(SECOND + 60 * SECOND)).as("a success of a minute: not long enough").contains(Duration.ofMillis(3200));
        backoff.succeeded(100 * SECOND);
        assertThat(backoff.failed(100 * SECOND + 120 * SECOND)).as("two minutes of success").contains(Duration.ofMillis(800));
    }

    @Test
    void jitterStretchesEachWaitWithinItsBoundAndSpreadsAFleet()
    {
        SplittableRandom random = new SplittableRandom(42);
        long shortest = Long.MAX_VALUE;
        long longest = 0;
        for (int agent = 0; agent < 1000; agent++) {
            long wait = new Backoff(Backoff.Policy.apiServer(), random.split()).failed(0).orElseThrow().toMillis();
            shortest = Math.min(shortest, wait);
            longest = Math.max(longest, wait);
        }
        assertThat(shortest).isBetween(800L, 850L);
        assertThat(longest).isBetween(1150L, 1200L);
    }

    private static Backoff.Policy withoutJitter(Backoff.Policy policy)
    {
        return new Backoff.Policy(policy.first(), policy.cap(), 0, policy.tries(), policy.resetAfter());
    }
}
