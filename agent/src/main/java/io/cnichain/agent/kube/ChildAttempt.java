package io.cnichain.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.json.CniJson;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A call to the API server made by a child process, {@code cni-chain api CALL} from the agent's own distribution: the
 * running agent then never holds a TLS stack, whose classes and heap would stay resident for a call every few tens of
 * minutes. The child prints one JSON line, {@code {"ok":true,"value":"..."}} or {@code {"ok":false,"kind":"...",
 * "message":"...","retryAfterMillis":N}}; one that does not end within its deadline is killed.
 */
public final class ChildAttempt
{
    private static final int MAX_OUTPUT_BYTES = 64 * 1024;

    private ChildAttempt() {}

    /** The launcher of the distribution the agent runs from ({@code cnichain.home}, which the launcher sets), if any. */
    public static Optional<Path> launcher()
    {
        String home = System.getProperty("cnichain.home", "");
        Path launcher = Path.of(home.isEmpty() ? "/nonexistent" : home, "bin", "cni-chain");
        return Files.isExecutable(launcher) ? Optional.of(launcher) : Optional.empty();
    }

    public static <T> Attempt<T> of(Path launcher, List<String> arguments, Function<String, T> value, Duration deadline)
    {
        return () -> value.apply(run(launcher, arguments, deadline));
    }

    private static String run(Path launcher, List<String> arguments, Duration deadline)
            throws ApiCallException
    {
        List<String> command = new ArrayList<>(List.of(launcher.toString()));
        command.addAll(arguments);
        String call = String.join(" ", arguments);
        Process process;
        try {
            process = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        }
        catch (IOException e) {
            throw new ApiCallException("child", "cannot start " + launcher + " " + call + ": " + e.getMessage());
        }
        // Read as it comes (a full pipe would block the child), up to the cap; the child's end closes it.
        java.util.concurrent.CompletableFuture<byte[]> output = new java.util.concurrent.CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (InputStream out = process.getInputStream()) {
                output.complete(out.readNBytes(MAX_OUTPUT_BYTES));
            }
            catch (IOException e) {
                output.complete(new byte[0]);
            }
        });
        try {
            if (!process.waitFor(deadline.toNanos(), TimeUnit.NANOSECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                throw new ApiCallException("timeout", call + ": the child did not end within " + deadline.toSeconds() + " s; killed");
            }
            return outcome(call, new String(output.get(5, TimeUnit.SECONDS), StandardCharsets.UTF_8));
        }
        catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            process.destroyForcibly();
            throw new ApiCallException("child", call + ": cannot read the child's answer: " + e);
        }
        catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new ApiCallException("timeout", call + ": interrupted; the child killed");
        }
    }

    private static String outcome(String call, String output)
            throws ApiCallException
    {
        List<String> lines = output.lines().filter(line -> line.startsWith("{")).toList();
        if (lines.isEmpty()) {
            throw new ApiCallException("child", call + ": the child printed no answer");
        }
        JsonNode answer;
        try {
            answer = CniJson.parse(lines.get(lines.size() - 1).getBytes(StandardCharsets.UTF_8));
        }
        catch (CniJson.InvalidJsonException e) {
            throw new ApiCallException("child", call + ": the child's answer " + e.getMessage());
        }
        if (answer.path("ok").asBoolean(false)) {
            return answer.path("value").asText("");
        }
        Optional<Duration> retryAfter = answer.path("retryAfterMillis").isNumber() ? Optional.of(Duration.ofMillis(answer.path("retryAfterMillis").asLong()))
                : Optional.empty();
        throw new ApiCallException(answer.path("kind").asText("child"), answer.path("message").asText(call + ": failed"), retryAfter);
    }

    /** The rest comes from the environment the child inherits. */
    public static List<String> arguments(String call, io.cnichain.core.config.AgentConfig config)
    {
        List<String> arguments = new ArrayList<>(List.of("api", call, "--service-account-dir", config.apiServer().serviceAccountDir().toString()));
        config.configFile().ifPresent(file -> arguments.addAll(List.of("--config", file.toString())));
        return arguments;
    }

    public static String line(Attempt<String> attempt)
    {
        var node = CniJson.nodes().objectNode();
        try {
            node.put("ok", true).put("value", attempt.run());
        }
        catch (ApiCallException e) {
            node.put("ok", false).put("kind", e.kind()).put("message", e.getMessage());
            e.retryAfter().ifPresent(wait -> node.put("retryAfterMillis", wait.toMillis()));
        }
        return CniJson.compact(node);
    }
}
