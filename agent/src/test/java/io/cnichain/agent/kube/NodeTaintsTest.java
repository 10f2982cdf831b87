package io.cnichain.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.json.CniJson;
import io.cnichain.agent.kube.StartupTaint.NodeTaints;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The patch built from a node as read, the back-off steps and {@code Retry-After}: the remover's pure parts. */
class NodeTaintsTest
{
    @Test
    void theTaintsWithTheKeyAreFoundWhereverTheyAreAndTestedExactlyAsRead()
    {
        JsonNode node = json("{\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":\"NoSchedule\",\"timeAdded\":\"2024-05-01T10:00:00Z\"},"
                + "{\"key\":\"other\",\"effect\":\"NoSchedule\"},{\"value\":\"no key\"},{\"key\":7},{\"key\":\"k\",\"value\":\"v\",\"effect\":\"NoExecute\"}]}}");
        NodeTaints taints = NodeTaints.withKey(node, "k");
        assertThat(taints.matches()).extracting(NodeTaints.Match::index).containsExactly(0, 4);
        assertThat(taints.removal()).isEqualTo(json("[{\"op\":\"test\",\"path\":\"/spec/taints/4\",\"value\":{\"key\":\"k\",\"value\":\"v\",\"effect\":\"NoExecute\"}},"
                + "{\"op\":\"remove\",\"path\":\"/spec/taints/4\"},"
                + "{\"op\":\"test\",\"path\":\"/spec/taints/0\",\"value\":{\"key\":\"k\",\"effect\":\"NoSchedule\",\"timeAdded\":\"2024-05-01T10:00:00Z\"}},"
                + "{\"op\":\"remove\",\"path\":\"/spec/taints/0\"}]"));
        assertThat(taints.describe()).isEqualTo("k:NoSchedule, k=v:NoExecute");
    }

    @Test
    void aNodeWithoutTaintsHasNone()
    {
        assertThat(NodeTaints.withKey(json("{\"spec\":{}}"), "k").isEmpty()).isTrue();
        assertThat(NodeTaints.withKey(json("{\"metadata\":{\"name\":\"n\"}}"), "k").isEmpty()).isTrue();
        assertThat(NodeTaints.withKey(json("{\"spec\":{\"taints\":[{\"key\":\"K\"}]}}"), "k").isEmpty()).as("keys are case-sensitive").isTrue();
    }

    @Test
    void retryAfterIsSecondsOrAnHttpDate()
    {
        ZonedDateTime now = ZonedDateTime.of(2024, 5, 1, 10, 0, 0, 0, ZoneOffset.UTC);
        assertThat(ApiCallException.parseRetryAfter("3", now)).contains(Duration.ofSeconds(3));
        assertThat(ApiCallException.parseRetryAfter(" 0 ", now)).contains(Duration.ZERO);
        assertThat(ApiCallException.parseRetryAfter("Wed, 01 May 2024 10:00:07 GMT", now)).contains(Duration.ofSeconds(7));
        assertThat(ApiCallException.parseRetryAfter("Wed, 01 May 2024 09:00:00 GMT", now)).contains(Duration.ZERO);
        assertThat(ApiCallException.parseRetryAfter("soon", now)).isEmpty();
        assertThat(ApiCallException.parseRetryAfter("-1", now)).isEmpty();
    }

    private static JsonNode json(String text)
    {
        return CniJson.parse(text.getBytes(StandardCharsets.UTF_8));
    }
}
