package io.cnichain.core.config;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.fs.PodVolumeFiles;
import io.cnichain.core.json.CniJson;
import io.cnichain.core.json.JsonTrees;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.cnichain.core.config.ConfigErrors.quoted;

/**
 * The chained plugin's entry: in the YAML file the section {@code plugin} ({@code type} and {@code config}); in the
 * environment, as in Linkerd's {@code linkerd2-cni} chart, the JSON file named by {@value #FILE_VARIABLE} when it
 * exists, else the JSON text of {@value #JSON_VARIABLE}. Its {@code type} names the plugin's binary, so it must be a
 * plain binary name; JSON with a key given twice is refused, since readers disagree on which one counts.
 */
record PluginEntryType() implements SettingType<PluginEntry>
{
    static final String FILE_VARIABLE = "CNI_NETWORK_CONFIG_FILE";
    static final String JSON_VARIABLE = "CNI_NETWORK_CONFIG";

    private static final Pattern BINARY_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final String BINARY_NAME_RULE = "a letter or digit, then letters, digits, '.', '_' or '-'";
    private static final Pattern DUPLICATE_KEY = Pattern.compile("Duplicate field '(.*)'");

    /** The JSON text of {@value #JSON_VARIABLE}. */
    @Override
    public PluginEntry parse(String text, String source)
    {
        return fromJson(text.getBytes(StandardCharsets.UTF_8), JSON_VARIABLE + " environment variable",
                reason -> ConfigErrors.bad(source, reason));
    }

    @Override
    public Optional<SettingValues.Sourced<PluginEntry>> fromEnvironment(List<String> variables, Map<String, String> env)
    {
        String fileVariable = env.get(FILE_VARIABLE);
        String jsonVariable = env.get(JSON_VARIABLE);
        Optional<String> file = fileVariable == null || fileVariable.isEmpty() || fileVariable.indexOf('\0') >= 0 ? Optional.empty() : Optional.of(fileVariable);
        Optional<String> json = jsonVariable == null || jsonVariable.isEmpty() ? Optional.empty() : Optional.of(jsonVariable);
        if (file.isPresent() && Files.isRegularFile(Path.of(file.get()))) {
            // As in Linkerd's installer, an existing file wins over the variable.
            Path path = Path.of(file.get());
            byte[] bytes;
            try {
                bytes = PodVolumeFiles.read(path, YamlDocument.MAX_BYTES);
            }
            catch (CniChainException e) {
                throw new CniChainException(ErrorCode.BAD_CONFIG, path, "(" + FILE_VARIABLE + ") " + e.reason());
            }
            PluginEntry entry = fromJson(bytes, FILE_VARIABLE + " " + path,
                    reason -> new CniChainException(ErrorCode.BAD_CONFIG, path, "(" + FILE_VARIABLE + ") " + reason));
            return Optional.of(new SettingValues.Sourced<>(entry, "environment variable " + FILE_VARIABLE));
        }
        if (json.isPresent()) {
            String source = "environment variable " + JSON_VARIABLE;
            return Optional.of(new SettingValues.Sourced<>(parse(json.get(), source), source));
        }
        if (file.isPresent()) {
            throw new CniChainException(ErrorCode.BAD_CONFIG, Path.of(file.get()),
                    "(" + FILE_VARIABLE + ") does not exist or is not a regular file, and " + JSON_VARIABLE + " is not set");
        }
        return Optional.empty();
    }

    @Override
    public PluginEntry fromYaml(YamlValue section)
    {
        section.allowOnly(Set.of("type", "config"));
        YamlValue typeValue = section.at("type");
        if (typeValue.isNull()) {
            throw typeValue.error("is required: the chained plugin's type, for example linkerd-cni");
        }
        String type = typeValue.scalar();
        if (!BINARY_NAME.matcher(type).matches()) {
            throw ConfigErrors.bad(typeValue.source(), quoted(type) + " is not a plain binary name (" + BINARY_NAME_RULE + ")");
        }
        Optional<YamlValue> configSection = section.child("config");
        Map<String, YamlValue> config = configSection.isPresent() ? configSection.get().entries() : Map.of();
        if (config.containsKey("type")) {
            throw section.at("config").error("must not repeat 'type'; set plugin.type instead");
        }
        ObjectNode entry = CniJson.nodes().objectNode();
        if (config.containsKey("name")) {
            entry.set("name", tree(config.get("name")));
        }
        entry.put("type", type);
        for (Map.Entry<String, YamlValue> member : config.entrySet()) {
            if (!member.getKey().equals("name")) {
                entry.set(member.getKey(), tree(member.getValue()));
            }
        }
        String where = "the 'plugin' section of " + section.file();
        libcniFields(entry).ifPresent(problem -> {
            throw section.at("config").error(problem);
        });
        return new PluginEntry(entry, where);
    }

