package io.cnichain.agent.loop;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AgentPolicyTest
{
    @Test
    void theDefaultsAreTheDocumentedOnes()
    {
        AgentPolicy policy = AgentPolicy.defaults();
        assertThat(policy.retryDelays()).extracting(Duration::toMillis).containsExactly(20L, 50L, 100L, 200L, 400L, 800L, 1600L, 3200L);
        assertThat(policy.fights()).isEqualTo(new FightPolicy(Duration.ofMillis(250), 5, Duration.ofSeconds(30), Duration.ofSeconds(1),
                Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofSeconds(1)));
        assertThat(policy.stuckAfter()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void nonsenseIsRefusedWithTheNameOfTheSetting()
    {
        assertThatThrownBy(() -> new AgentPolicy(List.of(Duration.ZERO), FightPolicy.defaults(), Duration.ofSeconds(1)))
                .hasMessageContaining("a retry delay must be positive");
        assertThatThrownBy(() -> new AgentPolicy(List.of(), FightPolicy.defaults(), Duration.ofSeconds(-1)))
                .hasMessageContaining("stuckAfter must be positive");
        assertThatThrownBy(() -> new FightPolicy(Duration.ofMillis(250), 0, Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofSeconds(60), Duration.ofSeconds(10),
                Duration.ofSeconds(1))).hasMessageContaining("threshold must be at least 1");
        assertThatThrownBy(() -> new FightPolicy(Duration.ofMillis(250), 5, Duration.ofSeconds(30), Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(10),
                Duration.ofSeconds(1))).hasMessageContaining("maxBackoff PT1S is shorter than initialBackoff PT2S");
    }

    @Test
    void labelsOnMetricsAreTheLowerCaseNames()
    {
        assertThat(List.of(ReconcileResult.values())).extracting(ReconcileResult::metricLabel).containsExactly("ok", "echo", "nothing", "waiting", "failed");
        assertThat(List.of(EventKind.values())).extracting(EventKind::metricLabel).containsExactly("create", "modify", "delete", "overflow");
    }

    @Test
    void durationsInLogLinesReadAsBeforeAndShowFractionsOfShortPolicies()
    {
        assertThat(TargetPatcher.seconds(Duration.ofSeconds(30))).isEqualTo("30");
        assertThat(TargetPatcher.seconds(Duration.ofSeconds(1))).isEqualTo("1");
        assertThat(TargetPatcher.seconds(Duration.ofMillis(50))).isEqualTo("0.05");
        assertThat(TargetPatcher.seconds(Duration.ofMillis(1500))).isEqualTo("1.5");
    }

    @Test
    void durationsInLogLinesAreWhatBigDecimalPrintedBeforeTheyWereWrittenOut()
    {
        for (long millis = -3_001; millis <= 125_000; millis += 7) {
            assertThat(TargetPatcher.seconds(Duration.ofMillis(millis)))
                    .as("%d ms", millis)
                    .isEqualTo(java.math.BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString());
        }
    }
}
