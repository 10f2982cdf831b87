package io.cnichain.distribution.runtime;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * Runs external commands (podman, ip, iptables, the launcher, CNI plugins) to completion. Output goes to files,
 * not pipes: podman's conmon and other daemons may inherit a descriptor and keep a pipe open forever.
 */
public final class Commands
{
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);

    private Commands() {}

    public static Result run(String... command)
    {
        return run(List.of(command), Map.of(), Optional.empty(), DEFAULT_TIMEOUT);
    }

    /** Runs and fails the test with the command's output unless it exits 0. */
    public static Result ok(String... command)
    {
        return run(command).ok();
    }

    /**
     * @param command the command and its arguments
     * @param env     variables to set on top of this process's environment (a null value removes one)
     * @param stdin   bytes for standard input, if any
     * @param timeout how long it may take; it is killed after that
     * @return what it did
     */
    public static Result run(List<String> command, Map<String, String> env, Optional<byte[]> stdin, Duration timeout)
    {
        Path out = null;
        Path err = null;
        try {
            out = Files.createTempFile("cnichain-cmd-", ".out");
            err = Files.createTempFile("cnichain-cmd-", ".err");
            List<String> resolved = new ArrayList<>(command);
            if (!resolved.get(0).contains("/")) {
                // Root's tools live in sbin, which a PATH may lack.
                RuntimeRequirements.which(resolved.get(0)).ifPresent(path -> resolved.set(0, path.toString()));
            }
            ProcessBuilder builder = new ProcessBuilder(resolved).redirectOutput(out.toFile()).redirectError(err.toFile());
            apply(builder.environment(), env);
            if (stdin.isEmpty()) {
                builder.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
            }
            Process process = builder.start();
            if (stdin.isPresent()) {
                try (OutputStream in = process.getOutputStream()) {
                    in.write(stdin.get());
                }
            }
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s: " + String.join(" ", command)
                        + "\n--- out\n" + Files.readString(out) + "--- err\n" + Files.readString(err));
            }
            return new Result(command, process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot run " + String.join(" ", command), e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
        }
        finally {
            deleteQuietly(out);
            deleteQuietly(err);
        }
    }

    public static void apply(Map<String, String> environment, Map<String, String> changes)
    {
        changes.forEach((key, value) -> {
            if (value == null) {
                environment.remove(key);
            }
            else {
                environment.put(key, value);
            }
        });
    }

    private static void deleteQuietly(Path file)
    {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            }
            catch (IOException ignored) {
                // a temp file; nothing depends on it
            }
        }
    }

    public record Result(List<String> command, int code, String out, String err)
    {
        public Result
        {
            command = List.copyOf(command);
            requireNonNull(out, "out is null");
            requireNonNull(err, "err is null");
        }

        public Result ok()
        {
            if (code != 0) {
                throw new AssertionError(this.toString());
            }
            return this;
        }

        @Override
        public String toString()
        {
            return String.join(" ", command) + "\nexit " + code + "\n--- out\n" + out + "--- err\n" + err;
        }
    }
}
