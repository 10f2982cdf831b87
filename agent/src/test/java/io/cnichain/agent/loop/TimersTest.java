package io.cnichain.agent.loop;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class TimersTest
{
    static final Path FILE = Path.of("/etc/cni/net.d/05-cilium.conflist");

    final Timers timers = new Timers();

    @Test
    void dueTimersComeOutInOrderAndTheRestStays()
    {
        timers.schedule(30, Timers.Kind.BACKOFF_OVER, Optional.empty());
        timers.schedule(50, Timers.Kind.STABILITY_CHECK, Optional.of(FILE));
        assertThat(timers.nextDueNanos()).hasValue(30);
        assertThat(timers.takeDue(10)).isEmpty();
        assertThat(timers.takeDue(60)).extracting(Timers.Timer::kind).containsExactly(Timers.Kind.BACKOFF_OVER, Timers.Kind.STABILITY_CHECK);
        assertThat(timers.nextDueNanos()).isEmpty();
    }

    @Test
    void aLaterPassIsDroppedWhenOneIsDueEarlierButAStabilityCheckStays()
    {
        timers.schedule(20, Timers.Kind.RETRY, Optional.empty());
        timers.schedule(1000, Timers.Kind.BACKOFF_OVER, Optional.empty());
        timers.schedule(20, Timers.Kind.RETRY, Optional.empty());
        timers.schedule(1000, Timers.Kind.STABILITY_CHECK, Optional.of(FILE));
        timers.schedule(10, Timers.Kind.RETRY, Optional.empty());
        assertThat(timers.takeDue(Long.MAX_VALUE)).extracting(Timers.Timer::dueNanos).containsExactly(10L, 20L, 1000L);
    }
}
