package io.cnichain.agent.loop;

import io.cnichain.agent.loop.AgentPolicy.FightPolicy;
import io.cnichain.agent.time.Backoff;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AgentPolicyTest
{
    @Test
    void theDefaultsAreTheDocumentedOnes()
    {
        AgentPolicy policy = AgentPolicy.defaults();
        assertThat(waits(policy.notParsed(), 10)).containsExactly(25L, 50L, 100L, 200L, 400L, 800L, 1600L, 3200L);
        assertThat(waits(policy.refusedWrite(), 10)).containsExactly(250L, 500L, 1000L, 2000L, 4000L, 8000L, 16000L, 30000L, 30000L, 30000L);
        assertThat(policy.fights()).isEqualTo(new FightPolicy(Duration.ofMillis(250), 5, Duration.ofSeconds(30),
                new Backoff.Policy(Duration.ofSeconds(1), Duration.ofSeconds(60), 0, 0, Duration.ofSeconds(10)), Duration.ofSeconds(1)));
        assertThat(waits(policy.fights().backoff(), 8)).containsExactly(1000L, 2000L, 4000L, 8000L, 16000L, 32000L, 60000L, 60000L);
        assertThat(policy.stuckAfter()).isEqualTo(Duration.ofSeconds(30));
    }

    /** @return the waits in milliseconds of a back-off failing again and again, until it gives up or {@code most} */
    private static List<Long> waits(Backoff.Policy policy, int most)
    {
        Backoff backoff = new Backoff(policy, new SplittableRandom(1));
        List<Long> waits = new ArrayList<>();
        for (Optional<Duration> wait = backoff.failed(0); wait.isPresent() && waits.size() < most; wait = backoff.failed(0)) {
            waits.add(wait.get().toMillis());
        }
        return waits;
    }

    @Test
    void nonsenseIsRefusedWithTheNameOfTheSetting()
    {
        AgentPolicy defaults = AgentPolicy.defaults();
        assertThatThrownBy(() -> new AgentPolicy(defaults.notParsed(), defaults.notParsed(), FightPolicy.defaults(), Duration.ofSeconds(1)))
                .hasMessageContaining("a refused write is always tried again");
        assertThatThrownBy(() -> new AgentPolicy(defaults.notParsed(), defaults.refusedWrite(), FightPolicy.defaults(), Duration.ofSeconds(-1)))
                .hasMessageContaining("stuckAfter must be positive");
        assertThatThrownBy(() -> new FightPolicy(Duration.ofMillis(250), 0, Duration.ofSeconds(30), FightPolicy.defaults().backoff(), Duration.ofSeconds(1)))
                .hasMessageContaining("threshold must be at least 1");
        assertThatThrownBy(() -> new FightPolicy(Duration.ofMillis(250), 5, Duration.ofSeconds(30), defaults.refusedWrite(), Duration.ofSeconds(1)))
                .hasMessageContaining("the back-off's resetAfter must be positive");
    }

    @Test
    void labelsOnMetricsAreTheLowerCaseNames()
    {
        assertThat(List.of(ReconcilePass.Result.values())).extracting(AgentMetrics::label).containsExactly("ok", "echo", "nothing", "waiting", "failed");
        assertThat(List.of(EventKind.values())).extracting(AgentMetrics::label).containsExactly("create", "modify", "delete", "overflow");
    }

    @Test
    void durationsInLogLinesReadAsBeforeAndShowFractionsOfShortPolicies()
    {
        assertThat(WrittenFiles.seconds(Duration.ofSeconds(30))).isEqualTo("30");
        assertThat(WrittenFiles.seconds(Duration.ofSeconds(1))).isEqualTo("1");
        assertThat(WrittenFiles.seconds(Duration.ofMillis(50))).isEqualTo("0.05");
        assertThat(WrittenFiles.seconds(Duration.ofMillis(1500))).isEqualTo("1.5");
    }

    @Test
    void durationsInLogLinesAreWhatBigDecimalPrintedBeforeTheyWereWrittenOut()
    {
        for (long millis = -3_001; millis <= 125_000; millis += 7) {
            assertThat(WrittenFiles.seconds(Duration.ofMillis(millis)))
                    .as("%d ms", millis)
                    .isEqualTo(java.math.BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString());
        }
    }
}
