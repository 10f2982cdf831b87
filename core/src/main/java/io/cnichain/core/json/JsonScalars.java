package io.cnichain.core.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Strings, numbers, booleans and null written as {@link CniJson#compact} writes them, without a Jackson generator: our
 * entry is rendered into a file on every pass, a key and a value at a time, and a generator made for each is far more
 * work than the text it writes.
 */
public final class JsonScalars
{
    /** Upper case, as Jackson writes the hex digits of an escape. */
    private static final String HEX = "0123456789ABCDEF";

    private JsonScalars() {}

    /** @return a string value as JSON writes it: quoted and escaped */
    public static String quote(String value)
    {
        StringBuilder out = new StringBuilder(value.length() + 2);
        appendQuoted(value, out);
        return out.toString();
    }

    /**
     * Appends a string value as {@link CniJson#compact} writes it, quoted and escaped as Jackson's generator escapes by default:
     * a quote and a backslash by a backslash, the control characters below U+0020 by their short escape ({@code \b},
     * {@code \t}, {@code \n}, {@code \f}, {@code \r}) or a six-character escape of four upper-case hex digits, everything else as it is.
     *
     * @param value a string
     * @param out   where it goes
     */
    public static void appendQuoted(String value, StringBuilder out)
    {
        out.append('"');
        int plain = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            out.append(value, plain, i).append('\\');
            switch (c) {
                case '"', '\\' -> out.append(c);
                case '\b' -> out.append('b');
                case '\t' -> out.append('t');
                case '\n' -> out.append('n');
                case '\f' -> out.append('f');
                case '\r' -> out.append('r');
                default -> out.append("u00").append(HEX.charAt(c >> 4)).append(HEX.charAt(c & 0xf));
            }
            plain = i + 1;
        }
        out.append(value, plain, value.length()).append('"');
    }

    /**
     * Appends a value that is not an object or an array as {@link CniJson#compact} writes it: strings, integers, booleans
     * and null by hand ({@link #appendQuoted}), any other number through the generator.
     *
     * @param node a scalar
     * @param out  where it goes
     */
    public static void appendScalar(JsonNode node, StringBuilder out)
    {
        switch (node.getNodeType()) {
            case STRING -> appendQuoted(node.textValue(), out);
            case BOOLEAN -> out.append(node.booleanValue());
            case NULL -> out.append("null");
            case NUMBER -> {
                JsonParser.NumberType type = node.numberType();
                if (type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG) {
                    out.append(node.longValue());
                }
                else {
                    out.append(CniJson.compact(node));
                }
            }
            default -> out.append(CniJson.compact(node));
        }
    }
}
