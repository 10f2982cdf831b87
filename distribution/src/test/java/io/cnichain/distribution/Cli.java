package io.cnichain.distribution;

import io.cnichain.cli.CliContext;
import io.cnichain.cli.CniChainCli;
import io.cnichain.cli.logging.ConsoleLogging;
import io.cnichain.testkit.TestNode;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Runs the CLI in-process against a test node, capturing its output and its log. */
final class Cli
{
    private Cli() {}

    static Result run(TestNode node, String... args)
    {
        List<String> all = new ArrayList<>(List.of(args));
        if (!all.isEmpty() && !all.get(0).startsWith("-") && !all.get(0).equals("help")) {
            all.addAll(1, node.flags());
        }
        return runRaw(node, all.toArray(String[]::new));
    }

    static Result runRaw(TestNode node, String... args)
    {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream previous = ConsoleLogging.stream();
        ConsoleLogging.redirect(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int code = CniChainCli.execute(args, new CliContext(node.env(),
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
            return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }
        finally {
            ConsoleLogging.redirect(previous);
        }
    }

    record Result(int code, String out, String err)
    {
        @Override
        public String toString()
        {
            return "exit " + code + "\n--- out\n" + out + "--- err\n" + err;
        }
    }
}
