package io.cnichain.core.config;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import static java.util.Objects.requireNonNull;

/**
 * One value of the YAML file with its dotted key ({@code kubeconfig.mode}), so that every error names the file and
 * the key.
 *
 * @param file the YAML file
 * @param key  the dotted key, empty for the whole file
 * @param raw  the value as snakeyaml loaded it; {@code null} when the key is given without a value
 */
record YamlValue(Path file, String key, Object raw)
{
    YamlValue
    {
        requireNonNull(file, "file is null");
        requireNonNull(key, "key is null");
    }

    /** The source for messages: {@code <file>: key 'kubeconfig.mode'}. */
    String source()
    {
        return file + ": key '" + key + "'";
    }

    /**
     * @param reason what is wrong, read after the key ("is required: ...")
     * @return the error {@code <file>: key '<key>' <reason>}
     */
    CniChainException error(String reason)
    {
        return new CniChainException(ErrorCode.BAD_CONFIG, file, "key '" + key + "' " + reason);
    }

    /** Whether the key is given without a value, which means "not set". */
    boolean isNull()
    {
        return raw == null;
    }

    /** The value as text; a list or a mapping is an error. */
    String scalar()
    {
        if (raw == null) {
            throw error("has no value");
        }
        if (raw instanceof Map<?, ?> || raw instanceof List<?>) {
            throw error("must be a single value, not a " + ConfigErrors.kind(raw));
        }
        return String.valueOf(raw);
    }

    /**
     * @param what what the list holds, for the message ("names", "paths")
     * @return a single value as a list of one, or a list of single values
     */
    List<String> scalarOrList(String what)
    {
        if (!(raw instanceof List<?> list)) {
            return List.of(scalar());
        }
        List<String> items = new ArrayList<>();
        for (Object item : list) {
            if (item == null || item instanceof Map<?, ?> || item instanceof List<?>) {
                throw error("must be a list of " + what);
            }
            items.add(String.valueOf(item));
        }
        return items;
    }

    /** The entries of a mapping, in file order, each with its dotted key. */
    Map<String, YamlValue> entries()
    {
        if (!(raw instanceof Map<?, ?> map)) {
            throw error("must be a mapping, not a " + ConfigErrors.kind(raw));
        }
        Map<String, YamlValue> entries = new LinkedHashMap<>();
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            String name = String.valueOf(entry.getKey());
            entries.put(name, new YamlValue(file, key.isEmpty() ? name : key + "." + name, entry.getValue()));
        }
        return entries;
    }

    /**
     * @param name a key of this mapping
     * @return its value; empty when it is missing or has no value
     */
    Optional<YamlValue> child(String name)
    {
        YamlValue value = at(name);
        return value.isNull() ? Optional.empty() : Optional.of(value);
    }

    /**
     * @param name a key of this mapping
     * @return its value, without a value ({@link #isNull()}) when it is missing
     */
    YamlValue at(String name)
    {
        YamlValue value = entries().get(name);
        return value != null ? value : new YamlValue(file, key.isEmpty() ? name : key + "." + name, null);
    }

    /**
     * @param known the keys this mapping may hold
     * @throws CniChainException naming the first other key and listing the known ones
     */
    void allowOnly(Set<String> known)
    {
        for (String name : entries().keySet()) {
            if (!known.contains(name)) {
                String dotted = key.isEmpty() ? name : key + "." + name;
                throw new CniChainException(ErrorCode.BAD_CONFIG, file, "unknown key '" + dotted + "' (known keys: "
                        + String.join(", ", new TreeSet<>(known)) + ")");
            }
        }
    }
}
