package io.cnichain.core.discovery;

import io.cnichain.core.Printable;
import io.cnichain.core.json.JsonValue;
import io.cnichain.core.json.JsonValue.JArray;
import io.cnichain.core.json.JsonValue.JBool;
import io.cnichain.core.json.JsonValue.JNull;
import io.cnichain.core.json.JsonValue.JNumber;
import io.cnichain.core.json.JsonValue.JObject;
import io.cnichain.core.json.JsonValue.JString;
import io.cnichain.core.json.JsonValue.Member;
import io.cnichain.core.discovery.CniConfigParser.LoadedConfig.Plugin;
import io.cnichain.spi.CniConfig;
import io.cnichain.spi.CniConfig.Format;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What libcni accepts, decided the way it decides (its {@code NetworkConfFromBytes} for a list, {@code ConfFromBytes}
 * then {@code ConfListFromConf} for a single plugin, as containerd and CRI-O call them), on a document read by
 * {@link io.cnichain.core.json.GoJsonParser}.
 *
 * <p>A list is decoded into a Go map first: exact keys, the last duplicate wins; {@code name} must be a string (empty
 * is fine), {@code cniVersion} a string, {@code cniVersions} strings that parse as versions, {@code disableCheck},
 * {@code disableGC} and {@code loadOnlyInlinedPlugins} booleans or "true"/"false"; {@code plugins} a non-empty array.
 * Every number anywhere must fit a float64. Each plugin is re-encoded (Go sorts map keys) and decoded into the
 * {@code PluginConf} struct: keys match fields without regard to case, the last match wins, each known field must
 * have its Go type, and {@code type} must end up non-empty. A single-plugin file is decoded into the struct in file
 * order, then up-converted to a list, so it must pass both.
 */
final class LibcniRules
{
    private LibcniRules() {}

    /** The result: the summary, and each plugin's value with the type libcni runs it as. */
    record Checked(CniConfig summary, List<Plugin> plugins, Optional<JArray> pluginsArray) {}

    static Checked check(JsonValue document, Format format, LibcniGeneration generation)
    {
        if (!(document instanceof JObject root)) {
            throw invalid("is " + a(document) + " in JSON, not an object");
        }
        checkNumbers(root);
        return format == Format.LIST ? list(root, generation) : single(root, generation);
    }

    private static Checked list(JObject root, LibcniGeneration generation)
    {
        Optional<JsonValue> named = root.get("name");
        if (named.isEmpty()) {
            throw invalid("has no 'name': a plugin list needs a network name");
        }
        JsonValue name = named.get();
        if (!(name instanceof JString networkName)) {
            throw invalid("'name' is " + a(name) + ", not a string");
        }
        Optional<String> cniVersion = Optional.empty();
        Optional<JsonValue> version = root.get("cniVersion");
        if (version.isPresent()) {
            if (!(version.get() instanceof JString v)) {
                throw invalid("'cniVersion' is " + a(version.get()) + ", not a string");
            }
            cniVersion = Optional.of(v.value());
        }
        if (generation == LibcniGeneration.V1_1) {
            // 1.1 knows neither cniVersions, disableGC nor loadOnlyInlinedPlugins, and takes disableCheck as a bool only.
            Optional<JsonValue> disableCheck = root.get("disableCheck");
            if (disableCheck.isPresent() && !(disableCheck.get() instanceof JBool)) {
                throw invalid("'disableCheck' is " + a(disableCheck.get()) + ", not a boolean (libcni 1.1: \"invalid disableCheck type\")");
            }
        }
        else {
            Optional<JsonValue> versions = root.get("cniVersions");
            if (versions.isPresent()) {
                checkVersions(versions.get());
                // Then libcni sorts cniVersion among them, so it must parse as a version too.
                if (cniVersion.isPresent() && !isVersion(cniVersion.get())) {
                    throw invalid("'cniVersion' is " + Printable.quoted(cniVersion.get()) + ", which is not a version (libcni reads it with 'cniVersions')");
                }
            }
            for (String key : List.of("disableCheck", "disableGC", "loadOnlyInlinedPlugins")) {
                Optional<JsonValue> value = root.get(key);
                if (value.isPresent()) {
                    readBool(key, value.get());
                }
            }
        }
        Optional<JsonValue> listed = root.get("plugins");
        if (listed.isEmpty()) {
            throw invalid("has no 'plugins' array: a plugin list must list its plugins");
        }
        JsonValue plugins = listed.get();
        if (!(plugins instanceof JArray array)) {
            throw invalid("'plugins' is " + a(plugins) + ", not an array");
        }
        if (array.elements().isEmpty()) {
            throw invalid("'plugins' is empty");
        }
        List<Plugin> checked = new ArrayList<>();
        List<String> types = new ArrayList<>();
        for (int i = 0; i < array.elements().size(); i++) {
            JsonValue plugin = array.elements().get(i);
            String type = pluginType(plugin, "plugin #" + (i + 1), true, generation);
            checked.add(new Plugin(plugin, type));
            types.add(type);
        }
        CniConfig summary = new CniConfig(Format.LIST, networkName.value(), cniVersion, types);
        return new Checked(summary, checked, Optional.of(array));
    }

