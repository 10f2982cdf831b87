package io.cnichain.core.config;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One setting of the agent, a row of {@link Settings}: where it can be given (a YAML key, environment variables, a
 * flag), its type, its default and what it means.
 *
 * @param <T> the value's type
 */
public final class Setting<T>
{
    private final Optional<String> yamlKey;
    private final List<String> environment;
    private final Optional<Flag> flag;
    private final SettingType<T> type;
    private final Optional<T> defaultValue;
    private final String defaultDoc;
    private final String doc;

    private Setting(Optional<String> yamlKey, List<String> environment, Optional<Flag> flag, SettingType<T> type, Optional<T> defaultValue,
            String defaultDoc, String doc)
    {
        this.yamlKey = requireNonNull(yamlKey, "yamlKey is null");
        this.environment = List.copyOf(environment);
        this.flag = requireNonNull(flag, "flag is null");
        this.type = requireNonNull(type, "type is null");
        this.defaultValue = requireNonNull(defaultValue, "defaultValue is null");
        this.defaultDoc = requireNonNull(defaultDoc, "defaultDoc is null");
        this.doc = requireNonNull(doc, "doc is null");
        if (yamlKey.isEmpty() && environment.isEmpty() && flag.isEmpty()) {
            throw new IllegalArgumentException("a setting needs a YAML key, an environment variable or a flag: " + doc);
        }
        if (!type.readsText() && (!environment.isEmpty() || flag.isPresent())) {
            throw new IllegalArgumentException(this + ": its type is read from the YAML file only");
        }
        if (flag.isPresent() && flag.get().negates() && type.negated(true).isEmpty()) {
            throw new IllegalArgumentException(this + ": its type has no negating flag");
        }
    }

    /** A setting of the YAML file with a default, shown as the YAML file writes it. */
    static <T> Setting<T> of(String yamlKey, SettingType<T> type, T defaultValue, String doc)
    {
        return new Setting<>(Optional.of(yamlKey), List.of(), Optional.empty(), type, Optional.of(defaultValue),
                "`" + type.format(defaultValue) + "`", doc);
    }

    /** A setting of the YAML file without a fixed default; {@code defaultDoc} says what applies instead. */
    static <T> Setting<T> withoutDefault(String yamlKey, SettingType<T> type, String defaultDoc, String doc)
    {
        return new Setting<>(Optional.of(yamlKey), List.of(), Optional.empty(), type, Optional.empty(), defaultDoc, doc);
    }

    /** A setting only the environment gives, with a default. */
    static <T> Setting<T> environmentOnly(String variable, SettingType<T> type, T defaultValue, String doc)
    {
        return new Setting<>(Optional.empty(), List.of(variable), Optional.empty(), type, Optional.of(defaultValue),
                "`" + type.format(defaultValue) + "`", doc);
    }

    /** A setting only the environment gives, without a default; {@code defaultDoc} says what applies instead. */
    static <T> Setting<T> environmentOnlyWithoutDefault(String variable, SettingType<T> type, String defaultDoc, String doc)
    {
        return new Setting<>(Optional.empty(), List.of(variable), Optional.empty(), type, Optional.empty(), defaultDoc, doc);
    }

    /** This setting, also read from these environment variables. */
    Setting<T> env(String... variables)
    {
        return new Setting<>(yamlKey, List.of(variables), flag, type, defaultValue, defaultDoc, doc);
    }

    /** This setting, with its default described so in the reference (Markdown). */
    Setting<T> defaultDoc(String markdown)
    {
        return new Setting<>(yamlKey, environment, flag, type, defaultValue, markdown, doc);
    }

    /**
     * This setting, also given by a flag of every command that works on a node.
     *
     * @param label what the value is, in {@code --help} ({@code DIR})
     */
    Setting<T> commonFlag(String name, String label)
    {
        return withFlag(new Flag(name, label, FlagScope.COMMON, false, false));
    }

