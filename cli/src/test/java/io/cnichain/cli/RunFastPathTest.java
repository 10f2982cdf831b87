package io.cnichain.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code run} parsed without picocli's model must mean exactly what picocli makes of the same command line. */
class RunFastPathTest
{
    private static final CliContext CONTEXT = new CliContext(Map.of(), new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(new ByteArrayOutputStream()));

    @Test
    void takesWhatPicocliTakesAndMeansTheSame()
    {
        for (List<String> args : List.of(
                List.of("run"),
                List.of("run", "--host-root", "/", "--health-port", "0"),
                List.of("run", "--host-root=/h", "--conf-dir", "/etc/cni/net.d", "--bin-dir=/opt/cni/bin", "--no-cleanup"),
                List.of("run", "--adapter", "cilium,calico", "--adapter=oci", "--log-level", "debug", "--log-format", "json"),
                List.of("run", "--config", "/c.yaml", "--plugins-dir", "/p", "--service-account-dir", "/sa", "--shutdown-timeout", "5"),
                List.of("run", "--stacktrace", "--health-port=9470"))) {
            Optional<RunCommand> fast = RunFastPath.parse(args.toArray(String[]::new), CONTEXT);
            assertThat(fast).as("%s", args).isPresent();
            RunCommand picocli = picocli(args);
            assertThat(fast.get().runFlags()).as("%s", args).isEqualTo(picocli.runFlags());
            assertThat(fast.get().options.flags()).as("%s", args).isEqualTo(picocli.options.flags());
            assertThat(fast.get().options.config).as("%s", args).isEqualTo(picocli.options.config);
            assertThat(fast.get().options.stacktrace).as("%s", args).isEqualTo(picocli.options.stacktrace);
        }
    }

    @Test
    void knowsEveryOptionOfRunAsPicocliDoes()
    {
        CommandLine run = CniChainCli.commandLine(CONTEXT).getSubcommands().get("run");
        Map<String, RunFastPath.Kind> picocli = new TreeMap<>();
        for (CommandLine.Model.OptionSpec option : run.getCommandSpec().options()) {
            if (option.usageHelp() || option.versionHelp()) {
                continue;
            }
            assertThat(option.names()).as("the fast path knows one name per option").hasSize(1);
            Class<?> type = option.type();
            RunFastPath.Kind kind = type == boolean.class ? RunFastPath.Kind.FLAG
                    : type == String.class ? RunFastPath.Kind.TEXT
                    : type == Path.class ? RunFastPath.Kind.PATH
                    : type == Integer.class ? RunFastPath.Kind.INTEGER
                    : type == List.class && option.auxiliaryTypes()[0] == String.class ? RunFastPath.Kind.LIST
                    : null;
            assertThat(kind).as("%s of type %s", option.longestName(), type).isNotNull();
            if (kind == RunFastPath.Kind.LIST) {
                assertThat(option.splitRegex()).as(option.longestName()).isEqualTo(RunFastPath.LIST_SEPARATOR);
            }
            picocli.put(option.longestName(), kind);
        }
        Map<String, RunFastPath.Kind> fast = new TreeMap<>();
        RunFastPath.OPTIONS.forEach(option -> fast.put(option.name(), option.kind()));
        assertThat(fast).isEqualTo(picocli);
    }

    @Test
    void assignsEveryOptionItKnows()
    {
        // Each option given alone lands where picocli puts it (the comparison above covers only the fields it reads).
        for (RunFastPath.Known option : RunFastPath.OPTIONS) {
            List<String> args = option.kind() == RunFastPath.Kind.FLAG ? List.of("run", option.name())
                    : List.of("run", option.name(), option.kind() == RunFastPath.Kind.INTEGER ? "7" : "/x");
            RunCommand fast = RunFastPath.parse(args.toArray(String[]::new), CONTEXT).orElseThrow();
            RunCommand picocli = picocli(args);
            assertThat(fast).as("%s", args).usingRecursiveComparison().ignoringFields("parent").isEqualTo(picocli);
        }
    }

    @Test
    void leavesEverythingElseToPicocli()
    {
        for (List<String> args : List.of(
                List.<String>of(),
                List.of("install", "--host-root", "/"),
                List.of("run", "--help"),
                List.of("run", "-h"),
                List.of("run", "--version"),
                List.of("run", "--unknown"),
                List.of("run", "positional"),
                List.of("run", "--host-root"),
                List.of("run", "--host-root", "--conf-dir", "/x"),
                List.of("run", "--host-root", "/a", "--host-root", "/b"),
                List.of("run", "--health-port", "nine"),
                List.of("run", "--no-cleanup=true"),
                List.of("run", "--adapter", "\"a,b\""),
                List.of("run", "@args.txt"),
                List.of("run", "--config", "@file"))) {
            assertThat(RunFastPath.parse(args.toArray(String[]::new), CONTEXT)).as("%s", args).isEmpty();
        }
    }

    private static RunCommand picocli(List<String> args)
    {
        CommandLine.ParseResult parsed = CniChainCli.commandLine(CONTEXT).parseArgs(args.toArray(String[]::new));
        return (RunCommand) parsed.subcommand().commandSpec().userObject();
    }
}
