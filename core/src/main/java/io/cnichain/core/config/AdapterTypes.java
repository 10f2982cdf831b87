package io.cnichain.core.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static io.cnichain.core.config.ConfigErrors.bad;
import static io.cnichain.core.config.ConfigErrors.quoted;

/** The types of the adapter settings: which adapter decides, what each is told, and who provides a name given twice. */
final class AdapterTypes
{
    static final Pattern ADAPTER_NAME = Pattern.compile("[a-z0-9][a-z0-9-]*");
    static final Pattern PLUGIN_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    static final String BUILT_IN = "built-in";

    private AdapterTypes() {}

    /** {@code auto}, one adapter name, or a list of names (in YAML a list, as text comma-separated). */
    record Choice() implements SettingType<AdapterChoice>
    {
        @Override
        public AdapterChoice parse(String text, String source)
        {
            return choice(List.of(text.split(",", -1)), source);
        }

        @Override
        public AdapterChoice fromYaml(YamlValue value)
        {
            return choice(value.scalarOrList("names"), value.source());
        }

        private static AdapterChoice choice(List<String> names, String source)
        {
            if (names.isEmpty()) {
                throw bad(source, "names no adapter; use 'auto', a name or a list of names");
            }
            if (names.size() == 1 && names.get(0).equals(AdapterChoice.AUTO)) {
                return new AdapterChoice(List.of(), source);
            }
            for (String name : names) {
                if (name.equals(AdapterChoice.AUTO)) {
                    throw bad(source, "'auto' cannot be part of a list of adapters");
                }
                if (!ADAPTER_NAME.matcher(name).matches()) {
                    throw bad(source, quoted(name) + " is not an adapter name (lower-case letters, digits and dashes)");
                }
            }
            if (names.stream().distinct().count() != names.size()) {
                throw bad(source, "names an adapter twice: " + names);
            }
            return new AdapterChoice(names, source);
        }

        @Override
        public String format(AdapterChoice value)
        {
            return value.toString();
        }
    }

    /** {@code adapters.<name>}: each adapter's settings, plain strings; the adapter checks the keys. */
    record SettingsByAdapter() implements SettingType<Map<String, Map<String, String>>>
    {
        @Override
        public Map<String, Map<String, String>> parse(String text, String source)
        {
            throw new UnsupportedOperationException("adapter settings are read from the YAML file only");
        }

        @Override
        public Map<String, Map<String, String>> fromYaml(YamlValue value)
        {
            Map<String, Map<String, String>> settings = new LinkedHashMap<>();
            for (Map.Entry<String, YamlValue> adapter : value.entries().entrySet()) {
                if (!ADAPTER_NAME.matcher(adapter.getKey()).matches()) {
                    throw adapter.getValue().error("is not an adapter name");
                }
                Map<String, String> values = new LinkedHashMap<>();
                if (!adapter.getValue().isNull()) {
                    adapter.getValue().entries().forEach((key, setting) -> values.put(key, setting.scalar()));
                }
                settings.put(adapter.getKey(), values);
            }
            return settings;
        }

        @Override
        public String format(Map<String, Map<String, String>> value)
        {
            return value.isEmpty() ? "{}" : value.toString();
        }

        @Override
        public List<String> documentedKeys(String key)
        {
            return List.of(key + ".<name>");
        }

        @Override
        public boolean readsText()
        {
            return false;
        }
    }

    /** {@code adapterOverrides.<name>}: {@code built-in} or the Plugin-Id of the plugin that provides the name. */
    record Overrides() implements SettingType<Map<String, String>>
    {
        @Override
        public Map<String, String> parse(String text, String source)
        {
            throw new UnsupportedOperationException("adapter overrides are read from the YAML file only");
        }

        @Override
        public Map<String, String> fromYaml(YamlValue value)
        {
            Map<String, String> overrides = new LinkedHashMap<>();
            for (Map.Entry<String, YamlValue> adapter : value.entries().entrySet()) {
                if (!ADAPTER_NAME.matcher(adapter.getKey()).matches()) {
                    throw adapter.getValue().error("is not an adapter name");
                }
                String winner = adapter.getValue().scalar();
                if (!winner.equals(BUILT_IN) && !PLUGIN_ID.matcher(winner).matches()) {
                    throw adapter.getValue().error(quoted(winner) + " is neither built-in nor a plugin's Plugin-Id");
                }
                overrides.put(adapter.getKey(), winner);
            }
            return overrides;
        }

        @Override
        public String format(Map<String, String> value)
        {
            return value.isEmpty() ? "{}" : value.toString();
        }

        @Override
        public List<String> documentedKeys(String key)
        {
            return List.of(key + ".<name>");
        }

        @Override
        public boolean readsText()
        {
            return false;
        }
    }
}
