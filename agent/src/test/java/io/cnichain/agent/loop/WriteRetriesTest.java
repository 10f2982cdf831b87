package io.cnichain.agent.loop;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Refused writes: a back-off that never gives up while they fail, and no timer at all once they succeed. */
@Tag("reliability")
class WriteRetriesTest
{
    static final Path FILE = Path.of("/etc/cni/net.d/10-calico.conflist");
    static final long MS = 1_000_000;

    final RetrySchedule schedule = RetrySchedule.repeatingLast(List.of(Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(30)));
    final Timers timers = new Timers();
    final WriteRetries retries = new WriteRetries(schedule, timers);

    @Test
    void theLastDelayRepeatsForAsLongAsTheWriteFailsAndAPassBeforeItIsDueUsesUpNothing()
    {
        assertThat(schedule.onWaiting(FILE, 0)).isEqualTo(new RetrySchedule.Retry(Duration.ofMillis(250), 1, 3, 250 * MS));
        assertThat(schedule.onWaiting(FILE, 100 * MS)).isEqualTo(new RetrySchedule.Pending(250 * MS));
        assertThat(schedule.onWaiting(FILE, 250 * MS)).isEqualTo(new RetrySchedule.Retry(Duration.ofMillis(500), 2, 3, 750 * MS));
        assertThat(schedule.onWaiting(FILE, 750 * MS)).isEqualTo(new RetrySchedule.Retry(Duration.ofSeconds(30), 3, 3, 30_750 * MS));
        assertThat(schedule.onWaiting(FILE, 30_750 * MS)).isEqualTo(new RetrySchedule.Retry(Duration.ofSeconds(30), 4, 3, 60_750 * MS));
        assertThat(schedule.onWaiting(FILE, 60_750 * MS)).isEqualTo(new RetrySchedule.Retry(Duration.ofSeconds(30), 5, 3, 90_750 * MS));
    }

    @Test
    void theAgentsDefaultsAreTheDocumentedOnes()
    {
        assertThat(AgentPolicy.defaults().writeRetryDelays()).extracting(Duration::toMillis)
                .containsExactly(250L, 500L, 1000L, 2000L, 4000L, 8000L, 16000L, 30000L);
        assertThat(new AgentPolicy(List.of(), FightPolicy.defaults(), Duration.ofSeconds(1)).writeRetryDelays()).isEqualTo(AgentPolicy.DEFAULT_WRITE_RETRY_DELAYS);
        assertThatThrownBy(() -> new AgentPolicy(List.of(), FightPolicy.defaults(), Duration.ofSeconds(1), List.of()))
                .hasMessageContaining("writeRetryDelays must not be empty");
        assertThatThrownBy(() -> new AgentPolicy(List.of(), FightPolicy.defaults(), Duration.ofSeconds(1), List.of(Duration.ZERO)))
                .hasMessageContaining("a write retry delay must be positive");
    }

    @Test
    void aFailureSchedulesOneTimerAndASuccessLeavesNone()
    {
        retries.failed(FILE, 0);
        assertThat(timers.nextDueNanos()).hasValue(250 * MS);
        // Another pass before the try is due (an event elsewhere) fails again: still the one timer, same time.
        retries.failed(FILE, 10 * MS);
        assertThat(timers.takeDue(250 * MS)).extracting(Timers.Timer::kind).containsExactly(Timers.Kind.FAILED_WRITE);
        retries.failed(FILE, 250 * MS);
        assertThat(timers.takeDue(Long.MAX_VALUE)).extracting(Timers.Timer::dueNanos).containsExactly(750 * MS);

        // The try at 750 ms succeeds: nothing is scheduled any more, and the next failure starts from the first delay.
        retries.succeeded(FILE);
        assertThat(timers.nextDueNanos()).isEmpty();
        retries.failed(FILE, 5_000 * MS);
        assertThat(timers.nextDueNanos()).hasValue(5_250 * MS);
    }
}
