package io.cnichain.agent.shutdown;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.agent.kube.StartupTaint;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Whether a DaemonSet's pod template places a pod on a node, as the DaemonSet controller decides it: the template's
 * {@code nodeName} and {@code nodeSelector} against the node, its required node affinity, and its tolerations (with
 * those the controller adds to every daemon pod) against the node's taints. A new pod needs every {@code NoSchedule}
 * and {@code NoExecute} taint tolerated; a running one is left running unless a {@code NoExecute} taint is not.
 */
final class NodePlacement
{
    /**
     * The tolerations the DaemonSet controller adds to every daemon pod, so that a node that is not ready, cordoned
     * for a drain or under pressure keeps its daemons: without them a node shutdown would look like an uninstall. A
     * node that is not ready or not reached has the {@code NoSchedule} taint of that condition too, which the
     * controller does not tolerate for a new pod; it goes when the node is back, so here it keeps the pod as well.
     */
    private static final List<Toleration> DAEMON_TOLERATIONS = List.of(
            Toleration.exists("node.kubernetes.io/not-ready", ""),
            Toleration.exists("node.kubernetes.io/unreachable", ""),
            Toleration.exists("node.kubernetes.io/disk-pressure", "NoSchedule"),
            Toleration.exists("node.kubernetes.io/memory-pressure", "NoSchedule"),
            Toleration.exists("node.kubernetes.io/pid-pressure", "NoSchedule"),
            Toleration.exists("node.kubernetes.io/unschedulable", "NoSchedule"));
    /** Added for pods on the host's network, as ours is. */
    private static final Toleration NETWORK_UNAVAILABLE = Toleration.exists("node.kubernetes.io/network-unavailable", "NoSchedule");

    private NodePlacement() {}

    /**
     * @param newPod whether the pod in question is a new one (ours is being deleted: would another take its place?),
     *               or ours, running on
     * @return why the DaemonSet's {@code spec.template.spec} places no pod on the node; empty when it does
     */
    static Optional<String> whyNot(JsonNode podSpec, JsonNode node, boolean newPod)
    {
        String nodeName = node.path("metadata").path("name").asText();
        String templateNode = podSpec.path("nodeName").asText("");
        if (!templateNode.isEmpty() && !templateNode.equals(nodeName)) {
            return Optional.of("its nodeName is " + templateNode + ", not " + nodeName);
        }
        JsonNode labels = node.path("metadata").path("labels");
        JsonNode selector = podSpec.path("nodeSelector");
        for (var entry : selector.properties()) {
            JsonNode label = labels.get(entry.getKey());
            if (label == null || !label.asText().equals(entry.getValue().asText())) {
                return Optional.of("its nodeSelector " + entry.getKey() + "=" + entry.getValue().asText() + " does not match node " + nodeName
                        + (label == null ? ", which has no such label" : ", which has " + entry.getKey() + "=" + label.asText()));
            }
        }
        JsonNode required = podSpec.path("affinity").path("nodeAffinity").path("requiredDuringSchedulingIgnoredDuringExecution");
        if (!required.isMissingNode() && !required.isNull() && !anyTermMatches(required.path("nodeSelectorTerms"), labels, nodeName)) {
            return Optional.of("its required node affinity matches no label or field of node " + nodeName);
        }
        List<Toleration> tolerations = new ArrayList<>(DAEMON_TOLERATIONS);
        if (podSpec.path("hostNetwork").asBoolean(false)) {
            tolerations.add(NETWORK_UNAVAILABLE);
        }
        for (JsonNode toleration : podSpec.path("tolerations")) {
            tolerations.add(Toleration.of(toleration));
        }
        for (JsonNode taint : node.path("spec").path("taints")) {
            String effect = taint.path("effect").asText();
            if (!effect.equals("NoExecute") && !(newPod && effect.equals("NoSchedule"))) {
                continue;
            }
            if (tolerations.stream().noneMatch(t -> t.tolerates(taint))) {
                return Optional.of("node " + nodeName + " has the taint " + StartupTaint.describe(taint) + ", which its tolerations do not tolerate");
            }
        }
        return Optional.empty();
    }

    /** The terms are ORed; a term's requirements are ANDed; a term with none matches nothing. */
    private static boolean anyTermMatches(JsonNode terms, JsonNode labels, String nodeName)
    {
        for (JsonNode term : terms) {
            JsonNode expressions = term.path("matchExpressions");
            JsonNode fields = term.path("matchFields");
            if (expressions.size() == 0 && fields.size() == 0) {
                continue;
            }
            boolean all = true;
            for (JsonNode requirement : expressions) {
                JsonNode label = labels.get(requirement.path("key").asText());
                all &= matches(requirement, label == null ? Optional.empty() : Optional.of(label.asText()));
            }
            for (JsonNode requirement : fields) {
                // metadata.name is the only field a node selector may name.
                Optional<String> value = requirement.path("key").asText().equals("metadata.name") ? Optional.of(nodeName) : Optional.empty();
                all &= matches(requirement, value);
            }
            if (all) {
                return true;
            }
        }
        return false;
    }

    private static boolean matches(JsonNode requirement, Optional<String> value)
    {
        List<String> values = new ArrayList<>();
        requirement.path("values").forEach(v -> values.add(v.asText()));
        return switch (requirement.path("operator").asText()) {
            case "In" -> value.isPresent() && values.contains(value.get());
            case "NotIn" -> value.isEmpty() || !values.contains(value.get());
            case "Exists" -> value.isPresent();
            case "DoesNotExist" -> value.isEmpty();
            case "Gt" -> compare(value, values) > 0;
            case "Lt" -> compare(value, values) < 0;
            default -> false;
        };
    }

    /** 0, matching neither Gt nor Lt, unless both are whole numbers. */
    private static int compare(Optional<String> value, List<String> values)
    {
        if (value.isEmpty() || values.size() != 1) {
            return 0;
        }
        try {
            return Long.compare(Long.parseLong(value.get()), Long.parseLong(values.get(0)));
        }
        catch (NumberFormatException e) {
            return 0;
        }
    }

    private record Toleration(String key, String operator, String value, String effect)
    {
        static Toleration exists(String key, String effect)
        {
            return new Toleration(key, "Exists", "", effect);
        }

        static Toleration of(JsonNode toleration)
        {
            return new Toleration(toleration.path("key").asText(""), toleration.path("operator").asText("Equal"), toleration.path("value").asText(""),
                    toleration.path("effect").asText(""));
        }

        boolean tolerates(JsonNode taint)
        {
            if (!effect.isEmpty() && !effect.equals(taint.path("effect").asText())) {
                return false;
            }
            // An empty key with Exists tolerates every taint.
            if (!key.isEmpty() && !key.equals(taint.path("key").asText())) {
                return false;
            }
            if (key.isEmpty() && !operator.equals("Exists")) {
                return false;
            }
            return switch (operator) {
                case "Exists" -> true;
                case "Equal", "" -> value.equals(taint.path("value").asText(""));
                default -> false;
            };
        }
    }
}
