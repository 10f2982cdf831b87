package io.cnichain.core.taint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.json.CniJson;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A line the child process ({@link TaintRemovalMain}) writes on its standard output for the agent: a compact JSON
 * object, UTF-8, ending in {@code \n}. Zero or more progress lines ({@link Read}, {@link Changed}), then exactly one
 * {@link AttemptOutcome}; any other line (a JVM warning, say) is not part of the protocol and is ignored.
 * After a {@link Read} line the child waits for one line on its standard input: {@value #PATCH} to send the patch,
 * anything else (or the end of input) to stop without it.
 */
sealed interface ChildLine
        permits ChildLine.Read, ChildLine.Changed, AttemptOutcome
{
    /** The agent's answer to {@link Read} while it is ready. */
    String PATCH = "PATCH";
    /** The agent's answer to {@link Read} once it is not ready any more, or closing. */
    String STOP = "STOP";

    /** The line without its {@code \n}. */
    String toJson();

    /**
     * @param line one line of the child's output, without its end
     * @return what it says; empty when it is not a line of the protocol
     */
    static Optional<ChildLine> parse(String line)
    {
        if (!line.startsWith("{")) {
            return Optional.empty();
        }
        JsonNode json;
        try {
            json = CniJson.parse(line.getBytes(StandardCharsets.UTF_8));
        }
        catch (CniJson.InvalidJsonException e) {
            return Optional.empty();
        }
        String progress = json.path("progress").asText("");
        if (progress.equals("READ") && json.path("taints").isTextual()) {
            return Optional.of(new Read(json.path("taints").asText()));
        }
        if (progress.equals("CHANGED") && json.path("status").isInt() && json.path("rereadsInARow").isInt()) {
            return Optional.of(new Changed(json.path("status").asInt(), json.path("rereadsInARow").asInt()));
        }
        return AttemptOutcome.fromJson(json).map(ChildLine.class::cast);
    }

    /**
     * The node was read and has the taint: may the patch go? The agent answers at once.
     *
     * @param taints the taints it would remove, as kubectl writes them
     */
    record Read(String taints)
            implements ChildLine
    {
        public Read
        {
            requireNonNull(taints, "taints is null");
        }

        @Override
        public String toJson()
        {
            return CniJson.compact(JsonNodeFactory.instance.objectNode().put("progress", "READ").put("taints", taints));
        }
    }

    /**
     * The patch found the node changed since it was read (422 from a {@code test}, 409); the child reads it again now.
     *
     * @param status        the answer's status
     * @param rereadsInARow changed-node answers in a row so far
     */
    record Changed(int status, int rereadsInARow)
            implements ChildLine
    {
        @Override
        public String toJson()
        {
            ObjectNode json = JsonNodeFactory.instance.objectNode().put("progress", "CHANGED").put("status", status);
            return CniJson.compact(json.put("rereadsInARow", rereadsInARow));
        }
    }
}
