package io.cnichain.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code run} read without picocli ({@link Flags#run}) means exactly what picocli makes of the same command line. */
class RunWithoutPicocliTest
{
    @Test
    void readsWhatPicocliReadsAndMeansTheSame()
    {
        for (List<String> args : List.of(
                List.of("run"),
                List.of("run", "--host-root", "/", "--health-port", "0"),
                List.of("run", "--host-root=/h", "--conf-dir", "/etc/cni/net.d", "--bin-dir=/opt/cni/bin", "--no-cleanup"),
                List.of("run", "--adapter", "cilium,calico", "--adapter=oci", "--log-level", "debug", "--log-format", "json"),
                List.of("run", "--config", "/c.yaml", "--plugins-dir", "/p", "--service-account-dir", "/sa", "--shutdown-timeout", "5"),
                List.of("run", "--stacktrace", "--health-port=9470", "--health-address", "0.0.0.0", "--metrics-address", "[::]:9471"),
                List.of("run", "--health-port", "not-a-number"))) {
            Flags.Given fast = Flags.run(args.toArray(String[]::new)).orElseThrow(() -> new AssertionError("not read without picocli: " + args));
            assertThat(fast).as("%s", args).isEqualTo(picocli(args));
        }
    }

    @Test
    void leavesToPicocliWhatOnlyItReads()
    {
        for (List<String> args : List.of(
                List.of("install"),
                List.of("run", "--help"),
                List.of("run", "-h"),
                List.of("run", "--no-such-flag"),
                List.of("run", "--log-level"),
                List.of("run", "--log-level", "info", "--log-level", "debug"),
                List.of("run", "--no-cleanup=true"),
                List.of("run", "--config", "@args"),
                List.of("run", "extra"))) {
            assertThat(Flags.run(args.toArray(String[]::new))).as("%s", args).isEmpty();
        }
    }

    private static Flags.Given picocli(List<String> args)
    {
        PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream());
        CommandLine.ParseResult parsed = CniChainCli.commandLine(new CliContext(Map.of(), nowhere, nowhere)).parseArgs(args.toArray(String[]::new));
        return Flags.given(parsed.subcommand());
    }
}
