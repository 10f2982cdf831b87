package io.cnichain.distribution;

import io.cnichain.testkit.TestNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The real {@code bin/cni-chain} of the distribution, run on a test node with its flags and environment. */
final class RealLauncher
{
    static final Path HOME = Path.of(System.getProperty("cnichain.distribution", "target/cni-chain"));

    private RealLauncher() {}

    /**
     * @param node  the node (its flags come right after the command, its environment is the process's)
     * @param env   variables to add or, with a {@code null} value, to remove
     * @param args  the command and its arguments
     * @return the exit code and everything printed (output and log interleaved)
     */
    static Run run(TestNode node, Map<String, String> env, String... args)
    {
        return run(List.of(), node, env, args);
    }

    /** {@link #run(TestNode, Map, String...)} under a command that runs the launcher, such as setpriv's. */
    static Run run(List<String> wrapper, TestNode node, Map<String, String> env, String... args)
    {
        List<String> line = new ArrayList<>(wrapper);
        line.add(HOME.resolve("bin/cni-chain").toString());
        line.add(args[0]);
        line.addAll(node.flags());
        line.addAll(List.of(args).subList(1, args.length));
        return exec(line, node, env);
    }

    /**
     * Runs the launcher as an operator runs it by hand on a node, {@code --host-root /}, in a mount namespace of its own
     * where the node's conf dir and bin dir are {@code /etc/cni/net.d} and {@code /opt/cni/bin} (a tmpfs hides the
     * machine's {@code /opt} there): nothing of the machine's own is touched. Needs root, {@code unshare} and {@code mount}.
     */
    static Run runOnTheHost(TestNode node, Map<String, String> env, String... args)
    {
        List<String> line = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "sh", "-c",
                "mount --bind \"$1\" /etc/cni/net.d && mount -t tmpfs -o mode=0755 tmpfs /opt && mkdir -p /opt/cni/bin"
                        + " && mount --bind \"$2\" /opt/cni/bin && shift 2 && exec \"$@\"",
                "sh", node.confDir().toString(), node.binDir().toString(), HOME.resolve("bin/cni-chain").toString(), args[0], "--host-root", "/",
                "--service-account-dir", node.serviceAccountDir().toString()));
        line.addAll(List.of(args).subList(1, args.length));
        return exec(line, node, env);
    }

    private static Run exec(List<String> line, TestNode node, Map<String, String> env)
    {
        ProcessBuilder builder = new ProcessBuilder(line).redirectErrorStream(true);
        builder.environment().putAll(node.env());
        env.forEach((name, value) -> {
            if (value == null) {
                builder.environment().remove(name);
            }
            else {
                builder.environment().put(name, value);
            }
        });
        try {
            Process process = builder.start();
            String out;
            try (InputStream stream = process.getInputStream()) {
                out = new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the launcher did not exit within 60 s:\n" + out);
            }
            return new Run(process.exitValue(), out);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static Run run(TestNode node, String... args)
    {
        return run(node, Map.of(), args);
    }

    record Run(int code, String out)
    {
        @Override
        public String toString()
        {
            return "exit " + code + "\n" + out;
        }
    }
}
