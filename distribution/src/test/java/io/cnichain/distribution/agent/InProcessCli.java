package io.cnichain.distribution.agent;

import io.cnichain.cli.CliContext;
import io.cnichain.cli.CniChainCli;
import io.cnichain.cli.logging.ConsoleLogging;
import io.cnichain.testkit.TestNode;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A command of the CLI run in this JVM against a test node, with its output and its log (no JVM to start: fast). */
final class InProcessCli
{
    private InProcessCli() {}

    static Result run(TestNode node, List<String> command, String... options)
    {
        List<String> args = new ArrayList<>(command);
        args.addAll(node.flags());
        args.addAll(List.of(options));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream previous = ConsoleLogging.stream();
        ConsoleLogging.redirect(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int code = CniChainCli.execute(args.toArray(String[]::new), new CliContext(node.env(),
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
            return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }
        finally {
            ConsoleLogging.redirect(previous);
        }
    }

    record Result(int code, String out, String err)
    {
        String all()
        {
            return out + err;
        }
    }
}
