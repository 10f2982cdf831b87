package io.cnichain.core.discovery;

import io.cnichain.core.json.CniJson;
import io.cnichain.core.json.GoJsonParser;
import io.cnichain.core.json.GoText;
import io.cnichain.core.json.JsonValue;
import io.cnichain.core.json.JsonValue.JArray;
import io.cnichain.core.json.JsonValue.JObject;
import io.cnichain.spi.CniConfig;
import io.cnichain.spi.CniConfig.Format;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Reads a configuration file the way the runtime does: bytes as Go's JSON decoder reads them
 * ({@link GoJsonParser}), then libcni's rules ({@link LibcniRules}). A file that breaks them is one the runtime
 * would not load, so it is one we never write from.
 */
public final class CniConfigParser
{
    private CniConfigParser() {}

    /**
     * @param fileName the name the file is loaded under: {@code .conflist} is read as a list, {@code .conf} and
     *                 {@code .json} as a single plugin; any other name (a {@code .conflist-current}) by its content
     * @param bytes    the content
     * @return the document and what it says
     * @throws InvalidConfigException with a one-line reason
     */
    public static LoadedConfig parse(String fileName, byte[] bytes)
    {
        return parse(fileName, bytes, LibcniGeneration.V1_3);
    }

    /**
     * {@link #parse(String, byte[])} by the rules of one libcni generation.
     *
     * @param generation whose rules decide
     */
    public static LoadedConfig parse(String fileName, byte[] bytes, LibcniGeneration generation)
    {
        if (bytes.length >= 3 && (bytes[0] & 0xff) == 0xef && (bytes[1] & 0xff) == 0xbb && (bytes[2] & 0xff) == 0xbf) {
            throw new InvalidConfigException("starts with a UTF-8 byte-order mark, which CNI runtimes reject");
        }
        String text = GoText.decode(bytes);
        if (text.isBlank()) {
            throw new InvalidConfigException("is empty");
        }
        JsonValue document;
        try {
            document = GoJsonParser.parse(text);
        }
        catch (GoJsonParser.TooManyValues e) {
            throw new TooComplex(e.getMessage());
        }
        catch (CniJson.InvalidJsonException e) {
            throw new InvalidConfigException(e.getMessage());
        }
        Format format = ConfigNames.formatByName(fileName)
                .orElse(document instanceof JObject object && object.get("plugins").isPresent() ? Format.LIST : Format.SINGLE);
        LibcniRules.Checked checked = LibcniRules.check(document, format, generation);
        return new LoadedConfig(text, (JObject) document, checked.summary(), checked.plugins(), checked.pluginsArray());
    }

    /**
     * A configuration the runtime would load.
     *
     * @param text         the document's text (UTF-8 decoded as Go decodes it)
     * @param root         its top-level object
     * @param summary      what it says
     * @param plugins      every plugin the runtime runs from it, in order, with the type it runs each as (for a
     *                     single-plugin file, the file itself)
     * @param pluginsArray a list's {@code plugins} array (the last one, when the key is repeated, as libcni reads it)
     */
    public record LoadedConfig(String text, JObject root, CniConfig summary, List<Plugin> plugins, Optional<JArray> pluginsArray)
    {
        public LoadedConfig
        {
            requireNonNull(text, "text is null");
            requireNonNull(root, "root is null");
            requireNonNull(summary, "summary is null");
            plugins = List.copyOf(plugins);
            requireNonNull(pluginsArray, "pluginsArray is null");
        }

        /**
         * @param type a plugin type
         * @return how many plugins the runtime would run as that type
         */
        public int count(String type)
        {
            int count = 0;
            for (Plugin plugin : plugins) {
                if (plugin.type().equals(type)) {
                    count++;
                }
            }
            return count;
        }

        /**
         * One plugin.
         *
         * @param value its JSON, with its place in the text
         * @param type  the type libcni runs it as
         */
        public record Plugin(JsonValue value, String type) {}
    }

    /** The content is not a configuration the runtime would load. */
    public static class InvalidConfigException
            extends RuntimeException
    {
        public InvalidConfigException(String reason)
        {
            super(reason, null, false, false);
        }
    }

    /** Beyond what the agent reads ({@link GoJsonParser#MAX_VALUES}): the runtime may load it, we cannot tell. */
    public static final class TooComplex
            extends InvalidConfigException
    {
        public TooComplex(String reason)
        {
            super(reason);
        }
    }
}