    /** {@link #commonFlag}, for a flag that may be given more than once, with comma-separated values that add up. */
    Setting<T> commonListFlag(String name, String label)
    {
        return withFlag(new Flag(name, label, FlagScope.COMMON, false, true));
    }

    /** This setting, also given by a flag of {@code run}. */
    Setting<T> runFlag(String name, String label)
    {
        return withFlag(new Flag(name, label, FlagScope.RUN, false, false));
    }

    /** This true/false setting, set to false by a flag of {@code run} that takes no value. */
    Setting<T> negatingRunFlag(String name)
    {
        return withFlag(new Flag(name, "", FlagScope.RUN, true, false));
    }

    private Setting<T> withFlag(Flag flag)
    {
        return new Setting<>(yamlKey, environment, Optional.of(flag), type, defaultValue, defaultDoc, doc);
    }

    /** The key in the YAML file, dotted ({@code kubeconfig.mode}); empty for a setting only the environment gives. */
    public Optional<String> yamlKey()
    {
        return yamlKey;
    }

    /** The keys in the YAML file: the key, or the keys of its section ({@code plugin.type}, {@code plugin.config}). */
    public List<String> yamlKeys()
    {
        return yamlKey.map(type::yamlKeys).orElse(List.of());
    }

    /** The keys as the reference shows them ({@code adapters.<name>}). */
    public List<String> documentedKeys()
    {
        return yamlKey.map(type::documentedKeys).orElse(List.of());
    }

    /** The environment variables, in the order they are read (Linkerd's {@code linkerd2-cni} names). */
    public List<String> environment()
    {
        return environment;
    }

    public Optional<Flag> flag()
    {
        return flag;
    }

    /** The default as the YAML file writes it; empty when the default is computed or comes from elsewhere. */
    public Optional<String> defaultText()
    {
        return defaultValue.map(type::format);
    }

    /** The default for the reference (Markdown). */
    public String defaultDoc()
    {
        return defaultDoc;
    }

    /** What the setting means (Markdown, one line). */
    public String doc()
    {
        return doc;
    }

    SettingType<T> type()
    {
        return type;
    }

    Optional<T> defaultValue()
    {
        return defaultValue;
    }

    /**
     * @param text the flag's value; {@code true} for a flag without a value
     * @return the setting's value
     */
    T fromFlag(String text)
    {
        if (flag.isEmpty()) {
            throw new IllegalStateException(this + " has no flag");
        }
        Flag given = flag.get();
        if (given.negates()) {
            return type.negated(new SettingType.Bool().parse(text, given.name())).orElseThrow();
        }
        return type.parse(text, given.name());
    }

    /** @return for a negating flag, the value it gives the setting, as the YAML file would write it */
    public Optional<String> negatedText()
    {
        return flag.filter(Flag::negates).map(given -> type.format(fromFlag("true")));
    }

    @Override
    public String toString()
    {
        return yamlKey.or(() -> environment.stream().findFirst()).orElseGet(() -> flag.orElseThrow().name());
    }

    /**
     * A command-line flag: everything the command line needs to declare it ({@code cli}'s {@code Flags}).
     *
     * @param name    {@code --host-root}
     * @param label   what its value is, in {@code --help} ({@code DIR}); empty for a flag without a value
     * @param scope   which commands take it
     * @param negates whether it takes no value and sets the setting to false ({@code --no-cleanup})
     * @param repeats whether it may be given more than once, with comma-separated values that add up
     */
    public record Flag(String name, String label, FlagScope scope, boolean negates, boolean repeats)
    {
        public Flag
        {
            requireNonNull(name, "name is null");
            requireNonNull(label, "label is null");
            requireNonNull(scope, "scope is null");
        }
    }

    /** Which commands take a flag. */
    public enum FlagScope
    {
        /** Every command that works on a node: {@code run}, {@code install}, {@code uninstall}, {@code detect}, {@code adapters}. */
        COMMON,
        /** {@code run} only. */
        RUN
    }
}
