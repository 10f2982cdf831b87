package io.cnichain.distribution.runtime;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.List;

/**
 * CNI configurations at the edges where libcni's rules bite, as JSON text (so that key order, duplicates, odd
 * whitespace and trailing content survive): list fields of every JSON type, {@code cniVersions}, {@code disableCheck}
 * and its siblings as booleans, strings and worse, plugins with a type in another case, missing or mistyped, typed
 * fields mistyped. Built with jqwik's arbitraries, for a property ({@link ContainerdParserAgreementIT}).
 */
final class GeneratedConfigs
{
    private GeneratedConfigs() {}

    /**
     * @param name   the file's name in the conf dir ({@code .conflist} or {@code .conf})
     * @param text   its content
     */
    record Config(String name, String text) {}

    static Arbitrary<Config> configs()
    {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, lists().map(text -> new Config("10-gen.conflist", text))),
                net.jqwik.api.Tuple.of(1, singles().map(text -> new Config("10-gen.conf", text))));
    }

    private static Arbitrary<String> lists()
    {
        Arbitrary<String> name = field("name", List.of("\"net\"", "\"\""), List.of("5", "null", "true"));
        Arbitrary<String> version = field("cniVersion", List.of("\"0.4.0\"", "\"1.0.0\""), List.of("1", "null"));
        Arbitrary<String> versions = field("cniVersions", List.of("[\"1.0.0\"]", "[]"), List.of("[\"1.x\"]", "\"1.0.0\"", "[1]"));
        Arbitrary<String> disableCheck = field("disableCheck", List.of("true", "false"), List.of("\"true\"", "\"TRUE\"", "\"yes\"", "1", "null"));
        Arbitrary<String> disableGc = field("disableGC", List.of("true", "\"false\""), List.of("\"x\""));
        Arbitrary<String> inlined = field("loadOnlyInlinedPlugins", List.of("false"), List.of("\"maybe\""));
        Arbitrary<String> plugins = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(8, plugin().list().ofMinSize(1).ofMaxSize(2).map(list -> "\"plugins\":[" + String.join(",", list) + "]")),
                net.jqwik.api.Tuple.of(1, Arbitraries.of("\"plugins\":[]", "\"plugins\":{}", "\"plugins\":null", "\"plugins\":\"x\"", "",
                        "\"plugins\":[null]", "\"plugins\":[{\"type\":\"bridge\"}],\"plugins\":{}")));
        Arbitrary<String> space = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(20, Arbitraries.just("")),
                net.jqwik.api.Tuple.of(2, Arbitraries.of(" ", "\t", "\n", "\r\n")), net.jqwik.api.Tuple.of(1, Arbitraries.of("\f", "\u00a0")));
        Arbitrary<String> trailing = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(30, Arbitraries.just("")),
                net.jqwik.api.Tuple.of(1, Arbitraries.of("{}", "x", "\n\n")));
        return Combinators.combine(List.of(name, version, versions, disableCheck, disableGc, inlined, plugins, space, trailing)).as(parts -> {
            StringBuilder text = new StringBuilder("{").append(parts.get(7));
            String separator = "";
            for (String part : parts.subList(0, 7)) {
                if (!part.isEmpty()) {
                    text.append(separator).append(part);
                    separator = "," + parts.get(7);
                }
            }
            return text.append("}").append(parts.get(8)).toString();
        });
    }

    private static Arbitrary<String> singles()
    {
        Arbitrary<String> type = field("type", List.of("\"bridge\""), List.of("\"\"", "5", "null"));
        Arbitrary<String> name = field("name", List.of("\"net\""), List.of("5", "null"));
        Arbitrary<String> version = field("cniVersion", List.of("\"0.4.0\""), List.of("1"));
        Arbitrary<String> upper = field("TYPE", List.of("\"bridge\""), List.of("\"\""));
        return Combinators.combine(type, name, version, upper).as((a, b, c, d) -> object(List.of(a, b, c, d)));
    }

    private static Arbitrary<String> plugin()
    {
        Arbitrary<String> type = field("type", List.of("\"bridge\""), List.of("\"\"", "5", "null"));
        Arbitrary<String> upper = field("Type", List.of("\"bridge\""), List.of("\"\""));
        Arbitrary<String> capabilities = field("capabilities", List.of("{\"portMappings\":true}"), List.of("{\"portMappings\":\"yes\"}", "[]"));
        Arbitrary<String> ipam = field("ipam", List.of("{}", "null"), List.of("\"host-local\""));
        Arbitrary<String> big = field("mtu", List.of("1500", "1e-400"), List.of("1e400", "01"));
        return Combinators.combine(type, upper, capabilities, ipam, big).as((a, b, c, d, e) -> object(List.of(a, b, c, d, e)));
    }

    /** The key with a value libcni takes (most of the time), one it may not, or no key at all. */
    private static Arbitrary<String> field(String key, List<String> good, List<String> bad)
    {
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, Arbitraries.just("")),
                net.jqwik.api.Tuple.of(8, Arbitraries.of(good).map(value -> "\"" + key + "\":" + value)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of(bad).map(value -> "\"" + key + "\":" + value)));
    }

    private static String object(List<String> fields)
    {
        return "{" + String.join(",", fields.stream().filter(field -> !field.isEmpty()).toList()) + "}";
    }
}
