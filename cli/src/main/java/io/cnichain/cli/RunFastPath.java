package io.cnichain.cli;

import picocli.CommandLine.Option;

import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code cni-chain run} without building picocli's model of the whole command line, which costs more than half of
 * the agent's start-up (picocli's classes are Java 5 bytecode: no class-data sharing, the old verifier, and the
 * model of every subcommand built by reflection). Only a command line made of {@code run} and the long options of
 * {@link RunCommand} and {@link CommonOptions}, as {@code --name value} or {@code --name=value}, each at most once
 * (a list option may repeat), is taken here; the options are read from the same {@link Option} annotations picocli
 * reads, so a new option needs nothing here. Anything else (help, version, an unknown or malformed option, a value
 * that does not convert) goes to picocli, which parses it and reports errors as it always did.
 */
final class RunFastPath
{
    private RunFastPath() {}

    /**
     * @return the command ready to call, or empty when picocli must parse this command line
     */
    static Optional<RunCommand> parse(String[] args, CliContext context)
    {
        // An argument starting with @ may be an argument file, which picocli expands.
        if (args.length == 0 || !args[0].equals("run") || Arrays.stream(args).anyMatch(arg -> arg.startsWith("@"))) {
            return Optional.empty();
        }
        RunCommand command = new RunCommand();
        command.options = new CommonOptions();
        command.parent = new CniChainCli(context);
        Map<String, Target> targets = new HashMap<>();
        if (!collect(command, RunCommand.class, targets) || !collect(command.options, CommonOptions.class, targets)) {
            return Optional.empty();
        }
        Set<String> seen = new HashSet<>();
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            int equals = arg.indexOf('=');
            String name = equals < 0 ? arg : arg.substring(0, equals);
            Target target = targets.get(name);
            if (target == null || !arg.startsWith("--")) {
                return Optional.empty();
            }
            boolean flag = target.field().getType() == boolean.class;
            String value;
            if (flag) {
                if (equals >= 0) {
                    return Optional.empty();
                }
                value = "true";
            }
            else if (equals >= 0) {
                value = arg.substring(equals + 1);
            }
            else if (i + 1 < args.length && !targets.containsKey(args[i + 1].split("=", 2)[0])) {
                value = args[++i];
            }
            else {
                return Optional.empty();
            }
            boolean list = target.field().getType() == List.class;
            if ((!seen.add(target.field().getName()) && !list) || !assign(target, value)) {
                return Optional.empty();
            }
        }
        return Optional.of(command);
    }

    /** The long options of a class's fields; false when one has a type this path does not convert. */
    private static boolean collect(Object owner, Class<?> type, Map<String, Target> targets)
    {
        for (Field field : type.getDeclaredFields()) {
            Option option = field.getAnnotation(Option.class);
            if (option == null) {
                continue;
            }
            if (!converts(field)) {
                return false;
            }
            field.setAccessible(true);
            for (String name : option.names()) {
                targets.put(name, new Target(owner, field, option.split()));
            }
        }
        return true;
    }

    private static boolean converts(Field field)
    {
        Class<?> type = field.getType();
        if (type == List.class) {
            return field.getGenericType() instanceof ParameterizedType list && list.getActualTypeArguments()[0] == String.class;
        }
        return type == boolean.class || type == String.class || type == Path.class || type == Integer.class;
    }

    @SuppressWarnings("unchecked")
    private static boolean assign(Target target, String value)
    {
        Field field = target.field();
        try {
            Class<?> type = field.getType();
            if (type == List.class) {
                // picocli's split takes quotes into account; leave quoted values to it.
                if (value.indexOf('"') >= 0 || target.split().isEmpty()) {
                    return false;
                }
                List<String> values = (List<String>) field.get(target.owner());
                List<String> all = values == null ? new ArrayList<>() : values;
                all.addAll(Arrays.asList(value.split(target.split(), -1)));
                field.set(target.owner(), all);
            }
            else if (type == boolean.class) {
                field.setBoolean(target.owner(), true);
            }
            else if (type == Integer.class) {
                field.set(target.owner(), Integer.valueOf(value));
            }
            else if (type == Path.class) {
                field.set(target.owner(), Path.of(value));
            }
            else {
                field.set(target.owner(), value);
            }
            return true;
        }
        catch (IllegalAccessException | RuntimeException e) {
            // Not a value this path converts (a bad number, a path the file system refuses): picocli says why.
            return false;
        }
    }

    private record Target(Object owner, Field field, String split) {}
}
