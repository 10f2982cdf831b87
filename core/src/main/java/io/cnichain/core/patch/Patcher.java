package io.cnichain.core.patch;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.discovery.CniConfigParser;
import io.cnichain.core.discovery.CniConfigParser.LoadedConfig;
import io.cnichain.core.json.JsonScalars;
import io.cnichain.core.json.JsonStyle;
import io.cnichain.core.json.JsonTrees;
import io.cnichain.core.json.JsonValue;
import io.cnichain.core.json.JsonValue.JArray;
import io.cnichain.core.json.JsonValue.JString;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * Pure functions on the text of a CNI configuration: they change what must change and leave every other byte where
 * it was, so a file keeps its layout (one line or indented, its separators, its escapes, its final newline) and
 * install followed by uninstall gives back the same bytes. Nothing here reads or writes a file.
 *
 * <p>Our entry is recognised by the type libcni runs a plugin as. It is replaced where it stands when present
 * (duplicates of it removed), otherwise appended last, written in the file's own style.
 */
public final class Patcher
{
    /**
     * Top-level key recording that a single-plugin file was converted to a list by us, and under which name it lived,
     * so uninstall can put it back. Runtimes ignore unknown top-level keys of a list.
     */
    public static final String CONVERTED_FROM = "cniChainConvertedFrom";

    private Patcher() {}

    /**
     * @param list  a plugin list
     * @param entry our plugin entry
     * @return the list's new text holding exactly one entry of our type, the given one; empty when it holds that already
     */
    public static Optional<String> insert(LoadedConfig list, ObjectNode entry)
    {
        String type = entry.get("type").asText();
        LoadedConfig current = list;
        boolean changed = false;
        // Duplicates of ours go first, from the last, one edit at a time on freshly read text.
        while (current.count(type) > 1) {
            current = reread(removeElement(current, lastIndexOf(current, type)), current);
            changed = true;
        }
        JsonStyle style = JsonStyle.of(current.text(), current.root());
        JArray plugins = current.pluginsArray().orElseThrow();
        int ours = lastIndexOf(current, type);
        String text = current.text();
        if (ours >= 0) {
            JsonValue element = plugins.elements().get(ours);
            // Already what we would write, in another key order or layout (Linkerd's Go installer sorts keys): the
            // plugin decodes the same, and a rewrite would only wake the other installer to undo it.
            if (JsonTrees.toTree(element).equals(entry)) {
                return changed ? Optional.of(text) : Optional.empty();
            }
            String rendered = render(style, current, element.start(), entry);
            if (rendered.equals(text.substring(element.start(), element.end()))) {
                return changed ? Optional.of(text) : Optional.empty();
            }
            return Optional.of(text.substring(0, element.start()) + rendered + text.substring(element.end()));
        }
        JsonValue last = plugins.elements().get(plugins.elements().size() - 1);
        String separator;
        if (multiLine(current, plugins)) {
            separator = "," + style.newline() + lineIndent(text, last.start());
        }
        else {
            separator = plugins.elements().size() > 1
                    ? text.substring(plugins.elements().get(0).end(), plugins.elements().get(1).start())
                    : style.itemSeparator();
        }
        String rendered = render(style, current, last.start(), entry);
        return Optional.of(text.substring(0, last.end()) + separator + rendered + text.substring(last.end()));
    }

    /**
     * @param list a plugin list
     * @param type our plugin type
     * @return the list's text without any plugin of that type, or empty when it holds none
     * @throws PatchException when every plugin of the list is ours: removing them would leave a list the runtime
     *                        cannot load
     */
    public static Optional<String> remove(LoadedConfig list, String type)
    {
        if (list.count(type) == 0) {
            return Optional.empty();
        }
        if (list.count(type) == list.plugins().size()) {
            throw new PatchException("holds no plugin but " + type + "; removing it would leave an empty list, which the runtime cannot load");
        }
        LoadedConfig current = list;
        while (current.count(type) > 0) {
            current = reread(removeElement(current, lastIndexOf(current, type)), current);
        }
        return Optional.of(current.text());
    }

    /**
     * Turns a single-plugin configuration into a list the way libcni up-converts one when it loads it: the network
     * name and {@code cniVersion} move to the list, and the plugin is the original object, byte for byte (indented
     * one level deeper), so it receives exactly what it received before. Our entry follows it.
     *
     * @param single        a single-plugin configuration
     * @param convertedFrom the file name it had, recorded for uninstall
     * @param entry         our plugin entry
     * @return the list's text
     */
    public static String toList(LoadedConfig single, String convertedFrom, ObjectNode entry)
    {
        JsonStyle style = JsonStyle.of(single.text(), single.root());
        String original = single.text().substring(single.root().start(), single.root().end());
        StringBuilder out = new StringBuilder("{");
        String nl = style.newline();
        String unit = style.indent().orElse("");
        String item = style.indented() ? "," + nl + unit : style.itemSeparator();
        String first = style.indented() ? nl + unit : "";
        out.append(first);
        // As libcni decodes them: a key matches its field whatever its case, the last one wins.
        single.summary().cniVersion().ifPresent(version -> out.append(quote("cniVersion")).append(style.keySeparator()).append(quote(version)).append(item));
        if (!single.summary().networkName().isEmpty()) {
            out.append(quote("name")).append(style.keySeparator()).append(quote(single.summary().networkName())).append(item);
        }
        out.append(quote(CONVERTED_FROM)).append(style.keySeparator()).append(quote(convertedFrom)).append(item);
        out.append(quote("plugins")).append(style.keySeparator()).append('[');
        if (style.indented()) {
            String elementIndent = unit + unit;
            out.append(nl).append(elementIndent).append(original.replace("\n", "\n" + elementIndent))
                    .append(',').append(nl).append(elementIndent).append(style.render(entry, elementIndent))
                    .append(nl).append(unit).append(']').append(nl);
        }
        else {
            out.append(original).append(style.itemSeparator()).append(style.renderInline(entry)).append(']');
        }
        out.append('}').append(style.finalNewline() ? nl : "");
        return out.toString();
    }

