package io.cnichain.core.config;

import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import static io.cnichain.core.config.ConfigErrors.bad;
import static io.cnichain.core.config.ConfigErrors.quoted;

/**
 * The type of a setting's value: how it is read from text (an environment variable, a flag) and from the YAML file,
 * how it is checked, and how its default is written in the reference. Every failure is an error naming the source.
 *
 * @param <T> the value's type
 */
sealed interface SettingType<T>
        permits SettingType.AbsolutePath, SettingType.PathList, SettingType.Bool, SettingType.WholeNumber, SettingType.Seconds,
        SettingType.OneOf, NetworkTypes.PortNumber, NetworkTypes.IpAddress, NetworkTypes.ListenAddress, KubeconfigTypes.FileName,
        KubeconfigTypes.Mode, ApiServerHost, AdapterTypes.Choice, AdapterTypes.SettingsByAdapter, AdapterTypes.Overrides, PluginEntryType,
        NodeTaintTypes.TaintKey, NodeTaintTypes.ObjectName, SettingType.CleanupModes, SettingType.Placements
{
    /**
     * @param text   the value of an environment variable or a flag
     * @param source its name, for errors ({@code --conf-dir}, {@code environment variable DEST_CNI_NET_DIR})
     * @return the value
     */
    T parse(String text, String source);

    /** Reads the value of the setting's key in the YAML file; by default a single value, read as text. */
    default T fromYaml(YamlValue value)
    {
        return parse(value.scalar(), value.source());
    }

    /**
     * Reads the setting from its environment variables; by default from the first that is set and not empty.
     *
     * @return the value and its source, if any variable is set
     */
    default Optional<SettingValues.Sourced<T>> fromEnvironment(List<String> variables, Map<String, String> env)
    {
        for (String variable : variables) {
            String text = env.get(variable);
            if (text != null && !text.isEmpty()) {
                String source = "environment variable " + variable;
                return Optional.of(new SettingValues.Sourced<>(parse(text, source), source));
            }
        }
        return Optional.empty();
    }

    /** The value as the YAML file writes it, for the reference table. */
    String format(T value);

    /** The keys of the setting in the YAML file: its own, or those of its section. */
    default List<String> yamlKeys(String key)
    {
        return List.of(key);
    }

    /** The keys as the reference shows them ({@code adapters.<name>}). */
    default List<String> documentedKeys(String key)
    {
        return yamlKeys(key);
    }

    /**
     * The value a negating flag ({@code --no-cleanup}) gives, for the types that have one.
     *
     * @param given whether the flag was given
     * @return the value; empty when this type has no negating flag
     */
    default Optional<T> negated(boolean given)
    {
        return Optional.empty();
    }

    /** Whether values can come as text (environment, flags); otherwise only the YAML file sets them. */
    default boolean readsText()
    {
        return true;
    }

    /** A path that must be absolute; it is normalized. */
    record AbsolutePath() implements SettingType<Path>
    {
        @Override
        public Path parse(String text, String source)
        {
            if (text.isBlank()) {
                throw bad(source, "is empty; it must be an absolute path");
            }
            if (text.indexOf('\0') >= 0) {
                throw bad(source, "contains a NUL character");
            }
            Path path = Path.of(text);
            if (!path.isAbsolute()) {
                throw bad(source, quoted(text) + " is not an absolute path");
            }
            return path.normalize();
        }

        @Override
        public String format(Path value)
        {
            return value.toString();
        }
    }

    /** One absolute path or a list of them. */
    record PathList() implements SettingType<List<Path>>
    {
        @Override
        public List<Path> parse(String text, String source)
        {
            return List.of(new AbsolutePath().parse(text, source));
        }

        @Override
        public List<Path> fromYaml(YamlValue value)
        {
            List<Path> paths = new ArrayList<>();
            for (String item : value.scalarOrList("paths")) {
                paths.add(new AbsolutePath().parse(item, value.source()));
            }
            return paths;
        }

        @Override
        public String format(List<Path> value)
        {
            return value.toString();
        }
    }

    /** {@code true} or {@code false}, in any case. */
    record Bool() implements SettingType<Boolean>
    {
        @Override
        public Boolean parse(String text, String source)
        {
            return switch (text.toLowerCase(Locale.ROOT)) {
                case "true" -> true;
                case "false" -> false;
                default -> throw bad(source, quoted(text) + " is not true or false");
            };
        }

        @Override
        public Boolean fromYaml(YamlValue value)
        {
            return value.raw() instanceof Boolean b ? b : parse(value.scalar(), value.source());
        }

        @Override
        public Optional<Boolean> negated(boolean given)
        {
            return Optional.of(!given);
        }

        @Override
        public String format(Boolean value)
        {
            return value.toString();
        }
    }

    /** A whole number within bounds; in the YAML file a number, not a string. */
    record WholeNumber(long min, long max) implements SettingType<Long>
    {
        @Override
        public Long parse(String text, String source)
        {
            long n;
            try {
                n = Long.parseLong(text.trim());
            }
            catch (NumberFormatException e) {
                throw bad(source, quoted(text) + " is not a whole number");
            }
            return inRange(n, source);
        }

        @Override
        public Long fromYaml(YamlValue value)
        {
            if (!(value.raw() instanceof Integer || value.raw() instanceof Long || value.raw() instanceof BigInteger)) {
                throw value.error(quoted(value.scalar()) + " is not a whole number");
            }
            BigInteger n = new BigInteger(value.raw().toString());
            if (n.compareTo(BigInteger.valueOf(min)) < 0 || n.compareTo(BigInteger.valueOf(max)) > 0) {
                throw value.error("is " + n + ", outside " + min + ".." + max);
            }
            return n.longValue();
        }

        private long inRange(long n, String source)
        {
            if (n < min || n > max) {
                throw bad(source, n + " is outside " + min + ".." + max);
            }
            return n;
        }

        @Override
        public String format(Long value)
        {
            return value.toString();
        }
    }

    /** A duration in whole seconds within bounds. */
    record Seconds(long min, long max) implements SettingType<Duration>
    {
        @Override
        public Duration parse(String text, String source)
        {
            return Duration.ofSeconds(new WholeNumber(min, max).parse(text, source));
        }

        @Override
        public Duration fromYaml(YamlValue value)
        {
            return Duration.ofSeconds(new WholeNumber(min, max).fromYaml(value));
        }

        @Override
        public String format(Duration value)
        {
            return Long.toString(value.toSeconds());
        }
    }

    /** One of a few words, such as a log level. */
    record OneOf(Set<String> allowed) implements SettingType<String>
    {
        public OneOf
        {
            allowed = Set.copyOf(allowed);
        }

        @Override
        public String parse(String text, String source)
        {
            if (!allowed.contains(text)) {
                throw bad(source, quoted(text) + " is not one of " + new TreeSet<>(allowed));
            }
            return text;
        }

        @Override
        public String format(String value)
        {
            return value;
        }
    }

    /**
     * {@code auto}, {@code always} or {@code never}; {@code true} and {@code false}, the values before {@code auto}
     * existed, still mean {@code always} and {@code never}.
     */
    record CleanupModes() implements SettingType<CleanupMode>
    {
        @Override
        public CleanupMode parse(String text, String source)
        {
            return switch (text.toLowerCase(Locale.ROOT)) {
                case "auto" -> CleanupMode.AUTO;
                case "always", "true" -> CleanupMode.ALWAYS;
                case "never", "false" -> CleanupMode.NEVER;
                default -> throw bad(source, quoted(text) + " is not auto, always or never");
            };
        }

        @Override
        public CleanupMode fromYaml(YamlValue value)
        {
            return value.raw() instanceof Boolean b ? (b ? CleanupMode.ALWAYS : CleanupMode.NEVER) : parse(value.scalar(), value.source());
        }

        @Override
        public Optional<CleanupMode> negated(boolean given)
        {
            return Optional.of(given ? CleanupMode.NEVER : CleanupMode.AUTO);
        }

        @Override
        public String format(CleanupMode value)
        {
            return value.yaml();
        }
    }

    /** {@code patch}, {@code drop-in} or {@code auto}. */
    record Placements() implements SettingType<Placement>
    {
        @Override
        public Placement parse(String text, String source)
        {
            for (Placement placement : Placement.values()) {
                if (placement.yaml().equals(text.toLowerCase(Locale.ROOT))) {
                    return placement;
                }
            }
            throw bad(source, quoted(text) + " is not patch, drop-in or auto");
        }

        @Override
        public String format(Placement value)
        {
            return value.yaml();
        }
    }
}