    /**
     * The entry's members that libcni decodes into typed fields, checked as Go's decoder would: a value of the wrong type
     * fails the whole configuration list, on every pod, once the entry is in it.
     *
     * @return what is wrong, if anything
     */
    static Optional<String> libcniFields(ObjectNode entry)
    {
        for (String text : List.of("name", "cniVersion")) {
            JsonNode value = entry.get(text);
            if (value != null && !value.isNull() && !value.isTextual()) {
                return Optional.of("'" + text + "' must be a string, as libcni reads it");
            }
        }
        JsonNode ipam = entry.get("ipam");
        if (ipam != null && !ipam.isNull() && (!ipam.isObject() || (ipam.has("type") && !ipam.get("type").isTextual() && !ipam.get("type").isNull()))) {
            return Optional.of("'ipam' must be an object whose 'type' is a string, as libcni reads it; the runtime would refuse the whole list");
        }
        JsonNode dns = entry.get("dns");
        if (dns != null && !dns.isNull() && !dns.isObject()) {
            return Optional.of("'dns' must be an object, as libcni reads it; the runtime would refuse the whole list");
        }
        JsonNode capabilities = entry.get("capabilities");
        if (capabilities != null && !capabilities.isNull()) {
            if (!capabilities.isObject()) {
                return Optional.of("'capabilities' must be an object of booleans, as libcni reads it; the runtime would refuse the whole list");
            }
            for (JsonNode flag : capabilities) {
                if (!flag.isBoolean() && !flag.isNull()) {
                    return Optional.of("'capabilities' must be an object of booleans, as libcni reads it; the runtime would refuse the whole list");
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public String format(PluginEntry value)
    {
        return CniJson.compact(value.template());
    }

    @Override
    public List<String> yamlKeys(String key)
    {
        return List.of(key + ".type", key + ".config");
    }

    private static PluginEntry fromJson(byte[] bytes, String entrySource, Function<String, CniChainException> error)
    {
        JsonNode node;
        try {
            node = CniJson.parse(bytes);
        }
        catch (CniJson.InvalidJsonException e) {
            throw error.apply("the chained plugin entry " + e.getMessage());
        }
        rejectDuplicateKeys(bytes, error);
        if (!(node instanceof ObjectNode object)) {
            throw error.apply("the chained plugin entry must be a JSON object");
        }
        JsonNode type = object.get("type");
        if (type == null || !type.isTextual() || type.asText().isBlank()) {
            throw error.apply("the chained plugin entry has no 'type'");
        }
        if (!BINARY_NAME.matcher(type.asText()).matches()) {
            throw error.apply("the chained plugin entry's type " + quoted(type.asText()) + " is not a plain binary name (" + BINARY_NAME_RULE + ")");
        }
        Optional<String> wrong = libcniFields(object);
        if (wrong.isPresent()) {
            throw error.apply("the chained plugin entry's " + wrong.get());
        }
        return new PluginEntry(object, entrySource);
    }

    private static void rejectDuplicateKeys(byte[] bytes, Function<String, CniChainException> error)
    {
        try {
            CniJson.requireUniqueKeys(bytes);
        }
        catch (JsonParseException e) {
            Matcher key = DUPLICATE_KEY.matcher(String.valueOf(e.getOriginalMessage()));
            String what = key.matches() ? "has the key " + quoted(key.group(1)) + " twice" : "is refused: " + e.getOriginalMessage();
            throw error.apply("the chained plugin entry " + what + " (line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr() + ")");
        }
    }

    private static JsonNode tree(YamlValue value)
    {
        try {
            return JsonTrees.toTree(value.raw());
        }
        catch (IllegalArgumentException e) {
            throw value.error("cannot be written as JSON: " + e.getMessage());
        }
    }
}
