package io.cnichain.agent.shutdown;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.json.CniJson;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class NodePlacementTest
{
    private static final String NODE = "{\"metadata\":{\"name\":\"node-1\",\"labels\":{\"kubernetes.io/os\":\"linux\",\"pool\":\"blue\",\"cores\":\"8\"}},"
            + "\"spec\":{\"taints\":%s}}";

    @Test
    void nodeSelectorMatchesLabelsExactly()
    {
        assertThat(whyNot("{\"nodeSelector\":{\"kubernetes.io/os\":\"linux\"}}", "[]")).isNull();
        assertThat(whyNot("{\"nodeSelector\":{\"kubernetes.io/os\":\"linux\",\"pool\":\"blue\"}}", "[]")).isNull();
        assertThat(whyNot("{\"nodeSelector\":{\"pool\":\"green\"}}", "[]"))
                .isEqualTo("its nodeSelector pool=green does not match node node-1, which has pool=blue");
        assertThat(whyNot("{\"nodeSelector\":{\"gpu\":\"yes\"}}", "[]")).isEqualTo("its nodeSelector gpu=yes does not match node node-1, which has no such label");
    }

    @Test
    void requiredAffinityEveryOperator()
    {
        assertThat(whyNot(affinity("{\"key\":\"pool\",\"operator\":\"In\",\"values\":[\"red\",\"blue\"]}"), "[]")).isNull();
        assertThat(whyNot(affinity("{\"key\":\"pool\",\"operator\":\"In\",\"values\":[\"red\"]}"), "[]")).contains("required node affinity");
        assertThat(whyNot(affinity("{\"key\":\"pool\",\"operator\":\"NotIn\",\"values\":[\"red\"]}"), "[]")).isNull();
        assertThat(whyNot(affinity("{\"key\":\"pool\",\"operator\":\"NotIn\",\"values\":[\"blue\"]}"), "[]")).isNotNull();
        assertThat(whyNot(affinity("{\"key\":\"absent\",\"operator\":\"NotIn\",\"values\":[\"blue\"]}"), "[]")).as("NotIn holds for no label").isNull();
        assertThat(whyNot(affinity("{\"key\":\"pool\",\"operator\":\"Exists\"}"), "[]")).isNull();
        assertThat(whyNot(affinity("{\"key\":\"absent\",\"operator\":\"Exists\"}"), "[]")).isNotNull();
        assertThat(whyNot(affinity("{\"key\":\"absent\",\"operator\":\"DoesNotExist\"}"), "[]")).isNull();
        assertThat(whyNot(affinity("{\"key\":\"pool\",\"operator\":\"DoesNotExist\"}"), "[]")).isNotNull();
        assertThat(whyNot(affinity("{\"key\":\"cores\",\"operator\":\"Gt\",\"values\":[\"4\"]}"), "[]")).isNull();
        assertThat(whyNot(affinity("{\"key\":\"cores\",\"operator\":\"Gt\",\"values\":[\"8\"]}"), "[]")).isNotNull();
        assertThat(whyNot(affinity("{\"key\":\"cores\",\"operator\":\"Lt\",\"values\":[\"16\"]}"), "[]")).isNull();
        assertThat(whyNot(affinity("{\"key\":\"cores\",\"operator\":\"Lt\",\"values\":[\"8\"]}"), "[]")).isNotNull();
        assertThat(whyNot(affinity("{\"key\":\"pool\",\"operator\":\"Gt\",\"values\":[\"1\"]}"), "[]")).as("not a number").isNotNull();
    }

    @Test
    void termsAreOredRequirementsAndedFieldsNameTheNode()
    {
        String twoTerms = "{\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":["
                + "{\"matchExpressions\":[{\"key\":\"pool\",\"operator\":\"In\",\"values\":[\"red\"]}]},"
                + "{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"node-1\"]}]}]}}}}";
        assertThat(whyNot(twoTerms, "[]")).isNull();
        String anded = "{\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":["
                + "{\"matchExpressions\":[{\"key\":\"pool\",\"operator\":\"In\",\"values\":[\"blue\"]}],"
                + "\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"NotIn\",\"values\":[\"node-1\"]}]}]}}}}";
        assertThat(whyNot(anded, "[]")).isNotNull();
        String empty = "{\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[{}]}}}}";
        assertThat(whyNot(empty, "[]")).as("an empty term matches nothing").isNotNull();
        String preferredOnly = "{\"affinity\":{\"nodeAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":1,"
                + "\"preference\":{\"matchExpressions\":[{\"key\":\"pool\",\"operator\":\"In\",\"values\":[\"red\"]}]}}]}}}";
        assertThat(whyNot(preferredOnly, "[]")).as("a preference places nothing").isNull();
    }

    @Test
    void tolerationsAgainstNoScheduleAndNoExecuteTaints()
    {
        String taint = "[{\"key\":\"dedicated\",\"value\":\"db\",\"effect\":\"NoSchedule\"}]";
        assertThat(whyNot("{}", taint)).isEqualTo("node node-1 has the taint dedicated=db:NoSchedule, which its tolerations do not tolerate");
        assertThat(whyNot("{\"tolerations\":[{\"key\":\"dedicated\",\"operator\":\"Equal\",\"value\":\"db\"}]}", taint)).isNull();
        assertThat(whyNot("{\"tolerations\":[{\"key\":\"dedicated\",\"value\":\"db\",\"effect\":\"NoSchedule\"}]}", taint)).as("Equal by default").isNull();
        assertThat(whyNot("{\"tolerations\":[{\"key\":\"dedicated\",\"value\":\"web\"}]}", taint)).isNotNull();
        assertThat(whyNot("{\"tolerations\":[{\"key\":\"dedicated\",\"operator\":\"Exists\"}]}", taint)).isNull();
        assertThat(whyNot("{\"tolerations\":[{\"key\":\"dedicated\",\"operator\":\"Exists\",\"effect\":\"NoExecute\"}]}", taint)).isNotNull();
        assertThat(whyNot("{\"tolerations\":[{\"operator\":\"Exists\"}]}", taint)).as("tolerates everything").isNull();
        assertThat(whyNot("{\"tolerations\":[{\"operator\":\"Equal\"}]}", "[{\"key\":\"x\",\"effect\":\"NoSchedule\"}]"))
                .as("no key, and not Exists: tolerates nothing").isNotNull();
        assertThat(whyNot("{\"tolerations\":[{\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}]}",
                "[{\"key\":\"x\",\"effect\":\"NoExecute\"}]")).isNotNull();
        assertThat(whyNot("{}", "[{\"key\":\"x\",\"effect\":\"PreferNoSchedule\"}]")).as("a preference keeps no pod away").isNull();
    }

    @Test
    void theTaintsOfADrainedOrFailingNodeKeepTheDaemon()
    {
        // The DaemonSet controller adds these tolerations to every daemon pod: a cordon, a node going not-ready at
        // shutdown, pressure. Without them a reboot would look like an uninstall.
        for (String taint : new String[] {"node.kubernetes.io/unschedulable:NoSchedule", "node.kubernetes.io/not-ready:NoExecute",
                "node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/disk-pressure:NoSchedule",
                "node.kubernetes.io/memory-pressure:NoSchedule", "node.kubernetes.io/pid-pressure:NoSchedule"}) {
            String[] parts = taint.split(":");
            assertThat(whyNot("{}", "[{\"key\":\"" + parts[0] + "\",\"effect\":\"" + parts[1] + "\"}]")).as(taint).isNull();
        }
        // A node shutting down goes not-ready first: the node lifecycle controller adds the NoSchedule taint beside the
        // NoExecute one, which the template's own tolerations need not tolerate; the node is back without them.
        for (String condition : new String[] {"not-ready", "unreachable"}) {
            String both = "[{\"key\":\"node.kubernetes.io/" + condition + "\",\"effect\":\"NoSchedule\"},{\"key\":\"node.kubernetes.io/" + condition
                    + "\",\"effect\":\"NoExecute\"}]";
            assertThat(whyNot("{\"tolerations\":[{\"key\":\"dedicated\",\"operator\":\"Equal\",\"value\":\"mesh\",\"effect\":\"NoSchedule\"}]}", both))
                    .as(condition).isNull();
        }
        String networkUnavailable = "[{\"key\":\"node.kubernetes.io/network-unavailable\",\"effect\":\"NoSchedule\"}]";
        assertThat(whyNot("{\"hostNetwork\":true}", networkUnavailable)).isNull();
        assertThat(whyNot("{}", networkUnavailable)).as("only for pods on the host's network").isNotNull();
        assertThat(whyNot("{}", "[{\"key\":\"node.kubernetes.io/out-of-service\",\"value\":\"nodeshutdown\",\"effect\":\"NoExecute\"}]"))
                .as("a node taken out of service").isNotNull();
    }

    /**
     * The DaemonSet controller's {@code shouldContinueRunning}: a pod already on the node runs on unless a
     * {@code NoExecute} taint is not tolerated; a {@code NoSchedule} one only keeps a new pod away.
     */
    @Test
    void aRunningPodEndsOnlyForANoExecuteTaintNotTolerated()
    {
        String maintenance = "[{\"key\":\"maintenance\",\"value\":\"true\",\"effect\":\"NoSchedule\"}]";
        String narrowed = "{\"tolerations\":[{\"key\":\"dedicated\",\"operator\":\"Equal\",\"value\":\"mesh\",\"effect\":\"NoSchedule\"}]}";
        assertThat(whyNotRunning(narrowed, maintenance)).isNull();
        assertThat(whyNot(narrowed, maintenance)).isEqualTo("node node-1 has the taint maintenance=true:NoSchedule, which its tolerations do not tolerate");
        assertThat(whyNotRunning(narrowed, "[{\"key\":\"mesh\",\"value\":\"off\",\"effect\":\"NoExecute\"}]"))
                .isEqualTo("node node-1 has the taint mesh=off:NoExecute, which its tolerations do not tolerate");
        assertThat(whyNotRunning("{\"nodeSelector\":{\"pool\":\"green\"}}", "[]")).as("the controller deletes it").isNotNull();
    }

    @Test
    void aTemplatesNodeNamePlacesItsPodOnThatNodeAlone()
    {
        assertThat(whyNot("{\"nodeName\":\"node-1\"}", "[]")).isNull();
        assertThat(whyNot("{\"nodeName\":\"node-2\"}", "[]")).isEqualTo("its nodeName is node-2, not node-1");
        assertThat(whyNotRunning("{\"nodeName\":\"node-2\"}", "[]")).isNotNull();
    }

    private static String affinity(String expression)
    {
        return "{\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[{\"matchExpressions\":["
                + expression + "]}]}}}}";
    }

    /** For a new pod: ours is being deleted. */
    private static String whyNot(String podSpec, String taints)
    {
        return NodePlacement.whyNot(json(podSpec), json(String.format(NODE, taints)), true).orElse(null);
    }

    private static String whyNotRunning(String podSpec, String taints)
    {
        return NodePlacement.whyNot(json(podSpec), json(String.format(NODE, taints)), false).orElse(null);
    }

    private static JsonNode json(String text)
    {
        return CniJson.parse(text.getBytes(StandardCharsets.UTF_8));
    }
}
