package io.cnichain.core.taint;

import io.cnichain.core.taint.AttemptOutcome.Result;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * Runs one removal attempt in a child JVM ({@link TaintRemovalMain}): the same {@code java} and class path as the
 * agent, small JVM options, the attempt's arguments on the command line (never the token). Reads the child's
 * {@link ChildLine}s as they come, answers its question before each patch, and kills it at its deadline. Everything
 * runs on the caller's thread: the output is polled while waiting for the child to exit, no reader thread (the JDK
 * adds its own {@code process reaper} thread, which ends after 60 s idle).
 */
final class TaintRemovalChild
        implements AttemptRunner
{
    /** Small and quick: the child lives for a second or so and holds a few kilobytes. */
    static final List<String> JVM_OPTIONS = List.of("-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xms8m", "-Xmx32m", "-Xss512k",
            "-XX:-UsePerfData");
    /** The JVM's start on a busy node, on top of the calls' own timeouts. */
    static final Duration START_ALLOWANCE = Duration.ofSeconds(30);
    // Meant for the agent's JVM (a debugger's port, a heap size): not passed on to a JVM we size ourselves.
    private static final List<String> JVM_ENVIRONMENT = List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS");
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final int MAX_LINE_BYTES = 16 * 1024;
    private static final int DIAGNOSTIC_LINES = 5;
    private static final int MAX_DIAGNOSTIC_CHARS = 500;
    private static final String CHILD = "the child process that calls the API server";

    private final String java;
    private final String classPath;
    private final Optional<Duration> deadline;

    /**
     * @param java      the {@code java} executable
     * @param classPath the class path holding {@link TaintRemovalMain} and its dependencies
     * @param deadline  how long a child may run before it is killed; empty: {@link #START_ALLOWANCE} plus the
     *                  timeouts of every call it may make
     */
    TaintRemovalChild(String java, String classPath, Optional<Duration> deadline)
    {
        this.java = requireNonNull(java, "java is null");
        this.classPath = requireNonNull(classPath, "classPath is null");
        this.deadline = requireNonNull(deadline, "deadline is null");
    }

    /** The agent's own {@code java} and class path. */
    static TaintRemovalChild likeThisJvm()
    {
        String java = ProcessHandle.current().info().command()
                .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
        return new TaintRemovalChild(java, System.getProperty("java.class.path"), Optional.empty());
    }

    /**
     * {@inheritDoc}
     *
     * @return how it ended; {@link Result#FATAL} for a child that could not start, was killed at its deadline, or
     *         ended without an outcome
     * @throws InterruptedException when interrupted; the child is killed first
     */
    @Override
    public AttemptOutcome attempt(AttemptArguments attempt, BooleanSupplier mayPatch, Consumer<ChildLine.Changed> onChanged)
            throws InterruptedException
    {
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(JVM_OPTIONS);
        command.addAll(List.of("-cp", classPath, TaintRemovalMain.class.getName()));
        command.addAll(attempt.toArgs());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        Map<String, String> environment = builder.environment();
        JVM_ENVIRONMENT.forEach(environment::remove);
        Process process;
        try {
            process = builder.start();
        }
        catch (IOException | RuntimeException e) {
            return AttemptOutcome.fatal("child process", CHILD + " cannot be started: " + e.getMessage(), attempt.rereadsInARow());
        }
        Duration limit = deadline.orElseGet(() -> deadlineFor(attempt));
        Output output = new Output(attempt.rereadsInARow());
        try (InputStream in = process.getInputStream(); OutputStream answers = process.getOutputStream()) {
            long end = System.nanoTime() + limit.toNanos();
            while (true) {
                if (output.read(in, answers, mayPatch, onChanged)) {
                    continue;
                }
                if (!process.isAlive()) {
                    // What it wrote just before exiting may have come after the last read.
                    while (output.read(in, answers, mayPatch, onChanged)) {
                        // drained
                    }
                    return output.outcome().orElseGet(() -> AttemptOutcome.fatal("child process", CHILD + " exited with code "
                            + process.exitValue() + " without an outcome" + output.diagnostics(), output.rereadsInARow()));
                }
                long left = end - System.nanoTime();
                if (left <= 0) {
                    process.destroyForcibly();
                    return AttemptOutcome.fatal("child process", CHILD + " did not finish within " + limit.toMillis() + " ms; killed"
                            + output.diagnostics(), output.rereadsInARow());
                }
                process.waitFor(Math.min(left, POLL_NANOS), TimeUnit.NANOSECONDS);
            }
        }
        catch (IOException e) {
            return AttemptOutcome.fatal("child process", "cannot read the output of " + CHILD + ": " + e.getMessage(), output.rereadsInARow());
        }
        finally {
            end(process);
        }
    }

    /** Time to start plus both calls of every read-and-patch the child may still make, each bounded by its timeouts. */
    static Duration deadlineFor(AttemptArguments attempt)
    {
        int rounds = Math.max(0, attempt.immediateRereads() - attempt.rereadsInARow()) + 1;
        return START_ALLOWANCE.plus(attempt.connectTimeout().plus(attempt.requestTimeout()).multipliedBy(2L * rounds));
    }

    /** Kills it if it still runs and waits for it (briefly, even when interrupted), so that no process is left. */
    private static void end(Process process)
    {
        boolean interrupted = false;
        process.destroyForcibly();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (process.isAlive() && System.nanoTime() < end) {
            try {
                process.waitFor(end - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
            catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The child's output as it comes: complete lines acted on, the rest kept for a diagnosis. */
    private static final class Output
    {
        private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
        private final Deque<String> other = new ArrayDeque<>();
        private int lineBytes;
        private int rereadsInARow;
        private AttemptOutcome outcome;

        Output(int rereadsInARow)
        {
            this.rereadsInARow = rereadsInARow;
        }

        /** @return whether anything was read (so more may be waiting) */
        boolean read(InputStream in, OutputStream answers, BooleanSupplier mayPatch, Consumer<ChildLine.Changed> onChanged)
                throws IOException
        {
            int available = in.available();
            if (available <= 0) {
                return false;
            }
            byte[] bytes = in.readNBytes(Math.min(available, 8192));
            for (byte b : bytes) {
                if (b != '\n') {
                    if (lineBytes++ < MAX_LINE_BYTES) {
                        partial.write(b);
                    }
                    continue;
                }
                String line = partial.toString(StandardCharsets.UTF_8);
                partial.reset();
                lineBytes = 0;
                Optional<ChildLine> parsed = outcome == null ? ChildLine.parse(line) : Optional.empty();
                if (parsed.isEmpty()) {
                    remember(line);
                }
                else if (parsed.get() instanceof ChildLine.Read) {
                    answer(answers, mayPatch.getAsBoolean() ? ChildLine.PATCH : ChildLine.STOP);
                }
                else if (parsed.get() instanceof ChildLine.Changed changed) {
                    rereadsInARow = changed.rereadsInARow();
                    onChanged.accept(changed);
                }
                else {
                    outcome = (AttemptOutcome) parsed.get();
                }
            }
            return true;
        }

        Optional<AttemptOutcome> outcome()
        {
            return Optional.ofNullable(outcome);
        }

        int rereadsInARow()
        {
            return rereadsInARow;
        }

        /** The last lines that were not part of the protocol (a JVM's error, say), on one line. */
        String diagnostics()
        {
            if (partial.size() > 0) {
                remember(partial.toString(StandardCharsets.UTF_8));
            }
            if (other.isEmpty()) {
                return "";
            }
            String text = String.join(" | ", other).replaceAll("\\p{Cntrl}+", " ").trim();
            return ": " + (text.length() > MAX_DIAGNOSTIC_CHARS ? text.substring(0, MAX_DIAGNOSTIC_CHARS) + "…" : text);
        }

        private void remember(String line)
        {
            if (!line.isBlank()) {
                other.addLast(line);
                if (other.size() > DIAGNOSTIC_LINES) {
                    other.removeFirst();
                }
            }
        }

        private static void answer(OutputStream answers, String answer)
        {
            try {
                answers.write((answer + "\n").getBytes(StandardCharsets.UTF_8));
                answers.flush();
            }
            catch (IOException e) {
                // The child is gone already: its exit (and output, if any) says what happened.
            }
        }
    }
}
