package io.cnichain.core.json;

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

import static io.cnichain.core.json.CniJsonTest.assertSameTypes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** JsonTrees makes the trees Jackson makes of the same JSON: {@link CniJson#parse}, or the mapper, is the oracle. */
class JsonTreesTest
{
    private static final ObjectMapper ORACLE = CniJson.mapper();
    private static final String PLUGIN_ENTRY_DEFAULT = io.cnichain.core.config.PluginEntry.LINKERD_DEFAULT;

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
        JsonNode ours = JsonTrees.toTree(GoJsonParser.parse(json));
        JsonNode jackson = CniJson.parse(json.getBytes(StandardCharsets.UTF_8));
        assertThat(ours).isEqualTo(jackson);
        assertSameTypes(ours, jackson);
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
        JsonNode ours = JsonTrees.toTree(yaml);
        JsonNode oracle = ORACLE.valueToTree(yaml);
        assertThat(ours).isEqualTo(oracle);
        assertSameTypes(ours, oracle);
        assertThat(ours.get("double").decimalValue()).isEqualTo(new BigDecimal("0.1"));
    }

    @Test
    void refusesValuesWithoutAJsonForm()
    {
        assertThatThrownBy(() -> JsonTrees.toTree(Map.of("when", new Date(0))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a Date has no JSON form here");
        assertThatThrownBy(() -> JsonTrees.toTree(Double.NaN)).hasMessage("NaN has no JSON form");
    }
}
