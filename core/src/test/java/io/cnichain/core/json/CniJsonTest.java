package io.cnichain.core.json;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * CniJson reads and writes trees with Jackson's streaming parser and generator; an {@code ObjectMapper} configured to
 * read as CniJson does ({@link CniJson#mapper()}) is the oracle: same trees, node types included, and the same text.
 */
class CniJsonTest
{
    private static final ObjectMapper ORACLE = CniJson.mapper();

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"cniVersion\": \"1.0.0\", \"name\": \"k8s-pod-network\", \"plugins\": [{\"type\": \"calico\", \"mtu\": 1440}]}",
            "{\"a\": 1.50, \"b\": 1e3, \"c\": -0.0, \"d\": 12345678901234, \"e\": 123456789012345678901234567890, \"f\": 1E-7}",
            "{\"nested\": {\"list\": [[], {}, [1, [2, [3]]], null, true, false]}, \"empty\": \"\"}",
            "{\"unicode\": \"caf\\u00e9 \\ud83d\\ude00 \\\"quoted\\\" back\\\\slash \\t tab\", \"\\u00e9t\\u00e9\": \"key\"}",
            "{\"dup\": 1, \"other\": 2, \"dup\": 3}",
            "[1, 2.0, \"three\"]",
            "\"just a string\"",
            "null",
            "  {\"spaces\" :\n\t[ 1 ,2 ]  }  \n",
    })
    void readsTheTreeTheMapperReadsAndWritesTheSameText(String json)
            throws Exception
    {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        JsonNode ours = CniJson.parse(bytes);
        JsonNode oracle = ORACLE.readTree(bytes);
        assertThat(ours).isEqualTo(oracle);
        assertSameTypes(ours, oracle);
        assertThat(CniJson.compact(ours)).isEqualTo(ORACLE.writeValueAsString(oracle));
        assertThat(new String(CniJson.write(ours), StandardCharsets.UTF_8))
                .isEqualTo(ORACLE.writer(CniJson.jqStylePrinter()).writeValueAsString(oracle) + "\n");
    }

    @Test
    void keepsNumbersAsWrittenAndTheLastOfTwoKeys()
    {
        JsonNode node = CniJson.parse("{\"mtu\": 1450.10, \"n\": 7, \"n\": 8}".getBytes(StandardCharsets.UTF_8));
        assertThat(CniJson.compact(node)).isEqualTo("{\"mtu\":1450.10,\"n\":8}");
    }

    @Test
    void writesAsJqDoes()
    {
        JsonNode node = CniJson.parse("{\"a\":[],\"b\":{},\"c\":[1,{\"d\":null}]}".getBytes(StandardCharsets.UTF_8));
        assertThat(new String(CniJson.write(node), StandardCharsets.UTF_8)).isEqualTo("""
                {
                  "a": [],
                  "b": {},
                  "c": [
                    1,
                    {
                      "d": null
                    }
                  ]
                }
                """);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   \n", "{\"a\": 1} {\"b\": 2}", "{\"a\": 1}}", "{\"a\": }", "{\"a\": 1,}", "[1 2]", "{'a': 1}",
            "{\"a\": NaN}", "// comment\n{}", "\ufeff{}"})
    void refusesWhatARuntimeRefuses(String json)
    {
        assertThatThrownBy(() -> CniJson.parse(json.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(CniJson.InvalidJsonException.class)
                .hasMessageMatching("is empty|starts with a UTF-8 byte-order mark.*|is not valid JSON: .*");
    }

    @Test
    void saysWhereTheContentAfterTheValueStarts()
    {
        assertThatThrownBy(() -> CniJson.parse("{\"a\": 1}\n {\"b\": 2}".getBytes(StandardCharsets.UTF_8)))
                .hasMessage("is not valid JSON: content after the value ({) at line 2, column 2");
    }

    @Test
    void requireUniqueKeysNamesTheKeyGivenTwiceAtAnyDepth()
            throws Exception
    {
        CniJson.requireUniqueKeys("{\"a\": {\"b\": 1, \"c\": 2}, \"b\": 3}".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> CniJson.requireUniqueKeys("{\"a\": {\"b\": 1, \"b\": 2}}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(JsonParseException.class)
                .hasMessageStartingWith("Duplicate field 'b'");
    }

    static void assertSameTypes(JsonNode ours, JsonNode oracle)
    {
        assertThat(ours.getClass()).as(ours.toString()).isEqualTo(oracle.getClass());
        if (ours.isContainerNode()) {
            for (int i = 0; i < ours.size(); i++) {
                if (ours.isArray()) {
                    assertSameTypes(ours.get(i), oracle.get(i));
                }
            }
            ours.properties().forEach(field -> assertSameTypes(field.getValue(), oracle.get(field.getKey())));
        }
    }
}
