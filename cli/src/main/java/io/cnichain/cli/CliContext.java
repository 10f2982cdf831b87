package io.cnichain.cli;

import java.io.PrintStream;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * What a command reads from and writes to, so tests can run the CLI in-process with their own environment.
 *
 * @param env the environment variables
 * @param out command results
 * @param err errors (logs go to the logging backend's stream)
 */
public record CliContext(Map<String, String> env, PrintStream out, PrintStream err)
{
    public CliContext
    {
        env = Map.copyOf(requireNonNull(env, "env is null"));
        requireNonNull(out, "out is null");
        requireNonNull(err, "err is null");
    }

    public static CliContext system()
    {
        return new CliContext(System.getenv(), System.out, System.err);
    }
}
