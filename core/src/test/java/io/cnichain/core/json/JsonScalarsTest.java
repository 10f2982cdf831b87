package io.cnichain.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** JsonScalars writes what Jackson's generator writes (through the mapper, the oracle), without one. */
class JsonScalarsTest
{
    private static final ObjectMapper ORACLE = CniJson.mapper();

    @Test
    void quotesEveryCharacterAsTheGeneratorDoes()
            throws Exception
    {
        // The oracle is Jackson's own generator (through the ObjectMapper), one string per UTF-16 unit, lone surrogates
        // included, then all of them in one string.
        StringBuilder all = new StringBuilder();
        for (int c = 0; c <= 0xffff; c++) {
            String one = String.valueOf((char) c);
            assertThat(JsonScalars.quote(one)).as("U+%04X", c).isEqualTo(ORACLE.writeValueAsString(one));
            all.append((char) c);
        }
        assertThat(JsonScalars.quote(all.toString())).isEqualTo(ORACLE.writeValueAsString(all.toString()));
        assertThat(JsonScalars.quote("")).isEqualTo("\"\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "2147483647", "-2147483648", "12345678901234", "-9223372036854775808", "123456789012345678901234567890",
            "1.50", "1e3", "-0.0", "1E-7", "true", "false", "null", "\"tab\\there \\u0001 \\\"q\\\" caf\u00e9\""})
    void appendsScalarsAsTheGeneratorDoes(String json)
    {
        JsonNode node = CniJson.parse(json.getBytes(StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder("x");
        JsonScalars.appendScalar(node, out);
        assertThat(out.toString()).isEqualTo("x" + CniJson.compact(node));
    }
}
