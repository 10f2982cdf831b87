package io.cnichain.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
