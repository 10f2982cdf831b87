package io.cnichain.core.json;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * CniJson reads and writes trees with Jackson's streaming parser and generator; an {@code ObjectMapper} configured as
 * it was before ({@link CniJson#mapper()}) is the oracle: same trees, node types included, and the same text.
 */
class CniJsonTest
{
    private static final ObjectMapper ORACLE = CniJson.mapper();
    private static final String PLUGIN_ENTRY_DEFAULT = io.cnichain.core.config.PluginEntry.LINKERD_DEFAULT;

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

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"cniVersion\": \"1.0.0\", \"name\": \"k8s-pod-network\", \"plugins\": [{\"type\": \"calico\", \"mtu\": 1440}]}",
            "{\"a\": 1.50, \"b\": 1e3, \"c\": -0.0, \"d\": 12345678901234, \"e\": 123456789012345678901234567890, \"f\": 1E-7}",
            "[0, -0, 2147483647, 2147483648, -2147483648, -2147483649, 9223372036854775807, 9223372036854775808, -9223372036854775808, -9223372036854775809, 1000000000000000000]",
            "{\"nested\": {\"list\": [[], {}, [1, [2, [3]]], null, true, false]}, \"empty\": \"\"}",
            "{\"unicode\": \"caf\\u00e9 \\ud83d\\ude00 \\\"quoted\\\" back\\\\slash \\t tab\", \"\\u00e9t\\u00e9\": \"key\"}",
            "{\"dup\": 1, \"other\": 2, \"dup\": 3}",
            "[1, 2.0, \"three\"]",
            "null",
            "  {\"spaces\" :\n\t[ 1 ,2 ]  }  \n",
            PLUGIN_ENTRY_DEFAULT,
    })
    void treeOfWhatOurParserReadIsTheTreeJacksonReads(String json)
    {
        JsonNode ours = CniJson.toTree(GoJsonParser.parse(json));
        JsonNode jackson = CniJson.parse(json.getBytes(StandardCharsets.UTF_8));
        assertThat(ours).isEqualTo(jackson);
        assertSameTypes(ours, jackson);
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

    @Test
    void turnsYamlValuesIntoTheTreeTheMapperMade()
    {
        Map<String, Object> yaml = new LinkedHashMap<>();
        yaml.put("text", "value");
        yaml.put("int", 4143);
        yaml.put("long", 12345678901234L);
        yaml.put("big", new BigInteger("123456789012345678901234567890"));
        yaml.put("double", 0.1);
        yaml.put("flag", true);
        yaml.put("nothing", null);
        yaml.put("list", Arrays.asList("4191", 4190, null));
        yaml.put("map", Map.of("inner", List.of()));
        JsonNode ours = CniJson.toTree(yaml);
        JsonNode oracle = ORACLE.valueToTree(yaml);
        assertThat(ours).isEqualTo(oracle);
        assertSameTypes(ours, oracle);
        assertThat(ours.get("double").decimalValue()).isEqualTo(new BigDecimal("0.1"));
    }

    @Test
    void refusesValuesWithoutAJsonForm()
    {
        assertThatThrownBy(() -> CniJson.toTree(Map.of("when", new Date(0))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a Date has no JSON form here");
        assertThatThrownBy(() -> CniJson.toTree(Double.NaN)).hasMessage("NaN has no JSON form");
    }

    @Test
    void quotesEveryCharacterAsTheGeneratorDoes()
            throws Exception
    {
        // The oracle is Jackson's own generator (through the ObjectMapper), one string per UTF-16 unit, lone surrogates
        // included, then all of them in one string.
        StringBuilder all = new StringBuilder();
        for (int c = 0; c <= 0xffff; c++) {
            String one = String.valueOf((char) c);
            assertThat(CniJson.quote(one)).as("U+%04X", c).isEqualTo(ORACLE.writeValueAsString(one));
            all.append((char) c);
        }
        assertThat(CniJson.quote(all.toString())).isEqualTo(ORACLE.writeValueAsString(all.toString()));
        assertThat(CniJson.quote("")).isEqualTo("\"\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "2147483647", "-2147483648", "12345678901234", "-9223372036854775808", "123456789012345678901234567890",
            "1.50", "1e3", "-0.0", "1E-7", "true", "false", "null", "\"tab\\there \\u0001 \\\"q\\\" caf\u00e9\""})
    void appendsScalarsAsTheGeneratorDoes(String json)
    {
        JsonNode node = CniJson.parse(json.getBytes(StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder("x");
        CniJson.appendScalar(node, out);
        assertThat(out.toString()).isEqualTo("x" + CniJson.compact(node));
    }

    private static void assertSameTypes(JsonNode ours, JsonNode oracle)
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
