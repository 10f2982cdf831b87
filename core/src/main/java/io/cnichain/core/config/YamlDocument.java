package io.cnichain.core.config;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.fs.PodVolumeFiles;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The YAML configuration file: read strictly (no duplicate keys, few aliases, bounded size), checked against the
 * keys of the settings table, and looked up by dotted key.
 */
final class YamlDocument
{
    static final long MAX_BYTES = 1024 * 1024;

    private final YamlValue root;
    private final String digest;

    private YamlDocument(YamlValue root, String digest)
    {
        this.root = root;
        this.digest = digest;
    }

    /** @return the SHA-256 of the bytes read */
    String digest()
    {
        return digest;
    }

    /**
     * @param file the YAML file
     * @return its content; an empty file is an empty mapping
     * @throws CniChainException {@link ErrorCode#BAD_CONFIG} when it cannot be read, is not YAML or not a mapping
     */
    static YamlDocument read(Path file)
    {
        byte[] bytes;
        try {
            bytes = PodVolumeFiles.read(file, MAX_BYTES);
        }
        catch (CniChainException e) {
            throw new CniChainException(ErrorCode.BAD_CONFIG, file, e.reason());
        }
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(20);
        // Strictly: a byte that is not UTF-8 would become U+FFFD in a value, and so in the runtime's file.
        java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(bytes);
        java.nio.CharBuffer decoded = java.nio.CharBuffer.allocate(bytes.length);
        if (StandardCharsets.UTF_8.newDecoder().decode(in, decoded, true).isError()) {
            throw new CniChainException(ErrorCode.BAD_CONFIG, file, "is not UTF-8 text: byte " + (in.position() + 1) + " begins no UTF-8 character; "
                    + "save the file as UTF-8");
        }
        String text = decoded.flip().toString();
        Object loaded;
        try {
            loaded = load(text, options);
        }
        catch (MarkedYAMLException e) {
            // The problem and where it is ("found duplicate key logLevel", line 3), not the construct it was found in.
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String problem = e.getProblem() != null ? e.getProblem() : String.valueOf(e.getContext());
            throw new CniChainException(ErrorCode.BAD_CONFIG, file, "is not valid YAML: " + problem.strip()
                    + (mark != null ? " (line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1) + ")" : ""));
        }
        catch (YAMLException e) {
            String message = String.valueOf(e.getMessage());
            throw new CniChainException(ErrorCode.BAD_CONFIG, file, "is not valid YAML: " + message.lines().findFirst().orElse("")
                    + (message.contains("line ") ? " (" + lineOf(message) + ")" : ""));
        }
        if (loaded == null) {
            return new YamlDocument(new YamlValue(file, "", Map.of()), ConfigDigest.of(bytes));
        }
        if (!(loaded instanceof Map<?, ?>)) {
            throw new CniChainException(ErrorCode.BAD_CONFIG, file, "must be a YAML mapping of settings, not a " + ConfigErrors.kind(loaded));
        }
        rejectCycles(file, loaded, "", java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
        return new YamlDocument(new YamlValue(file, "", loaded), ConfigDigest.of(bytes));
    }

    /**
     * What {@code new Yaml(new SafeConstructor(options)).load(text)} does, without the {@code Yaml} facade: the facade
     * also builds a representer for dumping (its classes, its property introspection and {@code java.beans}), classes
     * the agent never uses, which the AOT cache would otherwise load at every start.
     */
    private static Object load(String text, LoaderOptions options)
    {
        SafeConstructor constructor = new SafeConstructor(options);
        constructor.setAllowDuplicateKeys(options.isAllowDuplicateKeys());
        constructor.setWarnOnDuplicateKeys(options.isWarnOnDuplicateKeys());
        constructor.setWrappedToRootException(options.isWrappedToRootException());
        constructor.setComposer(new Composer(new ParserImpl(new StreamReader(text), options), new Resolver(), options));
        return constructor.getSingleData(Object.class);
    }

    /**
     * An alias to a node that contains it ({@code config: &a {self: *a}}) loads as a mapping that holds itself: every
     * later walk of it would never end. Refused here, naming the key.
     */
    private static void rejectCycles(Path file, Object value, String key, Set<Object> onPath)
    {
        if (!(value instanceof Map<?, ?>) && !(value instanceof List<?>)) {
            return;
        }
        if (!onPath.add(value)) {
            throw new CniChainException(ErrorCode.BAD_CONFIG, file, (key.isEmpty() ? "the document" : "key " + key)
                    + ": a YAML alias refers to a mapping or list that contains it (recursive); write the value out instead");
        }
        if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                rejectCycles(file, entry.getValue(), key.isEmpty() ? String.valueOf(entry.getKey()) : key + "." + entry.getKey(), onPath);
            }
        }
        else {
            int index = 0;
            for (Object element : (List<?>) value) {
                rejectCycles(file, element, key + "[" + index++ + "]", onPath);
            }
        }
        onPath.remove(value);
    }

    /**
     * Refuses every key that is neither a setting's key nor a section on the way to one ({@code kubeconfig}).
     * What lies under a setting's own key is the setting type's to check.
     *
     * @param settingKeys the dotted keys of the settings
     */
    void rejectUnknownKeys(Collection<String> settingKeys)
    {
        rejectUnknownKeys(root, Set.copyOf(settingKeys));
    }

    private static void rejectUnknownKeys(YamlValue section, Set<String> settingKeys)
    {
        String prefix = section.key().isEmpty() ? "" : section.key() + ".";
        Set<String> known = new LinkedHashSet<>();
        for (String key : settingKeys) {
            if (key.startsWith(prefix)) {
                known.add(key.substring(prefix.length()).split("\\.", 2)[0]);
            }
        }
        section.allowOnly(known);
        for (YamlValue child : section.entries().values()) {
            if (!settingKeys.contains(child.key()) && !child.isNull()) {
                rejectUnknownKeys(child, settingKeys);
            }
        }
    }

    /**
     * @param dottedKey a setting's key, such as {@code kubeconfig.mode}
     * @return its value; empty when the key, or a section on the way to it, is missing or has no value
     */
    Optional<YamlValue> find(String dottedKey)
    {
        YamlValue value = root;
        for (String name : dottedKey.split("\\.")) {
            Optional<YamlValue> child = value.child(name);
            if (child.isEmpty()) {
                return Optional.empty();
            }
            value = child.get();
        }
        return Optional.of(value);
    }

    private static String lineOf(String message)
    {
        return message.lines().filter(l -> l.contains("line ")).map(String::trim).findFirst().orElse("");
    }
}
