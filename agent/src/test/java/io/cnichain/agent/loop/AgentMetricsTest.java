package io.cnichain.agent.loop;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AgentMetricsTest
{
    @Test
    void theShutdownDecisionIsCountedByDecisionAndReason()
    {
        AgentMetrics metrics = new AgentMetrics();
        assertThat(metrics.render(true)).contains("# TYPE cnichain_shutdown_decisions_total counter\n")
                .doesNotContain("cnichain_shutdown_decisions_total{");
        metrics.shutdownDecision("keep", "still_placed");
        assertThat(metrics.render(true)).contains("cnichain_shutdown_decisions_total{decision=\"keep\",reason=\"still_placed\"} 1\n");
    }
}
