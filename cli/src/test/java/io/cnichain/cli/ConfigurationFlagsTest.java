package io.cnichain.cli;

import io.cnichain.core.config.ConfigLoader;
import io.cnichain.core.config.Setting;
import io.cnichain.core.config.Settings;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.fail;

/**
 * The command line and the settings table ({@link Settings}) agree: every flag of the table is an option of the
 * commands that take it and reaches the configuration loader under its name, and every option that sets
 * configuration is a flag of the table; the help shows the table's environment variables and defaults. Only
 * picocli's model is read and arguments parsed; nothing runs.
 */
class ConfigurationFlagsTest
{
    /** The commands that work on a node; they take the flags of every command. */
    static final List<String> NODE_COMMANDS = List.of("run", "install", "uninstall", "detect", "adapters", "api");

    /** Options that set no setting of the table, and why. */
    static final Map<String, String> NOT_SETTINGS = Map.of(
            "--config", "names the YAML file itself",
            "--stacktrace", "how an error is printed",
            "--output", "detect's output format",
            "--platform", "the demo's sandbox layout",
            "--keep", "keeps the demo's sandbox",
            "--deadline-millis", "how long the running agent lets its child's one API call take",
            "--help", "picocli's usage help",
            "--version", "picocli's version");

    @Test
    void everyFlagOfTheTableIsAnOptionOfTheCommandsThatTakeIt()
    {
        CommandLine root = commandLine();
        for (Setting<?> setting : flagged()) {
            Setting.Flag flag = setting.flag().orElseThrow();
            for (String command : commandsTaking(flag)) {
                assertThat(option(root, command, flag.name()))
                        .as("the setting %s has the flag %s, which the command '%s' must take", setting, flag.name(), command)
                        .isPresent();
            }
        }
    }

    @Test
    void everyOptionThatSetsConfigurationIsAFlagOfTheTable()
    {
        List<String> problems = new ArrayList<>();
        forEachCommand(commandLine().getCommandSpec(), spec -> {
            for (OptionSpec option : spec.options()) {
                String name = option.longestName();
                if (NOT_SETTINGS.containsKey(name)) {
                    continue;
                }
                Optional<Setting<?>> setting = Settings.forFlag(name);
                if (setting.isEmpty()) {
                    problems.add("'" + spec.qualifiedName() + " " + name + "' is an option but no setting of io.cnichain.core.config.Settings "
                            + "has that flag: add it to the table, or to NOT_SETTINGS here if it sets no configuration");
                }
                else if (!commandsTaking(setting.get().flag().orElseThrow()).contains(spec.name())) {
                    problems.add("'" + spec.qualifiedName() + " " + name + "' is an option of a command the table does not give it to ("
                            + setting.get().flag().orElseThrow().scope() + ")");
                }
            }
        });
        assertThat(problems).isEmpty();
    }

    @Test
    void everyFlagOfTheTableReachesTheLoaderUnderItsName()
    {
        for (Setting<?> setting : flagged()) {
            Setting.Flag flag = setting.flag().orElseThrow();
            String value = flag.negates() ? "true" : setting.defaultText().orElseThrow(() -> new AssertionError(setting + " needs a default to try"));
            for (String command : commandsTaking(flag)) {
                List<String> args = new ArrayList<>(command.equals("api") ? List.of("api", "plugin-token") : List.of(command));
                args.addAll(flag.negates() ? List.of(flag.name()) : List.of(flag.name(), value));
                Map<String, String> passed = flagsPassed(args);
                assertThat(passed).as("the flags '%s' passes to the loader for %s", command, args).containsExactly(entry(flag.name(), value));
                ConfigLoader.load(Optional.empty(), Map.of(), passed);
            }
        }
    }

    @Test
    void helpOfEachFlagShowsTheTablesEnvironmentVariableAndDefault()
    {
        CommandLine root = commandLine();
        for (Setting<?> setting : flagged()) {
            Setting.Flag flag = setting.flag().orElseThrow();
            for (String command : commandsTaking(flag)) {
                String help = String.join(" ", option(root, command, flag.name()).orElseThrow().description());
                for (String variable : setting.environment()) {
                    assertThat(help).as("help of '%s %s'", command, flag.name()).contains("env " + variable);
                }
                if (!flag.negates()) {
                    setting.defaultText().ifPresent(text -> assertThat(help).as("help of '%s %s'", command, flag.name()).contains("default " + text));
                }
            }
        }
    }

    @Test
    void helpFooterListsEveryEnvironmentVariableOfTheTable()
    {
        String footer = String.join(" ", commandLine().getCommandSpec().usageMessage().footer());
        for (Setting<?> setting : Settings.ALL) {
            for (String variable : setting.environment()) {
                assertThat(footer).as("cni-chain --help lists the environment variables").containsPattern("\\b" + variable + "\\b");
            }
        }
    }

    private static List<Setting<?>> flagged()
    {
        List<Setting<?>> flagged = Settings.ALL.stream().filter(setting -> setting.flag().isPresent()).toList();
        assertThat(flagged).as("the table has flags").isNotEmpty();
        return flagged;
    }

    private static List<String> commandsTaking(Setting.Flag flag)
    {
        return switch (flag.scope()) {
            case COMMON -> NODE_COMMANDS;
            case RUN -> List.of("run");
        };
    }

    private static Optional<OptionSpec> option(CommandLine root, String command, String name)
    {
        CommandLine sub = root.getSubcommands().get(command);
        if (sub == null) {
            fail("no command '" + command + "'");
        }
        return Optional.ofNullable(sub.getCommandSpec().findOption(name)).filter(o -> List.of(o.names()).contains(name));
    }

    private static void forEachCommand(CommandSpec spec, java.util.function.Consumer<CommandSpec> action)
    {
        action.accept(spec);
        spec.subcommands().values().forEach(sub -> forEachCommand(sub.getCommandSpec(), action));
    }

    /** Parses the arguments and returns what the command would give the loader, without running it. */
    private static Map<String, String> flagsPassed(List<String> args)
    {
        CommandLine.ParseResult parsed = commandLine().parseArgs(args.toArray(String[]::new));
        return Flags.given(parsed.subcommand()).settings();
    }

    private static CommandLine commandLine()
    {
        PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream());
        return CniChainCli.commandLine(new CliContext(Map.of(), nowhere, nowhere));
    }
}
