package io.cnichain.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * Jackson trees made from values that were not read by Jackson's parser: a document our own parser read
 * ({@link GoJsonParser}), and a value as snakeyaml or the JDK holds it. Each is the tree {@link CniJson#parse} makes of
 * the same JSON, node types included.
 */
public final class JsonTrees
{
    private static final JsonNodeFactory NODES = CniJson.nodes();

    private JsonTrees() {}

    /**
     * The tree {@link CniJson#parse} makes of a document, made from what {@link GoJsonParser} read of it: the same nodes,
     * numbers included, the last of duplicate keys winning. For JSON the agent holds itself (the built-in entry):
     * Jackson's first parser initializes {@code BigDecimal}, whose static initializer computes 5^65536 on Java 25, work
     * the agent's start-up would do in the interpreter. Our own parser needs no {@code BigDecimal}.
     *
     * @param value a document as our parser read it
     * @return its tree
     */
    public static JsonNode toTree(JsonValue value)
    {
        if (value instanceof JsonValue.JObject object) {
            ObjectNode node = NODES.objectNode();
            for (JsonValue.Member member : object.members()) {
                node.set(member.key(), toTree(member.value()));
            }
            return node;
        }
        if (value instanceof JsonValue.JArray array) {
            ArrayNode node = NODES.arrayNode();
            for (JsonValue element : array.elements()) {
                node.add(toTree(element));
            }
            return node;
        }
        if (value instanceof JsonValue.JString string) {
            return NODES.textNode(string.value());
        }
        if (value instanceof JsonValue.JNumber number) {
            return number(number.text());
        }
        if (value instanceof JsonValue.JBool bool) {
            return NODES.booleanNode(bool.value());
        }
        return NODES.nullNode();
    }

    /** As Jackson's parser types a number: an int, a long or a big integer as it fits; a fraction or exponent, a decimal. */
    private static JsonNode number(String text)
    {
        if (text.indexOf('.') >= 0 || text.indexOf('e') >= 0 || text.indexOf('E') >= 0) {
            return NODES.numberNode(new BigDecimal(text));
        }
        if (text.length() >= 19) {
            // Nineteen characters or more may not fit in a long.
            BigInteger big = new BigInteger(text);
            if (big.bitLength() >= Long.SIZE) {
                return NODES.numberNode(big);
            }
        }
        long number = Long.parseLong(text);
        return number == (int) number ? NODES.numberNode((int) number) : NODES.numberNode(number);
    }

    /**
     * A value as snakeyaml or the JDK holds it, as a tree: maps (their keys as strings), lists, strings, numbers,
     * booleans and null. A floating-point number becomes the decimal its shortest text names ({@code 0.1}, not the
     * binary fraction nearest to it).
     *
     * @throws IllegalArgumentException for any other type, naming it
     */
    public static JsonNode toTree(Object value)
    {
        if (value == null) {
            return NODES.nullNode();
        }
        if (value instanceof Map<?, ?> map) {
            ObjectNode object = NODES.objectNode();
            map.forEach((key, child) -> object.set(String.valueOf(key), toTree(child)));
            return object;
        }
        if (value instanceof List<?> list) {
            ArrayNode array = NODES.arrayNode();
            list.forEach(child -> array.add(toTree(child)));
            return array;
        }
        if (value instanceof String text) {
            return NODES.textNode(text);
        }
        if (value instanceof Boolean bool) {
            return NODES.booleanNode(bool);
        }
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return NODES.numberNode(((Number) value).intValue());
        }
        if (value instanceof Long number) {
            return NODES.numberNode(number.longValue());
        }
        if (value instanceof BigInteger number) {
            return NODES.numberNode(number);
        }
        if (value instanceof BigDecimal number) {
            return NODES.numberNode(number);
        }
        if (value instanceof Double || value instanceof Float) {
            double number = ((Number) value).doubleValue();
            if (Double.isNaN(number) || Double.isInfinite(number)) {
                throw new IllegalArgumentException(number + " has no JSON form");
            }
            return NODES.numberNode(BigDecimal.valueOf(number));
        }
        throw new IllegalArgumentException("a " + value.getClass().getSimpleName() + " has no JSON form here");
    }
}
