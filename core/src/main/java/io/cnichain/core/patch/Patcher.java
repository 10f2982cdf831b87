package io.cnichain.core.patch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Optional;

/**
 * Pure functions on CNI configuration trees. Nothing here reads or writes a file; every function returns a
 * new tree and leaves its input alone.
 *
 * <p>Our entry is recognised by its {@code type}. It is replaced where it stands when present (duplicates of
 * it collapse into that one), otherwise appended last. Foreign entries and unknown keys stay where they are.
 */
public final class Patcher
{
    /**
     * Top-level key recording that a single-plugin file was converted to a list by us, and under which name
     * it lived, so uninstall can put it back. Runtimes ignore unknown top-level keys of a list.
     */
    public static final String CONVERTED_FROM = "cniChainConvertedFrom";

    private Patcher() {}

    /**
     * @param conflist a plugin list
     * @param entry    our plugin entry
     * @return the list with exactly one entry of our type: the given one
     * @throws PatchException when the list has no {@code plugins} array or a plugin is not an object
     */
    public static ObjectNode insert(ObjectNode conflist, ObjectNode entry)
    {
        String type = typeOf(entry).orElseThrow(() -> new IllegalArgumentException("the chained entry has no type"));
        ObjectNode result = conflist.deepCopy();
        ArrayNode plugins = pluginsOf(result);
        int first = -1;
        for (int i = plugins.size() - 1; i >= 0; i--) {
            if (type.equals(typeOf(plugins.get(i)).orElse(null))) {
                if (first != -1) {
                    plugins.remove(first);
                }
                first = i;
            }
        }
        if (first == -1) {
            plugins.add(entry.deepCopy());
        }
        else {
            plugins.set(first, entry.deepCopy());
        }
        return result;
    }

    /**
     * @param conflist a plugin list
     * @param type     our plugin type
     * @return the list without any entry of that type
     * @throws PatchException when the list has no {@code plugins} array or a plugin is not an object
     */
    public static ObjectNode remove(ObjectNode conflist, String type)
    {
        ObjectNode result = conflist.deepCopy();
        ArrayNode plugins = pluginsOf(result);
        for (int i = plugins.size() - 1; i >= 0; i--) {
            if (type.equals(typeOf(plugins.get(i)).orElse(null))) {
                plugins.remove(i);
            }
        }
        return result;
    }

    /**
     * @param conflist a plugin list
     * @param type     a plugin type
     * @return how many entries of that type the list holds
     */
    public static int count(ObjectNode conflist, String type)
    {
        int count = 0;
        for (JsonNode plugin : pluginsOf(conflist)) {
            if (type.equals(typeOf(plugin).orElse(null))) {
                count++;
            }
        }
        return count;
    }

    /**
     * Turns a single-plugin configuration into a list the way libcni does when it loads one: the network name
     * and {@code cniVersion} move to the list, and the plugin is the original object unchanged, so it receives
     * exactly what it received before.
     *
     * @param single        a single-plugin configuration
     * @param convertedFrom the file name it had, recorded for uninstall
     * @return the list
     */
    public static ObjectNode toList(ObjectNode single, String convertedFrom)
    {
        ObjectNode list = single.objectNode();
        if (single.has("cniVersion")) {
            list.set("cniVersion", single.get("cniVersion").deepCopy());
        }
        if (single.has("name")) {
            list.set("name", single.get("name").deepCopy());
        }
        list.put(CONVERTED_FROM, convertedFrom);
        list.putArray("plugins").add(single.deepCopy());
        return list;
    }

    /**
     * The single-plugin configuration a list was converted from, when we converted it and it again holds only
     * that plugin.
     *
     * @param conflist a plugin list without our entry
     * @return the original file name and content
     */
    public static Optional<Restored> restoreSingle(ObjectNode conflist)
    {
        JsonNode from = conflist.get(CONVERTED_FROM);
        JsonNode plugins = conflist.get("plugins");
        if (from == null || !from.isTextual() || plugins == null || !plugins.isArray() || plugins.size() != 1 || !plugins.get(0).isObject()) {
            return Optional.empty();
        }
        String name = from.asText();
        if (name.isEmpty() || name.contains("/") || name.startsWith(".")) {
            return Optional.empty();
        }
        return Optional.of(new Restored(name, (ObjectNode) plugins.get(0).deepCopy()));
    }

    /**
     * @param name   the single-plugin file's name
     * @param single its content
     */
    public record Restored(String name, ObjectNode single) {}

    private static ArrayNode pluginsOf(ObjectNode conflist)
    {
        JsonNode plugins = conflist.get("plugins");
        if (plugins == null || plugins.isNull()) {
            throw new PatchException("has no 'plugins' array; refusing to write a list holding only our plugin");
        }
        if (!plugins.isArray()) {
            throw new PatchException("'plugins' is not an array");
        }
        for (int i = 0; i < plugins.size(); i++) {
            if (!plugins.get(i).isObject()) {
                throw new PatchException("plugin #" + (i + 1) + " is not an object");
            }
        }
        return (ArrayNode) plugins;
    }

    private static Optional<String> typeOf(JsonNode plugin)
    {
        JsonNode type = plugin.get("type");
        return type != null && type.isTextual() ? Optional.of(type.asText()) : Optional.empty();
    }
}
