package io.cnichain.cli;

import io.cnichain.core.config.Setting;
import io.cnichain.core.config.Settings;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The command line's flags, each declared once: those that set configuration come from the settings table
 * ({@link Settings}, which also holds their YAML key, variable, default and meaning), and two belong to the command
 * line itself ({@code --config}, {@code --stacktrace}). picocli's options are built from them, and what was given is
 * read back by name for the configuration loader.
 */
final class Flags
{
    static final String CONFIG = "--config";
    static final String STACKTRACE = "--stacktrace";

    private Flags() {}

    /** Adds the flags a command takes: every node command the common ones, {@code run} its own too. */
    static void addTo(CommandSpec spec, boolean run)
    {
        List<OptionSpec> own = new ArrayList<>();
        List<OptionSpec> common = new ArrayList<>();
        for (Setting<?> setting : Settings.ALL) {
            Optional<Setting.Flag> flag = setting.flag();
            if (flag.isPresent()) {
                if (flag.get().scope() == Setting.FlagScope.RUN && run) {
                    own.add(option(setting, flag.get()));
                }
                else if (flag.get().scope() == Setting.FlagScope.COMMON) {
                    common.add(option(setting, flag.get()));
                }
            }
        }
        own.forEach(spec::addOption);
        spec.addOption(OptionSpec.builder(CONFIG).paramLabel("FILE").type(Path.class)
                .description("YAML configuration file (see conf/cni-chain.yaml for every key).").build());
        common.forEach(spec::addOption);
        spec.addOption(OptionSpec.builder(STACKTRACE).arity("0").type(boolean.class).description("Print the stack trace of an error.").build());
    }

    private static OptionSpec option(Setting<?> setting, Setting.Flag flag)
    {
        OptionSpec.Builder option = OptionSpec.builder(flag.name()).description(help(setting));
        if (flag.negates()) {
            return option.arity("0").type(boolean.class).build();
        }
        option.paramLabel(flag.label()).arity("1");
        if (flag.repeats()) {
            return option.type(List.class).auxiliaryTypes(String.class).splitRegex(",").build();
        }
        return option.type(String.class).build();
    }

    /** The meaning from the table, then where else the setting comes from and its default. */
    static String help(Setting<?> setting)
    {
        List<String> sources = new ArrayList<>();
        setting.yamlKey().ifPresent(key -> sources.add("YAML " + key + setting.negatedText().map(value -> ": " + value).orElse("")));
        setting.environment().forEach(variable -> sources.add("env " + variable));
        sources.add("default " + setting.defaultText().orElseGet(() -> plain(setting.defaultDoc())));
        String meaning = plain(setting.doc());
        // A meaning that starts with a value ("`auto`, a name...") keeps the value as it is written.
        String sentence = setting.doc().startsWith("`") ? meaning : Character.toUpperCase(meaning.charAt(0)) + meaning.substring(1);
        return sentence + " (" + String.join("; ", sources) + ").";
    }

    /** Markdown as plain text: code spans and links as their text. */
    private static String plain(String markdown)
    {
        return markdown.replaceAll("\\[([^]]*)]\\([^)]*\\)", "$1").replace("`", "");
    }

    /**
     * What a command line gave.
     *
     * @param config     the YAML file, when {@code --config} was given
     * @param stacktrace whether {@code --stacktrace} was
     * @param settings   the flags of the table, by name, as the configuration loader takes them (values unconverted: the
     *                   loader converts them, and names the flag in its error)
     */
    record Given(Optional<Path> config, boolean stacktrace, Map<String, String> settings) {}

    /** @return what picocli parsed */
    static Given given(ParseResult parsed)
    {
        Map<String, String> settings = new LinkedHashMap<>();
        for (Setting<?> setting : Settings.ALL) {
            Optional<Setting.Flag> flag = setting.flag();
            if (flag.isPresent() && parsed.hasMatchedOption(flag.get().name())) {
                Object value = parsed.matchedOptionValue(flag.get().name(), null);
                settings.put(flag.get().name(), value instanceof List<?> values ? String.join(",", values.stream().map(String::valueOf).toList())
                        : String.valueOf(value));
            }
        }
        return new Given(Optional.ofNullable(parsed.matchedOptionValue(CONFIG, null)), parsed.hasMatchedOption(STACKTRACE), settings);
    }

    /**
     * {@code run} read without picocli, whose model of the command line is a large part of the agent's start-up (the
     * start-up benchmark with this path and without it: docs/performance.md, "The command line"). Only a command
     * line of {@code run} and the flags above ({@code --name value} or {@code --name=value}, each once unless it
     * repeats) is read here, by the same table; anything else (help, an unknown or malformed flag) is picocli's, which
     * reports it as always.
     *
     * @return what it gave, or empty when picocli must read it
     */
    static Optional<Given> run(String[] args)
    {
        if (args.length == 0 || !args[0].equals("run")) {
            return Optional.empty();
        }
        Map<String, Setting.Flag> known = new LinkedHashMap<>();
        for (Setting<?> setting : Settings.ALL) {
            setting.flag().ifPresent(flag -> known.put(flag.name(), flag));
        }
        Map<String, String> settings = new LinkedHashMap<>();
        Optional<Path> config = Optional.empty();
        boolean stacktrace = false;
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            int equals = arg.indexOf('=');
            String name = equals < 0 ? arg : arg.substring(0, equals);
            Setting.Flag flag = known.get(name);
            boolean valueless = name.equals(STACKTRACE) || flag != null && flag.negates();
            if (!arg.startsWith("--") || flag == null && !name.equals(CONFIG) && !name.equals(STACKTRACE) || valueless && equals >= 0) {
                return Optional.empty();
            }
            String value;
            if (valueless) {
                value = "true";
            }
            else if (equals >= 0) {
                value = arg.substring(equals + 1);
            }
            else if (i + 1 < args.length && !args[i + 1].startsWith("-")) {
                value = args[++i];
            }
            else {
                return Optional.empty();
            }
            if (value.startsWith("@") || value.indexOf('"') >= 0) {
                return Optional.empty();  // an argument file, or quotes: picocli's to read
            }
            if (name.equals(STACKTRACE)) {
                stacktrace = true;
            }
            else if (name.equals(CONFIG)) {
                if (config.isPresent()) {
                    return Optional.empty();
                }
                config = Optional.of(Path.of(value));
            }
            else if (settings.containsKey(name) && !flag.repeats()) {
                return Optional.empty();
            }
            else {
                settings.merge(name, value, (before, more) -> before + "," + more);
            }
        }
        return Optional.of(new Given(config, stacktrace, settings));
    }
}
