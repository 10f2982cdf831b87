package io.cnichain.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * The taints with one key on a node as read, and the JSON patch that removes exactly those: for each, a {@code test}
 * of the taint at its position, then its {@code remove}. The API server applies the whole patch to the node as it
 * is at that moment, or none of it: if another controller changed the taints in between, a test fails (422) and
 * nothing of theirs is lost.
 *
 * @param matches the taints with the key, by position in {@code spec.taints}, in ascending order
 */
record NodeTaints(List<Match> matches)
{
    NodeTaints
    {
        matches = List.copyOf(matches);
    }

    /**
     * @param node the node, as {@code GET /api/v1/nodes/NAME} returns it
     * @param key  the taint's key
     * @return the taints with that key
     */
    static NodeTaints withKey(JsonNode node, String key)
    {
        List<Match> matches = new ArrayList<>();
        JsonNode taints = node.path("spec").path("taints");
        for (int i = 0; i < taints.size(); i++) {
            JsonNode taint = taints.get(i);
            if (taint.path("key").isTextual() && taint.path("key").asText().equals(key)) {
                matches.add(new Match(i, taint));
            }
        }
        return new NodeTaints(matches);
    }

    boolean isEmpty()
    {
        return matches.isEmpty();
    }

    /** The JSON patch, last position first so that every earlier position still holds when its turn comes. */
    ArrayNode removal()
    {
        ArrayNode operations = JsonNodeFactory.instance.arrayNode();
        for (int i = matches.size() - 1; i >= 0; i--) {
            Match match = matches.get(i);
            String path = "/spec/taints/" + match.index();
            ObjectNode test = operations.addObject().put("op", "test").put("path", path);
            test.set("value", match.taint().deepCopy());
            operations.addObject().put("op", "remove").put("path", path);
        }
        return operations;
    }

    /** The taints as kubectl writes them: {@code key=value:Effect}, comma-separated. */
    String describe()
    {
        return matches.stream().map(match -> describe(match.taint())).collect(Collectors.joining(", "));
    }

    private static String describe(JsonNode taint)
    {
        String value = taint.path("value").asText("");
        return taint.path("key").asText() + (value.isEmpty() ? "" : "=" + value) + ":" + taint.path("effect").asText("");
    }

    /**
     * @param index its position in {@code spec.taints}
     * @param taint the taint object exactly as read
     */
    record Match(int index, JsonNode taint)
    {
        Match
        {
            requireNonNull(taint, "taint is null");
        }
    }
}
