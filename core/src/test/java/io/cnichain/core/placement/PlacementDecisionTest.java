package io.cnichain.core.placement;

import io.cnichain.core.config.Placement;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code placement: auto} from the Node's {@code containerRuntimeVersion}: drop-in from containerd 2.1.0 and CRI-O
 * 1.33.0 (the first releases that load the conf dir with libcni 1.3's {@code ConfListFromFile}), patch for anything
 * older, anything else, and anything that does not read as {@code <runtime>://<version>}.
 */
class PlacementDecisionTest
{
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "containerd://2.1.0, DROP_IN",
            "containerd://2.1.4, DROP_IN",
            "containerd://v2.2.0, DROP_IN",
            "containerd://3.0.0, DROP_IN",
            "containerd://2.1.3-k3s1, DROP_IN",
            "containerd://2.0.5, PATCH",
            "containerd://1.7.27, PATCH",
            "containerd://1.6.20~ds1, PATCH",
            "containerd://2.1.0-rc.1, PATCH",
            "containerd://2.1.0-beta.0, PATCH",
            "cri-o://1.33.0, DROP_IN",
            "cri-o://1.34.2, DROP_IN",
            "cri-o://1.32.9, PATCH",
            "docker://28.1.1, PATCH",
            "containerd, PATCH",
            "'', PATCH",
    })
    void autoDecidesFromTheReportedRuntime(String reported, Placement expected)
    {
        PlacementDecision decision = PlacementDecision.forRuntime(reported);

        assertThat(decision.placement()).as(decision.why()).isEqualTo(expected);
        assertThat(decision.auto()).isTrue();
        assertThat(decision.why()).startsWith("auto: the Node reports containerRuntimeVersion ");
    }

    @Test
    void theReasonNamesTheVersionAndTheThreshold()
    {
        assertThat(PlacementDecision.forRuntime("containerd://1.6.20").why())
                .isEqualTo("auto: the Node reports containerRuntimeVersion containerd://1.6.20, which ignores drop-ins (containerd applies them from "
                        + "2.1.0); patching");
        assertThat(PlacementDecision.forRuntime("containerd://2.1.0").why())
                .isEqualTo("auto: the Node reports containerRuntimeVersion containerd://2.1.0, which applies drop-ins (libcni 1.3, from containerd 2.1.0)");
        assertThat(PlacementDecision.runtimeUnknown("NODE_NAME is not set").why()).isEqualTo("auto: the node's runtime is unknown (NODE_NAME is not set); patching");
    }

    @Test
    void patchAndDropInNeedNoLook()
    {
        assertThat(PlacementDecision.configured(Placement.PATCH).orElseThrow().placement()).isEqualTo(Placement.PATCH);
        assertThat(PlacementDecision.configured(Placement.DROP_IN).orElseThrow().auto()).isFalse();
        assertThat(PlacementDecision.configured(Placement.AUTO)).isEmpty();
    }

    @Test
    void dropInOnARuntimeKnownToIgnoreItSaysSoAndOnAnUnknownOneIsTaken()
    {
        assertThat(PlacementDecision.dropInOn("containerd://2.0.5").wontRun()).contains("the Node reports containerRuntimeVersion containerd://2.0.5, "
                + "which ignores drop-ins, so a drop-in would never run; nothing is placed (set placement: patch or auto)");
        assertThat(PlacementDecision.dropInOn("cri-o://1.33.0").wontRun()).isEmpty();
        assertThat(PlacementDecision.dropInOn("docker://28.1.1").wontRun()).as("not a runtime we know either way: the operator's choice").isEmpty();
    }
}
