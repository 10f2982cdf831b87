package io.cnichain.core.json;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * JSON as CNI runtimes read it (Go's {@code encoding/json}: strict, no comments, no trailing content, no
 * byte-order mark) and as we write it (two-space indentation like {@code jq}, keys in their original
 * order, numbers exactly as they were).
 */
public final class CniJson
{
    // Duplicate keys are accepted, last one wins, as Go does: a file the runtime loads must not look broken to us.
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    private static final DefaultPrettyPrinter PRINTER = jqStylePrinter();

    private CniJson() {}

    /**
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
        try {
            JsonNode node = MAPPER.readTree(bytes);
            if (node == null || node.isMissingNode()) {
                throw new InvalidJsonException("is empty");
            }
            return node;
        }
        catch (JsonParseException e) {
            throw new InvalidJsonException("is not valid JSON: " + plain(e.getOriginalMessage())
                    + " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr());
        }
        catch (JsonProcessingException e) {
            throw new InvalidJsonException("is not valid JSON: " + plain(e.getOriginalMessage()));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
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
        try {
            return (MAPPER.writer(PRINTER).writeValueAsString(node) + "\n").getBytes(StandardCharsets.UTF_8);
        }
        catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serializes", e);
        }
    }

    /**
     * @param node a tree
     * @return it on one line, for logs
     */
    public static String compact(JsonNode node)
    {
        try {
            return MAPPER.writeValueAsString(node);
        }
        catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serializes", e);
        }
    }

    public static ObjectMapper mapper()
    {
        return MAPPER;
    }

    /** The bytes are not JSON a runtime would accept. */
    public static final class InvalidJsonException
            extends RuntimeException
    {
        public InvalidJsonException(String reason)
        {
            super(reason, null, false, false);
        }
    }

    /** {@code "key": value}, two-space indentation, one element a line, {@code []} and {@code {}} for empty ones, as jq writes. */
    private static DefaultPrettyPrinter jqStylePrinter()
    {
        Separators separators = Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                .withObjectEmptySeparator("")
                .withArrayEmptySeparator("");
        DefaultIndenter indenter = new DefaultIndenter("  ", "\n");
        return new DefaultPrettyPrinter(separators).withObjectIndenter(indenter).withArrayIndenter(indenter);
    }
}
