package io.cnichain.core.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * JSON as CNI runtimes read it (Go's {@code encoding/json}: strict, no comments, no trailing content, no
 * byte-order mark) and as we write it (two-space indentation like {@code jq}, keys in their original
 * order, numbers exactly as they were).
 * <p>
 * Trees are read and written with Jackson's streaming parser and generator and its tree nodes, not through an
 * {@code ObjectMapper}: trees need none of what building one sets up (its serializer and deserializer factories,
 * the date formats and locale data they load).
 */
public final class CniJson
{
    private static final JsonFactory FACTORY = new JsonFactory();
    private static final JsonFactory STRICT = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    // Numbers exactly as written: floats as decimals with their trailing zeros, integers as small as they fit.
    private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
    private static final DefaultPrettyPrinter PRINTER = jqStylePrinter();

    private CniJson() {}

    /**
     * Duplicate keys are accepted, the last one wins, as Go does: a file the runtime loads must not look broken to us.
     *
     * @param bytes file content
     * @return the tree
     * @throws InvalidJsonException with a one-line reason when the bytes are not what a runtime would parse
     */
    public static JsonNode parse(byte[] bytes)
    {
        if (bytes.length >= 3 && (bytes[0] & 0xff) == 0xef && (bytes[1] & 0xff) == 0xbb && (bytes[2] & 0xff) == 0xbf) {
            throw new InvalidJsonException("starts with a UTF-8 byte-order mark, which CNI runtimes reject");
        }
        if (new String(bytes, StandardCharsets.UTF_8).isBlank()) {
            throw new InvalidJsonException("is empty");
        }
        try (JsonParser parser = FACTORY.createParser(bytes)) {
            JsonNode node = read(parser, parser.nextToken());
            JsonToken trailing = parser.nextToken();
            if (trailing != null) {
                throw new InvalidJsonException("is not valid JSON: content after the value (" + trailing.asString() + ") at line "
                        + parser.currentTokenLocation().getLineNr() + ", column " + parser.currentTokenLocation().getColumnNr());
            }
            return node;
        }
        catch (JsonParseException e) {
            throw new InvalidJsonException("is not valid JSON: " + plain(e.getOriginalMessage())
                    + " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr());
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads the bytes refusing a key given twice in one object.
     *
     * @param bytes JSON
     * @throws JsonParseException at the first key given twice (its message {@code Duplicate field 'KEY'}), or at the
     *                            first error
     */
    public static void requireUniqueKeys(byte[] bytes)
            throws JsonParseException
    {
        try (JsonParser parser = STRICT.createParser(bytes)) {
            while (parser.nextToken() != null) {
                parser.skipChildren();
            }
        }
        catch (JsonParseException e) {
            throw e;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode read(JsonParser parser, JsonToken token)
            throws IOException
    {
        if (token == null) {
            throw new InvalidJsonException("is empty");
        }
        switch (token) {
            case START_OBJECT -> {
                ObjectNode object = NODES.objectNode();
                for (String name = parser.nextFieldName(); name != null; name = parser.nextFieldName()) {
                    object.set(name, read(parser, parser.nextToken()));
                }
                return object;
            }
            case START_ARRAY -> {
                ArrayNode array = NODES.arrayNode();
                for (JsonToken next = parser.nextToken(); next != JsonToken.END_ARRAY; next = parser.nextToken()) {
                    array.add(read(parser, next));
                }
                return array;
            }
            case VALUE_STRING -> {
                return NODES.textNode(parser.getText());
            }
            case VALUE_NUMBER_INT -> {
                return switch (parser.getNumberType()) {
                    case INT -> NODES.numberNode(parser.getIntValue());
                    case LONG -> NODES.numberNode(parser.getLongValue());
                    default -> NODES.numberNode(parser.getBigIntegerValue());
                };
            }
            case VALUE_NUMBER_FLOAT -> {
                return NODES.numberNode(parser.getDecimalValue());
            }
            case VALUE_TRUE -> {
                return NODES.booleanNode(true);
            }
            case VALUE_FALSE -> {
                return NODES.booleanNode(false);
            }
            case VALUE_NULL -> {
                return NODES.nullNode();
            }
            default -> throw new JsonParseException(parser, "unexpected " + token.asString());
        }
    }

    /** Jackson's first line, without its notes about where an unclosed object started. */
    private static String plain(String message)
    {
        String first = message.lines().findFirst().orElse("").trim();
        return first.replaceAll("\\s*\\(start marker at .*$", "").replaceAll("[.:]$", "");
    }

    /**
     * @param node a tree
     * @return its bytes, pretty-printed, with a final newline
     */
    public static byte[] write(JsonNode node)
    {
        return (serialize(node, true) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @param node a tree
     * @return it on one line, for logs
     */
    public static String compact(JsonNode node)
    {
        return serialize(node, false);
    }

    /** The factory of the nodes this class reads, for trees built in code ({@link JsonTrees}). */
    public static JsonNodeFactory nodes()
    {
        return NODES;
    }

    private static String serialize(JsonNode node, boolean pretty)
    {
        StringWriter out = new StringWriter();
        try (JsonGenerator generator = FACTORY.createGenerator(out)) {
            if (pretty) {
                generator.setPrettyPrinter(PRINTER.createInstance());
            }
            write(node, generator);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static void write(JsonNode node, JsonGenerator generator)
            throws IOException
    {
        switch (node.getNodeType()) {
            case OBJECT -> {
                generator.writeStartObject();
                for (Map.Entry<String, JsonNode> field : node.properties()) {
                    generator.writeFieldName(field.getKey());
                    write(field.getValue(), generator);
                }
                generator.writeEndObject();
            }
            case ARRAY -> {
                generator.writeStartArray();
                for (JsonNode element : node) {
                    write(element, generator);
                }
                generator.writeEndArray();
            }
            case STRING -> generator.writeString(node.textValue());
            case NUMBER -> {
                switch (node.numberType()) {
                    case INT -> generator.writeNumber(node.intValue());
                    case LONG -> generator.writeNumber(node.longValue());
                    case BIG_INTEGER -> generator.writeNumber(node.bigIntegerValue());
                    case FLOAT -> generator.writeNumber(node.floatValue());
                    case DOUBLE -> generator.writeNumber(node.doubleValue());
                    default -> generator.writeNumber(node.decimalValue());
                }
            }
            case BOOLEAN -> generator.writeBoolean(node.booleanValue());
            case NULL -> generator.writeNull();
            default -> throw new IllegalArgumentException("a " + node.getNodeType() + " node has no JSON form");
        }
    }

    /**
     * An {@code ObjectMapper} configured as this class reads JSON, built at first use: for tests and tools that bind
     * JSON to types. The agent's own code reads and writes trees without it.
     */
    public static ObjectMapper mapper()
    {
        return Mapper.INSTANCE;
    }

    private static final class Mapper
    {
        static final ObjectMapper INSTANCE = JsonMapper.builder()
                .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .build();
    }

    /** The bytes are not JSON a runtime would accept. */
    public static class InvalidJsonException
            extends RuntimeException
    {
        public InvalidJsonException(String reason)
        {
            super(reason, null, false, false);
        }
    }

    /** {@code "key": value}, two-space indentation, one element a line, {@code []} and {@code {}} for empty ones, as jq writes. */
    static DefaultPrettyPrinter jqStylePrinter()
    {
        Separators separators = Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                .withObjectEmptySeparator("")
                .withArrayEmptySeparator("");
        DefaultIndenter indenter = new DefaultIndenter("  ", "\n");
        return new DefaultPrettyPrinter(separators).withObjectIndenter(indenter).withArrayIndenter(indenter);
    }
}
