package io.cnichain.core.patch;

import io.cnichain.core.SeededCases;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * Valid CNI configurations for generated cases: random foreign plugins with random keys, nested values, unicode and
 * key orders, written in a random one of the styles real tools use (jq, Go's MarshalIndent with tabs, Python's
 * json.dump with or without indent, compact), with or without a final newline. Everything comes from the random
 * generator passed in, so a seed gives the same configuration every time.
 */
final class GeneratedConfigs
{
    /** Keys libcni gives a meaning to: generated extra keys avoid them, in any case. */
    private static final Set<String> RESERVED = Set.of("name", "cniversion", "cniversions", "plugins", "type", "disablecheck", "disablegc",
            "loadonlyinlinedplugins", "capabilities", "ipam", "dns", "prevresult", "cni.dev/valid-attachments", "cnichainconvertedfrom");
    private static final String KEY_CHARS = "abcdefghijklmnopqrstuvwxyz-_\u00e9\u65e5";
    private static final String STRING_CHARS = printableAscii() + "\u00e9\u00fc\u65e5\u672c\u2028\n\t\"\\";
    private static final List<String> PLUGIN_TYPES = List.of("bridge", "portmap", "calico", "cilium-cni", "flannel", "tuning", "bandwidth", "oci-ptp");

    private GeneratedConfigs() {}

    /** A value tree: String, Long, Double, Boolean, null, List or Map (insertion-ordered); mostly scalars. */
    static Object value(RandomGenerator random, int depth)
    {
        int kind = depth == 0 ? 0 : random.nextInt(8);
        if (kind == 6) {
            return SeededCases.list(random, 0, 3, () -> value(random, depth - 1));
        }
        if (kind == 7) {
            return object(random, depth - 1);
        }
        return switch (random.nextInt(5)) {
            case 0 -> string(random);
            case 1 -> random.nextLong(-1_000_000_000L, 1_000_000_001L);
            // Three decimals, as a tool that rounds writes them.
            case 2 -> Math.round(random.nextDouble(-1e6, 1e6) * 1000) / 1000.0;
            case 3 -> random.nextBoolean();
            default -> null;
        };
    }

    /** Up to four entries with distinct keys. */
    static Map<String, Object> object(RandomGenerator random, int depth)
    {
        Set<String> keys = new LinkedHashSet<>();
        int size = random.nextInt(5);
        while (keys.size() < size) {
            keys.add(key(random));
        }
        Map<String, Object> map = new LinkedHashMap<>();
        for (String key : keys) {
            map.put(key, value(random, depth));
        }
        return map;
    }

    static String key(RandomGenerator random)
    {
        while (true) {
            String key = chars(random, KEY_CHARS, 1, 12);
            if (!RESERVED.contains(key.toLowerCase(Locale.ROOT))) {
                return key;
            }
        }
    }

    static String string(RandomGenerator random)
    {
        // A character outside the BMP (two UTF-16 units) cannot be one of the chars: it stands in for the backquote.
        return chars(random, STRING_CHARS, 0, 16).replace("`", "\uD83D\uDE00");
    }

    /** A foreign plugin: a type that is never ours, then random keys. */
    static Map<String, Object> plugin(RandomGenerator random)
    {
        Map<String, Object> plugin = new LinkedHashMap<>();
        plugin.put("type", SeededCases.pick(random, PLUGIN_TYPES));
        plugin.putAll(object(random, 2));
        return plugin;
    }

    static Map<String, Object> list(RandomGenerator random)
    {
        Map<String, Object> list = new LinkedHashMap<>();
        list.put("cniVersion", SeededCases.pick(random, List.of("0.3.1", "0.4.0", "1.0.0")));
        list.put("name", key(random));
        list.putAll(object(random, 1));
        list.put("plugins", SeededCases.list(random, 1, 4, () -> plugin(random)));
        return list;
    }

    static Map<String, Object> single(RandomGenerator random)
    {
        Map<String, Object> single = new LinkedHashMap<>();
        single.put("cniVersion", SeededCases.pick(random, List.of("0.3.1", "1.0.0")));
        single.put("name", key(random));
        single.putAll(plugin(random));
        return single;
    }

    static Style style(RandomGenerator random)
    {
        return new Style(SeededCases.pick(random, List.of(Style.Layout.values())), random.nextBoolean());
    }

    private static String chars(RandomGenerator random, String alphabet, int min, int max)
    {
        StringBuilder out = new StringBuilder();
        for (int i = random.nextInt(min, max + 1); i > 0; i--) {
            out.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return out.toString();
    }

    private static String printableAscii()
    {
        StringBuilder out = new StringBuilder();
        for (char c = ' '; c <= '~'; c++) {
            out.append(c);
        }
        return out.toString();
    }

    /** How a tool writes JSON. */
    record Style(Layout layout, boolean finalNewline)
    {
        enum Layout
        {
            JQ("  ", ": ", ","),
            GO_TABS("\t", ": ", ","),
            PYTHON_INDENT_4("    ", ": ", ","),
            PYTHON_DEFAULT(null, ": ", ", "),
            COMPACT(null, ":", ",");

            final String indent;
            final String keySeparator;
            final String itemSeparator;

            Layout(String indent, String keySeparator, String itemSeparator)
            {
                this.indent = indent;
                this.keySeparator = keySeparator;
                this.itemSeparator = itemSeparator;
            }
        }

        String write(Object value)
        {
            StringBuilder out = new StringBuilder();
            write(value, "", out);
            return out + (finalNewline ? "\n" : "");
        }

        private void write(Object value, String base, StringBuilder out)
        {
            if (value instanceof Map<?, ?> map) {
                container(new ArrayList<>(map.entrySet()), '{', '}', base, out, (entry, inner) -> {
                    Map.Entry<?, ?> e = (Map.Entry<?, ?>) entry;
                    out.append(quote((String) e.getKey())).append(layout.keySeparator);
                    write(e.getValue(), inner, out);
                });
            }
            else if (value instanceof List<?> list) {
                container(new ArrayList<>(list), '[', ']', base, out, (element, inner) -> write(element, inner, out));
            }
            else if (value instanceof String s) {
                out.append(quote(s));
            }
            else {
                out.append(value);
            }
        }

        private void container(List<?> items, char open, char close, String base, StringBuilder out, java.util.function.BiConsumer<Object, String> item)
        {
            out.append(open);
            if (items.isEmpty()) {
                out.append(close);
                return;
            }
            String inner = layout.indent == null ? "" : base + layout.indent;
            for (int i = 0; i < items.size(); i++) {
                if (layout.indent != null) {
                    out.append(i == 0 ? "" : ",").append('\n').append(inner);
                }
                else if (i > 0) {
                    out.append(layout.itemSeparator);
                }
                item.accept(items.get(i), inner);
            }
            if (layout.indent != null) {
                out.append('\n').append(base);
            }
            out.append(close);
        }

        /** JSON string with the escapes Go writes for <, >, & and line separators, so escapes must survive too. */
        static String quote(String s)
        {
            StringBuilder out = new StringBuilder("\"");
            for (char c : s.toCharArray()) {
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '\n' -> out.append("\\n");
                    case '\t' -> out.append("\\t");
                    case '<', '>', '&', '\u2028' -> out.append(String.format("\\u%04x", (int) c));
                    default -> out.append(c);
                }
            }
            return out.append('"').toString();
        }
    }
}
