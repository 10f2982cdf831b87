package io.cnichain.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code cni-chain run} without picocli, whose model of the command line costs more than half of the agent's
 * start-up: picocli's classes are Java 5 bytecode (no class-data sharing, the old verifier), its model of every
 * subcommand is built by reflection, and even reading the {@code @Option} annotations of one command costs about
 * 70 ms (the annotations' proxy classes are generated at run time). So the options of {@code run} are listed here,
 * and {@code RunFastPathTest} checks the list against picocli's own model of {@code run}: an option added there and
 * not here fails the build. Only a command line made of {@code run} and those long options, as {@code --name value}
 * or {@code --name=value}, each at most once (a list option may repeat), is taken here. Anything else (help,
 * version, an unknown or malformed option, a value that does not convert) goes to picocli, which parses it and
 * reports errors as it always did.
 */
final class RunFastPath
{
    /** How a value is taken. */
    enum Kind
    {
        FLAG, TEXT, PATH, INTEGER, LIST
    }

    /**
     * One long option of {@code run}.
     *
     * @param name as given on the command line
     * @param kind how its value converts
     */
    record Known(String name, Kind kind)
    {
        /** Puts the converted value in place. (A switch, not a lambda per option: each lambda costs start-up.) */
        void assign(RunCommand c, Object v)
        {
            switch (name) {
                case "--health-port" -> c.healthPort = (Integer) v;
                case "--health-address" -> c.healthAddress = (String) v;
                case "--metrics-address" -> c.metricsAddress = (String) v;
                case "--no-cleanup" -> c.noCleanup = true;
                case "--shutdown-timeout" -> c.shutdownTimeout = (Integer) v;
                case "--config" -> c.options.config = (Path) v;
                case "--host-root" -> c.options.hostRoot = (Path) v;
                case "--conf-dir" -> c.options.confDir = (Path) v;
                case "--bin-dir" -> c.options.binDir = (Path) v;
                case "--adapter" -> c.options.adapter = append(c.options.adapter, v);
                case "--service-account-dir" -> c.options.serviceAccountDir = (Path) v;
                case "--plugins-dir" -> c.options.pluginsDir = (Path) v;
                case "--log-level" -> c.options.logLevel = (String) v;
                case "--log-format" -> c.options.logFormat = (String) v;
                case "--stacktrace" -> c.options.stacktrace = true;
                default -> throw new IllegalStateException("no assignment for " + name);
            }
        }
    }

    /** The options of {@code run}, its own and its {@link CommonOptions}, as picocli knows them. */
    static final List<Known> OPTIONS = List.of(
            new Known("--health-port", Kind.INTEGER),
            new Known("--health-address", Kind.TEXT),
            new Known("--metrics-address", Kind.TEXT),
            new Known("--no-cleanup", Kind.FLAG),
            new Known("--shutdown-timeout", Kind.INTEGER),
            new Known("--config", Kind.PATH),
            new Known("--host-root", Kind.PATH),
            new Known("--conf-dir", Kind.PATH),
            new Known("--bin-dir", Kind.PATH),
            new Known("--adapter", Kind.LIST),
            new Known("--service-account-dir", Kind.PATH),
            new Known("--plugins-dir", Kind.PATH),
            new Known("--log-level", Kind.TEXT),
            new Known("--log-format", Kind.TEXT),
            new Known("--stacktrace", Kind.FLAG));

    /** The separator of a list option's values, picocli's {@code split} of {@code --adapter}. */
    static final String LIST_SEPARATOR = ",";

    private RunFastPath() {}

    /**
     * @return the command ready to call, or empty when picocli must parse this command line
     */
    static Optional<RunCommand> parse(String[] args, CliContext context)
    {
        // An argument starting with @ may be an argument file, which picocli expands.
        if (args.length == 0 || !args[0].equals("run")) {
            return Optional.empty();
        }
        for (String arg : args) {
            if (arg.startsWith("@")) {
                return Optional.empty();
            }
        }
        RunCommand command = new RunCommand();
        command.options = new CommonOptions();
        command.parent = new CniChainCli(context);
        Set<String> seen = new HashSet<>();
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            int equals = arg.indexOf('=');
            Optional<Known> known = known(equals < 0 ? arg : arg.substring(0, equals));
            if (known.isEmpty() || !arg.startsWith("--")) {
                return Optional.empty();
            }
            Known option = known.get();
            String value;
            if (option.kind() == Kind.FLAG) {
                if (equals >= 0) {
                    return Optional.empty();
                }
                value = "true";
            }
            else if (equals >= 0) {
                value = arg.substring(equals + 1);
            }
            else if (i + 1 < args.length && known(args[i + 1].split("=", 2)[0]).isEmpty()) {
                value = args[++i];
            }
            else {
                return Optional.empty();
            }
            if (!seen.add(option.name()) && option.kind() != Kind.LIST) {
                return Optional.empty();
            }
            Optional<Object> converted = convert(option.kind(), value);
            if (converted.isEmpty()) {
                return Optional.empty();
            }
            option.assign(command, converted.get());
        }
        return Optional.of(command);
    }

    private static Optional<Known> known(String name)
    {
        for (Known option : OPTIONS) {
            if (option.name().equals(name)) {
                return Optional.of(option);
            }
        }
        return Optional.empty();
    }

    /** @return the value converted as picocli would, or empty when picocli must say what is wrong with it */
    private static Optional<Object> convert(Kind kind, String value)
    {
        try {
            return switch (kind) {
                case FLAG -> Optional.of(Boolean.TRUE);
                case TEXT -> Optional.of(value);
                case PATH -> Optional.of(Path.of(value));
                case INTEGER -> Optional.of(Integer.valueOf(value));
                // picocli's split takes quotes into account; leave quoted values to it.
                case LIST -> value.indexOf('"') >= 0 ? Optional.empty() : Optional.of(List.of(value.split(LIST_SEPARATOR, -1)));
            };
        }
        catch (RuntimeException e) {
            // Not a value this path converts (a bad number, a path the file system refuses): picocli says why.
            return Optional.empty();
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> append(List<String> values, Object more)
    {
        List<String> all = values == null ? new ArrayList<>() : values;
        all.addAll((List<String>) more);
        return all;
    }
}