    private static Checked single(JObject root, LibcniGeneration generation)
    {
        // containerd reads the file into the struct as written, then up-converts it to a list, whose plugin is
        // decoded again from re-encoded JSON (keys sorted): both must hold, and the runtime runs the second.
        Map<String, JsonValue> asWritten = decodeStruct(root, PluginFields.of(generation), "the configuration", false);
        requireType(asWritten, "the configuration");
        String type = pluginType(root, "the configuration", true, generation);
        String name = asWritten.get("name") instanceof JString s ? s.value() : "";
        Optional<String> cniVersion = asWritten.get("cniVersion") instanceof JString s ? Optional.of(s.value()) : Optional.empty();
        return new Checked(new CniConfig(Format.SINGLE, name, cniVersion, List.of(type)), List.of(new Plugin(root, type)), Optional.empty());
    }

    /**
     * The type libcni runs a plugin as, or why it rejects the plugin.
     *
     * @param sortedKeys whether the plugin was re-encoded from a Go map first (keys in byte order)
     */
    static String pluginType(JsonValue plugin, String what, boolean sortedKeys, LibcniGeneration generation)
    {
        if (plugin instanceof JNull) {
            throw invalid(what + " is null, so it has no 'type'");
        }
        if (!(plugin instanceof JObject object)) {
            throw invalid(what + " is " + a(plugin) + ", not an object");
        }
        return requireType(decodeStruct(object, PluginFields.of(generation), what, sortedKeys), what);
    }

    private static String requireType(Map<String, JsonValue> fields, String what)
    {
        if (!(fields.get("type") instanceof JString type) || type.value().isEmpty()) {
            throw invalid(what + (what.startsWith("plugin") ? " has no 'type'" : " has no 'type': a single-plugin configuration needs one"));
        }
        return type.value();
    }

    /** Go's struct decoding: each key goes to the field it matches by Unicode's simple case folding; the last one wins. */
    static Map<String, JsonValue> decodeStruct(JObject object, Map<String, PluginFields.Check> fields, String what, boolean sortedKeys)
    {
        List<Member> members = sortedKeys ? asGoMap(object) : object.members();
        Map<String, JsonValue> decoded = new LinkedHashMap<>();
        for (Member member : members) {
            for (Map.Entry<String, PluginFields.Check> field : fields.entrySet()) {
                if (foldsTo(member.key(), field.getKey())) {
                    field.getValue().check(member.value(), what + ": " + Printable.quoted(member.key()));
                    // Go: null into a string or struct field has no effect, so an earlier key's value stays.
                    if (!(member.value() instanceof JNull)) {
                        decoded.put(field.getKey(), member.value());
                    }
                }
            }
        }
        return decoded;
    }

