package io.cnichain.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.json.JsonValue.JObject;
import io.cnichain.core.json.JsonValue.Member;

import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * How a file is written, read off the file itself, so that what we add looks like the rest of it and what we remove
 * leaves it as it was: one line or indented (and by what), the separators, the line ending, a final newline. jq,
 * Go's {@code json.MarshalIndent} and Python's {@code json.dump} all fit: they differ only in these.
 *
 * @param indent        one level of indentation, when the file is indented (two spaces, four, a tab...)
 * @param keySeparator  between a key and its value: {@code ":"}, {@code ": "}...
 * @param itemSeparator between the items of a one-line container: {@code ","} or {@code ", "}
 * @param newline       {@code "\n"} or {@code "\r\n"}
 * @param finalNewline  whether the file ends with a newline
 */
public record JsonStyle(Optional<String> indent, String keySeparator, String itemSeparator, String newline, boolean finalNewline)
{
    /** jq's style, for files that have none of their own. */
    public static final JsonStyle JQ = new JsonStyle(Optional.of("  "), ": ", ",", "\n", true);

    public JsonStyle
    {
        requireNonNull(indent, "indent is null");
        requireNonNull(keySeparator, "keySeparator is null");
        requireNonNull(itemSeparator, "itemSeparator is null");
        requireNonNull(newline, "newline is null");
    }

    /**
     * @param text the document's text
     * @param root its top-level object
     * @return the style it is written in (jq's where the document does not say)
     */
    public static JsonStyle of(String text, JObject root)
    {
        String newline = text.contains("\r\n") ? "\r\n" : "\n";
        boolean finalNewline = text.substring(root.end()).contains("\n");
        if (root.members().isEmpty()) {
            return new JsonStyle(JQ.indent(), JQ.keySeparator(), JQ.itemSeparator(), newline, finalNewline);
        }
        Member first = root.members().get(0);
        String before = text.substring(root.start() + 1, first.keyStart());
        Optional<String> indent = before.contains("\n") ? Optional.of(before.substring(before.lastIndexOf('\n') + 1)) : Optional.empty();
        int keyEnd = GoStrings.endOfString(text, first.keyStart());
        String keySeparator = text.substring(keyEnd, first.value().start());
        String itemSeparator = ",";
        if (root.members().size() > 1) {
            String between = text.substring(first.value().end(), root.members().get(1).keyStart());
            itemSeparator = between.contains("\n") ? "," : between;
        }
        return new JsonStyle(indent, keySeparator, itemSeparator, newline, finalNewline);
    }

    /** Whether containers span several lines. */
    public boolean indented()
    {
        return indent.isPresent();
    }

    /**
     * @param node       a value (our plugin entry)
     * @param baseIndent the indentation of the line the value starts on, for an indented style
     * @return the value's text in this style
     */
    public String render(JsonNode node, String baseIndent)
    {
        StringBuilder out = new StringBuilder();
        write(node, baseIndent, out);
        return out.toString();
    }

    /**
     * @param node a value
     * @return it on one line with this style's separators
     */
    public String renderInline(JsonNode node)
    {
        return new JsonStyle(Optional.empty(), keySeparator, itemSeparator, newline, finalNewline).render(node, "");
    }

    private void write(JsonNode node, String base, StringBuilder out)
    {
        if (node.isObject()) {
            if (node.isEmpty()) {
                out.append("{}");
                return;
            }
            out.append('{');
            Iterator<Map.Entry<String, JsonNode>> fields = node.properties().iterator();
            boolean firstField = true;
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                separate(firstField, base, out);
                firstField = false;
                JsonScalars.appendQuoted(field.getKey(), out);
                out.append(keySeparator);
                write(field.getValue(), base + indent.orElse(""), out);
            }
            close(base, out);
            out.append('}');
        }
        else if (node.isArray()) {
            if (node.isEmpty()) {
                out.append("[]");
                return;
            }
            out.append('[');
            boolean firstElement = true;
            for (JsonNode element : node) {
                separate(firstElement, base, out);
                firstElement = false;
                write(element, base + indent.orElse(""), out);
            }
            close(base, out);
            out.append(']');
        }
        else {
            JsonScalars.appendScalar(node, out);
        }
    }

    private void separate(boolean first, String base, StringBuilder out)
    {
        if (indent.isPresent()) {
            out.append(first ? "" : ",").append(newline).append(base).append(indent.get());
        }
        else if (!first) {
            out.append(itemSeparator);
        }
    }

    private void close(String base, StringBuilder out)
    {
        if (indent.isPresent()) {
            out.append(newline).append(base);
        }
    }
}
