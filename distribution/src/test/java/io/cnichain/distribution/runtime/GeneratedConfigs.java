package io.cnichain.distribution.runtime;

import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

/**
 * CNI configurations at the edges where libcni's rules bite, as JSON text (so that key order, duplicates, odd
 * whitespace and trailing content survive): list fields of every JSON type, {@code cniVersions}, {@code disableCheck}
 * and its siblings as booleans, strings and worse, plugins with a type in another case, missing or mistyped, typed
 * fields mistyped. Each configuration is made from one seed alone ({@link ContainerdParserAgreementIT}).
 */
final class GeneratedConfigs
{
    private GeneratedConfigs() {}

    /**
     * @param name   the file's name in the conf dir ({@code .conflist} or {@code .conf})
     * @param text   its content
     */
    record Config(String name, String text) {}

    /**
     * The seeds of a run's cases, the same every run; {@code -Dcnichain.seed=<seed>} gives that one seed alone, to
     * replay its case, and {@code -Dcnichain.seeds=<any number>} other seeds, to look beyond the usual cases.
     */
    static LongStream seeds(String property, int cases)
    {
        String replay = System.getProperty("cnichain.seed", "").strip();
        if (!replay.isEmpty()) {
            return LongStream.of(Long.parseLong(replay));
        }
        SplittableRandom seeds = new SplittableRandom(property.hashCode() ^ Long.parseLong(System.getProperty("cnichain.seeds", "0").strip()));
        return LongStream.generate(seeds::nextLong).limit(cases);
    }

    /** Five lists for one single-plugin {@code .conf}. */
    static Config config(long seed)
    {
        RandomGenerator random = new SplittableRandom(seed);
        return random.nextInt(6) < 5 ? new Config("10-gen.conflist", list(random)) : new Config("10-gen.conf", single(random));
    }

    private static String list(RandomGenerator random)
    {
        List<String> fields = List.of(
                field(random, "name", List.of("\"net\"", "\"\""), List.of("5", "null", "true")),
                field(random, "cniVersion", List.of("\"0.4.0\"", "\"1.0.0\""), List.of("1", "null")),
                field(random, "cniVersions", List.of("[\"1.0.0\"]", "[]"), List.of("[\"1.x\"]", "\"1.0.0\"", "[1]")),
                field(random, "disableCheck", List.of("true", "false"), List.of("\"true\"", "\"TRUE\"", "\"yes\"", "1", "null")),
                field(random, "disableGC", List.of("true", "\"false\""), List.of("\"x\"")),
                field(random, "loadOnlyInlinedPlugins", List.of("false"), List.of("\"maybe\"")),
                plugins(random));
        int space = random.nextInt(23);
        String whitespace = space < 20 ? "" : space < 22 ? pick(random, List.of(" ", "\t", "\n", "\r\n")) : pick(random, List.of("\f", "\u00a0"));
        String trailing = random.nextInt(31) < 30 ? "" : pick(random, List.of("{}", "x", "\n\n"));
        StringBuilder text = new StringBuilder("{").append(whitespace);
        String separator = "";
        for (String field : fields) {
            if (!field.isEmpty()) {
                text.append(separator).append(field);
                separator = "," + whitespace;
            }
        }
        return text.append("}").append(trailing).toString();
    }

    /** One or two plugins most of the time; otherwise no list, an empty one, or not a list of objects. */
    private static String plugins(RandomGenerator random)
    {
        if (random.nextInt(9) < 8) {
            return "\"plugins\":[" + String.join(",", IntStream.range(0, random.nextInt(1, 3)).mapToObj(i -> plugin(random)).toList()) + "]";
        }
        return pick(random, List.of("\"plugins\":[]", "\"plugins\":{}", "\"plugins\":null", "\"plugins\":\"x\"", "", "\"plugins\":[null]",
                "\"plugins\":[{\"type\":\"bridge\"}],\"plugins\":{}"));
    }

    private static String single(RandomGenerator random)
    {
        return object(List.of(
                field(random, "type", List.of("\"bridge\""), List.of("\"\"", "5", "null")),
                field(random, "name", List.of("\"net\""), List.of("5", "null")),
                field(random, "cniVersion", List.of("\"0.4.0\""), List.of("1")),
                field(random, "TYPE", List.of("\"bridge\""), List.of("\"\""))));
    }

    private static String plugin(RandomGenerator random)
    {
        return object(List.of(
                field(random, "type", List.of("\"bridge\""), List.of("\"\"", "5", "null")),
                field(random, "Type", List.of("\"bridge\""), List.of("\"\"")),
                field(random, "capabilities", List.of("{\"portMappings\":true}"), List.of("{\"portMappings\":\"yes\"}", "[]")),
                field(random, "ipam", List.of("{}", "null"), List.of("\"host-local\"")),
                field(random, "mtu", List.of("1500", "1e-400"), List.of("1e400", "01"))));
    }

    /** The key with a value libcni takes (most of the time), one it may not, or no key at all. */
    private static String field(RandomGenerator random, String key, List<String> good, List<String> bad)
    {
        int roll = random.nextInt(12);
        if (roll < 3) {
            return "";
        }
        return "\"" + key + "\":" + pick(random, roll < 11 ? good : bad);
    }

    private static String pick(RandomGenerator random, List<String> choices)
    {
        return choices.get(random.nextInt(choices.size()));
    }

    private static String object(List<String> fields)
    {
        return "{" + String.join(",", fields.stream().filter(field -> !field.isEmpty()).toList()) + "}";
    }
}