    /**
     * Whether Go's decoder takes {@code key} for the field named {@code field} (ASCII): each letter in either case, and
     * also U+212A (Kelvin sign) for k and U+017F (long s) for s, which fold with them; ı and İ fold only to themselves,
     * unlike Java's {@code equalsIgnoreCase}, which takes them for i (Go: {@code encoding/json} {@code foldName},
     * {@code unicode.SimpleFold}).
     */
    static boolean foldsTo(String key, String field)
    {
        if (key.codePointCount(0, key.length()) != field.length()) {
            return false;
        }
        for (int i = 0, at = 0; i < field.length(); i++, at += Character.charCount(key.codePointAt(at))) {
            char wanted = field.charAt(i);
            char lower = Character.toLowerCase(wanted);
            int point = key.codePointAt(at);
            boolean letter = lower >= 'a' && lower <= 'z';
            boolean folds = point == wanted || letter && (point == lower || point == Character.toUpperCase(lower))
                    || lower == 'k' && point == 0x212A || lower == 's' && point == 0x017F;
            if (!folds) {
                return false;
            }
        }
        return true;
    }

    private static final Comparator<Member> BY_KEY_BYTES =
            (a, b) -> Arrays.compareUnsigned(a.key().getBytes(StandardCharsets.UTF_8), b.key().getBytes(StandardCharsets.UTF_8));

    /** A Go map re-encoded: one member per exact key (the last), keys in byte order. */
    private static List<Member> asGoMap(JObject object)
    {
        Map<String, Member> last = new LinkedHashMap<>();
        for (Member member : object.members()) {
            last.put(member.key(), member);
        }
        List<Member> sorted = new ArrayList<>(last.values());
        sorted.sort(BY_KEY_BYTES);
        return sorted;
    }

    private static void checkVersions(JsonValue versions)
    {
        if (!(versions instanceof JArray array)) {
            throw invalid("'cniVersions' is " + a(versions) + ", not an array");
        }
        for (JsonValue version : array.elements()) {
            if (!(version instanceof JString v)) {
                throw invalid("'cniVersions' holds " + a(version) + ", not a string");
            }
            if (!isVersion(v.value())) {
                throw invalid("'cniVersions' holds " + Printable.quoted(v.value()) + ", which is not a version");
            }
        }
    }

    /** libcni's version parsing: up to three dot-separated integers (Go's Atoi: an optional sign, then digits). */
    private static boolean isVersion(String version)
    {
        if (version.isEmpty()) {
            return true;
        }
        String[] parts = version.split("\\.", -1);
        if (parts.length > 3) {
            return false;
        }
        for (String part : parts) {
            if (!part.matches("[+-]?\\d{1,18}")) {
                return false;
            }
        }
        return true;
    }

    private static boolean readBool(String key, JsonValue value)
    {
        if (value instanceof JBool b) {
            return b.value();
        }
        if (value instanceof JString s && (s.value().toLowerCase(Locale.ROOT).equals("true") || s.value().toLowerCase(Locale.ROOT).equals("false"))) {
            return s.value().equalsIgnoreCase("true");
        }
        throw invalid("'" + key + "' is " + (value instanceof JString s ? Printable.quoted(s.value()) : a(value)) + ", not true or false");
    }

    /** Go decodes every number of a list into a float64: one that overflows it makes the whole file fail. */
    private static void checkNumbers(JsonValue root)
    {
        Deque<JsonValue> todo = new ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            JsonValue value = todo.pop();
            if (value instanceof JObject object) {
                for (Member member : object.members()) {
                    todo.push(member.value());
                }
            }
            else if (value instanceof JArray array) {
                for (JsonValue element : array.elements()) {
                    todo.push(element);
                }
            }
            else if (value instanceof JNumber number && Double.isInfinite(Double.parseDouble(number.text()))) {
                throw invalid("holds the number " + shorten(number.text()) + ", too large for the float64 libcni decodes it into");
            }
        }
    }

    private static String shorten(String text)
    {
        return text.length() <= 40 ? text : text.substring(0, 37) + "...";
    }

    /** The kind of a value with its article: "an object", "a string". */
    static String a(JsonValue value)
    {
        String kind = value.kind();
        return ("aeiou".indexOf(kind.charAt(0)) >= 0 ? "an " : "a ") + kind;
    }

    static CniConfigParser.InvalidConfigException invalid(String reason)
    {
        return new CniConfigParser.InvalidConfigException(reason);
    }
}
