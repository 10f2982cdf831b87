package io.cnichain.core.patch;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Valid CNI configurations for property tests: random foreign plugins with random keys, nested values, unicode and
 * key orders, written in a random one of the styles real tools use (jq, Go's MarshalIndent with tabs, Python's
 * json.dump with or without indent, compact), with or without a final newline.
 */
final class GeneratedConfigs
{
    /** Keys libcni gives a meaning to: generated extra keys avoid them, in any case. */
    private static final Set<String> RESERVED = Set.of("name", "cniversion", "cniversions", "plugins", "type", "disablecheck", "disablegc",
            "loadonlyinlinedplugins", "capabilities", "ipam", "dns", "prevresult", "cni.dev/valid-attachments", "cnichainconvertedfrom");

    private GeneratedConfigs() {}

    /** A value tree: String, Long, Double, Boolean, null, List or Map (insertion-ordered). */
    static Arbitrary<Object> values(int depth)
    {
        Arbitrary<Object> scalars = Arbitraries.oneOf(
                strings().map(s -> (Object) s),
                Arbitraries.longs().between(-1_000_000_000L, 1_000_000_000L).map(n -> (Object) n),
                Arbitraries.doubles().between(-1e6, 1e6).ofScale(3).map(d -> (Object) d),
                Arbitraries.of(true, false).map(b -> (Object) b),
                Arbitraries.just(null));
        if (depth == 0) {
            return scalars;
        }
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, scalars),
                net.jqwik.api.Tuple.of(1, values(depth - 1).list().ofMaxSize(3).map(l -> (Object) l)),
                net.jqwik.api.Tuple.of(1, objects(depth - 1).map(m -> (Object) m)));
    }

    static Arbitrary<Map<String, Object>> objects(int depth)
    {
        return Combinators.combine(keys().list().ofMaxSize(4).uniqueElements(), values(depth).list().ofSize(4))
                .as((keys, values) -> {
                    Map<String, Object> map = new LinkedHashMap<>();
                    for (int i = 0; i < keys.size(); i++) {
                        map.put(keys.get(i), values.get(i));
                    }
                    return map;
                });
    }

    static Arbitrary<String> keys()
    {
        return Arbitraries.strings().withCharRange('a', 'z').withChars('-', '_', 'é', '日').ofMinLength(1).ofMaxLength(12)
                .filter(k -> !RESERVED.contains(k.toLowerCase(Locale.ROOT)));
    }

    static Arbitrary<String> strings()
    {
        return Arbitraries.strings().withCharRange(' ', '~').withChars('é', 'ü', '日', '本', '\u2028', '\n', '\t', '"', '\\')
                .ofMaxLength(16)
                // A character outside the BMP (two UTF-16 units) cannot be a char: it stands in for the backquote.
                .map(s -> s.replace("`", "\uD83D\uDE00"));
    }

    /** A foreign plugin: a type that is never ours, then random keys. */
    static Arbitrary<Map<String, Object>> plugins()
    {
        return Combinators.combine(Arbitraries.of("bridge", "portmap", "calico", "cilium-cni", "flannel", "tuning", "bandwidth", "oci-ptp"),
                objects(2)).as((type, extra) -> {
                    Map<String, Object> plugin = new LinkedHashMap<>();
                    plugin.put("type", type);
                    plugin.putAll(extra);
                    return plugin;
                });
    }

    static Arbitrary<Map<String, Object>> lists()
    {
        return Combinators.combine(keys(), Arbitraries.of("0.3.1", "0.4.0", "1.0.0"), plugins().list().ofMinSize(1).ofMaxSize(4), objects(1))
                .as((name, version, plugins, extra) -> {
                    Map<String, Object> list = new LinkedHashMap<>();
                    list.put("cniVersion", version);
                    list.put("name", name);
                    list.putAll(extra);
                    list.put("plugins", plugins);
                    return list;
                });
    }

    static Arbitrary<Map<String, Object>> singles()
    {
        return Combinators.combine(keys(), Arbitraries.of("0.3.1", "1.0.0"), plugins()).as((name, version, plugin) -> {
            Map<String, Object> single = new LinkedHashMap<>();
            single.put("cniVersion", version);
            single.put("name", name);
            single.putAll(plugin);
            return single;
        });
    }

    static Arbitrary<Style> styles()
    {
        return Combinators.combine(Arbitraries.of(Style.Layout.values()), Arbitraries.of(true, false)).as(Style::new);
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
