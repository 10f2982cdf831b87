package io.cnichain.agent.loop;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RetryScheduleTest
{
    static final Path FILE = Path.of("/etc/cni/net.d/10-calico.conflist");
    static final long MS = 1_000_000;

    final RetrySchedule schedule = new RetrySchedule(List.of(Duration.ofMillis(20), Duration.ofMillis(50), Duration.ofMillis(100)));

    @Test
    void eachDelayOnceInOrderThenGiveUpOnceThenLeftAlone()
    {
        assertThat(schedule.onWaiting(FILE, 0)).isEqualTo(new RetrySchedule.Retry(Duration.ofMillis(20), 1, 3, 20 * MS));
        assertThat(schedule.onWaiting(FILE, 20 * MS)).isEqualTo(new RetrySchedule.Retry(Duration.ofMillis(50), 2, 3, 70 * MS));
        assertThat(schedule.onWaiting(FILE, 70 * MS)).isEqualTo(new RetrySchedule.Retry(Duration.ofMillis(100), 3, 3, 170 * MS));
        assertThat(schedule.onWaiting(FILE, 170 * MS)).isEqualTo(new RetrySchedule.GiveUp(3));
        assertThat(schedule.onWaiting(FILE, 200 * MS)).isEqualTo(new RetrySchedule.LeftAlone());
        assertThat(schedule.onWaiting(FILE, 99_000 * MS)).isEqualTo(new RetrySchedule.LeftAlone());
    }

    @Test
    void aPassBeforeTheRetryIsDueUsesUpNothing()
    {
        schedule.onWaiting(FILE, 0);
        // Our kubeconfig's echo brings a pass 5 ms later: the retry stays due at 20 ms.
        assertThat(schedule.onWaiting(FILE, 5 * MS)).isEqualTo(new RetrySchedule.Pending(20 * MS));
        assertThat(schedule.onWaiting(FILE, 19 * MS)).isEqualTo(new RetrySchedule.Pending(20 * MS));
        assertThat(schedule.onWaiting(FILE, 25 * MS)).isEqualTo(new RetrySchedule.Retry(Duration.ofMillis(50), 2, 3, 75 * MS));
        assertThat(schedule.onWaiting(FILE, 30 * MS)).isEqualTo(new RetrySchedule.Pending(75 * MS));
    }

    @Test
    void aChangeStartsTheScheduleAgain()
    {
        for (long now = 0; !(schedule.onWaiting(FILE, now) instanceof RetrySchedule.GiveUp); now += 200 * MS) {
            assertThat(now).isLessThan(1000 * MS);
        }
        schedule.reset(FILE);
        assertThat(schedule.onWaiting(FILE, 5000 * MS)).isEqualTo(new RetrySchedule.Retry(Duration.ofMillis(20), 1, 3, 5020 * MS));
        assertThat(schedule.onWaiting(Path.of("/etc/cni/net.d/other.conflist"), 5000 * MS)).as("files are independent")
                .isInstanceOf(RetrySchedule.Retry.class);
    }

    @Test
    void noDelaysMeansGiveUpAtOnce()
    {
        RetrySchedule none = new RetrySchedule(List.of());
        assertThat(none.onWaiting(FILE, 0)).isEqualTo(new RetrySchedule.GiveUp(0));
        assertThat(none.onWaiting(FILE, 1)).isEqualTo(new RetrySchedule.LeftAlone());
    }
}
