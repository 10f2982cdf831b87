package io.cnichain.core.discovery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.json.CniJson;
import io.cnichain.spi.CniConfig;
import io.cnichain.spi.CniConfig.Format;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Applies the rules libcni applies when it loads a file: a list needs a {@code name} and a non-empty
 * {@code plugins} array of objects that each have a {@code type}; a single plugin needs a {@code type}.
 * A file that breaks them is one the runtime would not load, so it is one we never write from.
 */
public final class CniConfigParser
{
    private CniConfigParser() {}

    /**
     * @param fileName the name the file is loaded under (its format follows from it when it is a runtime name)
     * @param bytes    the content
     * @return the tree and its summary
     * @throws InvalidConfigException with a one-line reason
     */
    public static LoadedConfig parse(String fileName, byte[] bytes)
    {
        JsonNode node;
        try {
            node = CniJson.parse(bytes);
        }
        catch (CniJson.InvalidJsonException e) {
            throw new InvalidConfigException(e.getMessage());
        }
        if (!node.isObject()) {
            throw new InvalidConfigException("is not a JSON object");
        }
        ObjectNode tree = (ObjectNode) node;
        Format format = ConfigNames.formatByName(fileName)
                .orElse(tree.has("plugins") ? Format.LIST : Format.SINGLE);
        Optional<String> cniVersion = optionalString(tree, "cniVersion", "'cniVersion'");
        if (format == Format.LIST) {
            String name = requiredString(tree, "name", "has no 'name': a plugin list needs a network name");
            JsonNode plugins = tree.get("plugins");
            if (plugins == null || plugins.isNull()) {
                throw new InvalidConfigException("has no 'plugins' array: a plugin list must list its plugins");
            }
            if (!plugins.isArray()) {
                throw new InvalidConfigException("'plugins' is not an array");
            }
            if (plugins.isEmpty()) {
                throw new InvalidConfigException("'plugins' is empty");
            }
            List<String> types = new ArrayList<>();
            for (int i = 0; i < plugins.size(); i++) {
                JsonNode plugin = plugins.get(i);
                if (!plugin.isObject()) {
                    throw new InvalidConfigException("plugin #" + (i + 1) + " is not an object");
                }
                types.add(requiredString(plugin, "type", "plugin #" + (i + 1) + " has no 'type'"));
            }
            return new LoadedConfig(tree, new CniConfig(format, name, cniVersion, types));
        }
        String type = requiredString(tree, "type", "has no 'type': a single-plugin configuration needs one");
        String name = optionalString(tree, "name", "'name'").orElse("");
        return new LoadedConfig(tree, new CniConfig(format, name, cniVersion, List.of(type)));
    }

    private static String requiredString(JsonNode node, String key, String missing)
    {
        JsonNode value = node.get(key);
        if (value == null || value.isNull() || (value.isTextual() && value.asText().isEmpty())) {
            throw new InvalidConfigException(missing);
        }
        if (!value.isTextual()) {
            throw new InvalidConfigException("'" + key + "' is not a string");
        }
        return value.asText();
    }

    private static Optional<String> optionalString(JsonNode node, String key, String label)
    {
        JsonNode value = node.get(key);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isTextual()) {
            throw new InvalidConfigException(label + " is not a string");
        }
        return Optional.of(value.asText());
    }

    /**
     * A parsed configuration: the tree to patch and what it says.
     *
     * @param tree    the JSON object
     * @param summary its summary
     */
    public record LoadedConfig(ObjectNode tree, CniConfig summary) {}

    /** The content is not a configuration the runtime would load. */
    public static final class InvalidConfigException
            extends RuntimeException
    {
        public InvalidConfigException(String reason)
        {
            super(reason, null, false, false);
        }
    }
}
