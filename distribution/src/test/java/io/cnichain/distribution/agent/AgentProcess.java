package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.TestNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code cni-chain run} as a real child process started through the distribution's launcher, the way the
 * DaemonSet starts it, with its log in a file the test reads.
 */
final class AgentProcess
        implements AutoCloseable
{
    static final Path HOME = Path.of(System.getProperty("cnichain.distribution", "target/cni-chain"));
    static final List<String> STOP_SIGNALS = List.of("HUP", "INT", "TERM");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;
    private final Path log;
    private final int healthPort;

    private AgentProcess(Process process, Path log, int healthPort)
    {
        this.process = process;
        this.log = log;
        this.healthPort = healthPort;
    }

    static AgentProcess start(TestNode node, String... extra)
    {
        AgentProcess agent = launch(node, List.of(), List.of(extra));
        agent.awaitLog("Watching /etc/cni/net.d", Duration.ofSeconds(20));
        return agent;
    }

    /**
     * Starts the agent without waiting for it.
     *
     * @param prefix a command the launcher runs under ({@code setpriv ...}), or none
     * @param extra  more flags
     */
    static AgentProcess launch(TestNode node, List<String> prefix, List<String> extra)
    {
        return launch(node, prefix, extra, Map.of());
    }

    /** {@link #launch(TestNode, List, List)}, with more environment variables. */
    static AgentProcess launch(TestNode node, List<String> prefix, List<String> extra, Map<String, String> env)
    {
        try {
            int port = freePort();
            // Not in the node's root, which the agent watches (the service account directory's parent): at debug level,
            // every line it logs of its own log's change would change the log again, thousands of events a second.
            Path log = Files.createTempFile(Files.createDirectories(node.root().resolve("logs")), "agent-", ".log");
            // The stop signals at their default disposition, as a container's process starts: one inherited ignored
            // (nohup, a non-interactive shell's background job) stays ignored in a JVM, and the agent never hears it.
            List<String> command = new ArrayList<>(List.of("env", "--default-signal=" + String.join(",", STOP_SIGNALS)));
            command.addAll(prefix);
            command.addAll(List.of(HOME.resolve("bin/cni-chain").toString(), "run"));
            command.addAll(node.flags());
            command.addAll(List.of("--health-port", String.valueOf(port)));
            command.addAll(extra);
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment().putAll(node.env());
            builder.environment().putAll(env);
            return new AgentProcess(builder.start(), log, port);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int healthPort()
    {
        return healthPort;
    }

    Path logFile()
    {
        return log;
    }

    String log()
    {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    long count(String text)
    {
        return log().lines().filter(line -> line.contains(text)).count();
    }

    /** @return how many times our entry was written into files whose path starts so: created, or put back */
    long writes(String path)
    {
        return count("Created CNI config " + path) + count("Put our entry back in " + path);
    }

    /** Log lines come after the write they report: wait for them rather than read them at once. */
    void awaitCount(String text, long count)
    {
        Await.until(Duration.ofSeconds(10), () -> count(text) >= count, () -> "expected " + count + " lines with '" + text + "'; the log:\n" + log());
    }

    void awaitLog(String text, Duration timeout)
    {
        Await.until(timeout, () -> {
            if (log().contains(text)) {
                return true;
            }
            if (!process.isAlive()) {
                throw new AssertionError("the agent exited with " + process.exitValue() + " before logging '" + text + "':\n" + log());
            }
            return false;
        }, () -> "log line '" + text + "' never appeared; the log:\n" + log());
    }

    boolean alive()
    {
        return process.isAlive();
    }

    long pid()
    {
        return process.pid();
    }

    Response get(String path)
    {
        return get(URI.create("http://127.0.0.1:" + healthPort + path));
    }

    static Response get(URI uri)
    {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(uri)
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.body());
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** @return the response, or an empty body with status 0 while the health server is not up yet */
    Response poll(String path)
    {
        try {
            return get(path);
        }
        catch (UncheckedIOException notYet) {
            return new Response(0, "");
        }
    }

    /** SIGTERM, then the exit code. */
    int terminate(Duration timeout)
    {
        process.destroy();
        return exitCode(timeout);
    }

    int signal(String name)
    {
        try {
            return new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).start().waitFor();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    int exitCode(Duration timeout)
    {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the agent did not exit within " + timeout + "\n" + log());
            }
            return process.exitValue();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** SIGKILL: no cleanup at all, as when a node loses power. */
    void kill()
    {
        process.destroyForcibly();
        exitCode(Duration.ofSeconds(10));
    }

    @Override
    public void close()
    {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }

    private static int freePort()
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    record Response(int status, String body) {}
}