    /**
     * The single-plugin configuration a list was converted from, when we converted it and it again holds only that
     * plugin: its original text, the indentation we added taken off again.
     *
     * @param list a plugin list without our entry
     * @return the original file name and content
     */
    public static Optional<Restored> restoreSingle(LoadedConfig list)
    {
        Optional<JsonValue> from = list.root().get(CONVERTED_FROM);
        JArray plugins = list.pluginsArray().orElseThrow();
        if (from.isEmpty() || !(from.get() instanceof JString name) || plugins.elements().size() != 1
                || !(plugins.elements().get(0) instanceof JsonValue.JObject)) {
            return Optional.empty();
        }
        if (name.value().isEmpty() || name.value().contains("/") || name.value().startsWith(".")) {
            return Optional.empty();
        }
        JsonValue element = plugins.elements().get(0);
        String text = list.text().substring(element.start(), element.end());
        if (multiLine(list, plugins)) {
            text = outdent(text, lineIndent(list.text(), element.start()));
        }
        JsonStyle style = JsonStyle.of(list.text(), list.root());
        return Optional.of(new Restored(name.value(), text + (style.finalNewline() ? style.newline() : "")));
    }

    /**
     * @param name    the single-plugin file's name
     * @param content its text
     */
    public record Restored(String name, String content) {}

    /**
     * The list without our {@value #CONVERTED_FROM} marker, for a converted list that is not given back as the single
     * plugin it was (someone edited it since): a key of ours left behind would name a file that is no longer coming back.
     *
     * @return the text without the member; empty when the list has none
     */
    public static Optional<String> withoutConvertedFrom(LoadedConfig list)
    {
        List<JsonValue.Member> members = list.root().members();
        int index = -1;
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).key().equals(CONVERTED_FROM)) {
                index = i;
            }
        }
        if (index < 0 || members.size() == 1) {
            return Optional.empty();
        }
        String text = list.text();
        if (index > 0) {
            return Optional.of(text.substring(0, members.get(index - 1).value().end()) + text.substring(members.get(index).value().end()));
        }
        return Optional.of(text.substring(0, members.get(0).keyStart()) + text.substring(members.get(1).keyStart()));
    }

    private static String render(JsonStyle style, LoadedConfig list, int elementStart, ObjectNode entry)
    {
        JArray plugins = list.pluginsArray().orElseThrow();
        if (!multiLine(list, plugins)) {
            return style.renderInline(entry);
        }
        String indent = lineIndent(list.text(), elementStart);
        JsonStyle indented = style.indented() ? style : new JsonStyle(Optional.of(indent.isEmpty() ? "  " : indent), style.keySeparator(),
                style.itemSeparator(), style.newline(), style.finalNewline());
        return indented.render(entry, indent);
    }

    /** Whether the array puts its elements on lines of their own. */
    private static boolean multiLine(LoadedConfig list, JArray array)
    {
        return list.text().substring(array.start() + 1, array.elements().get(0).start()).contains("\n");
    }

    /** The whitespace between the start of the line and a value, when only whitespace stands there. */
    private static String lineIndent(String text, int start)
    {
        int lineStart = text.lastIndexOf('\n', start - 1) + 1;
        String before = text.substring(lineStart, start);
        return before.isBlank() ? before : "";
    }

    private static int lastIndexOf(LoadedConfig list, String type)
    {
        List<LoadedConfig.Plugin> plugins = list.plugins();
        for (int i = plugins.size() - 1; i >= 0; i--) {
            if (plugins.get(i).type().equals(type)) {
                return i;
            }
        }
        return -1;
    }

    /** The text without one element of the plugins array and the separator that went with it. */
    private static String removeElement(LoadedConfig list, int index)
    {
        List<JsonValue> elements = list.pluginsArray().orElseThrow().elements();
        String text = list.text();
        if (index > 0) {
            return text.substring(0, elements.get(index - 1).end()) + text.substring(elements.get(index).end());
        }
        return text.substring(0, elements.get(0).start()) + text.substring(elements.get(1).start());
    }

    private static LoadedConfig reread(String text, LoadedConfig before)
    {
        return CniConfigParser.parse(before.summary().format() == io.cnichain.spi.CniConfig.Format.LIST ? "edited.conflist" : "edited.conf",
                text.getBytes(StandardCharsets.UTF_8));
    }

    private static String quote(String value)
    {
        return JsonScalars.quote(value);
    }

    /**
     * Takes the indentation we added off every line after the first; when a line lacks it, someone else edited the
     * text and it is left as it is (still valid JSON, only not byte for byte the original).
     */
    private static String outdent(String text, String indent)
    {
        String[] lines = text.split("\n", -1);
        StringBuilder out = new StringBuilder(lines[0]);
        for (int i = 1; i < lines.length; i++) {
            if (!lines[i].startsWith(indent)) {
                return text;
            }
            out.append('\n').append(lines[i].substring(indent.length()));
        }
        return out.toString();
    }
}
