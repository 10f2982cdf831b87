package io.cnichain.core.config;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** The settings' values as the sources set them, each with where it came from; a later source overwrites. */
final class SettingValues
{
    private final Map<Setting<?>, Sourced<?>> values = new HashMap<>();

    <T> void set(Setting<T> setting, Sourced<T> value)
    {
        values.put(setting, value);
    }

    /** The value set, or the setting's default (with the source {@value AdapterChoice#DEFAULT_SOURCE}). */
    <T> Optional<Sourced<T>> get(Setting<T> setting)
    {
        @SuppressWarnings("unchecked") // set() only stores a setting with a value of its own type
        Sourced<T> value = (Sourced<T>) values.get(setting);
        if (value != null) {
            return Optional.of(value);
        }
        Optional<T> fallback = setting.defaultValue();
        return fallback.isPresent() ? Optional.of(new Sourced<>(fallback.get(), AdapterChoice.DEFAULT_SOURCE)) : Optional.empty();
    }

    /** The value of a setting that has a default. */
    <T> T value(Setting<T> setting)
    {
        Optional<Sourced<T>> value = get(setting);
        if (value.isEmpty()) {
            throw new IllegalStateException(setting + " has no default");
        }
        return value.get().value();
    }

    /** The value of a setting without a default, if a source set it. */
    <T> Optional<T> optional(Setting<T> setting)
    {
        Optional<Sourced<T>> value = get(setting);
        return value.isPresent() ? Optional.of(value.get().value()) : Optional.empty();
    }

    /**
     * A value and where it came from.
     *
     * @param value  the value
     * @param source {@code --flag}, {@code environment variable NAME}, {@code <file>: key 'key'} or {@code default}
     */
    record Sourced<T>(T value, String source)
    {
        Sourced
        {
            requireNonNull(value, "value is null");
            requireNonNull(source, "source is null");
        }
    }
}
