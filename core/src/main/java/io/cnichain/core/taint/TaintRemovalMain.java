package io.cnichain.core.taint;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.kube.ApiCallException;
import io.cnichain.core.taint.AttemptOutcome.Result;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The child process of the agent that makes one attempt at removing the start-up taint: {@code GET} the node, and if
 * it has the taint, {@code PATCH} it with a JSON patch that tests and removes each taint with the key; on a changed
 * node (422, 409) it reads the node again at once, up to the policy's limit. Not an API: {@link NodeTaintRemover}
 * runs it, with {@link AttemptArguments} as its arguments, and reads {@link ChildLine}s from its standard output.
 *
 * <p>It exists because the TLS stack and the HTTP client, once loaded, would stay in the agent's memory for its whole
 * life (about 16 MiB); in a child they go when it exits. It logs nothing (no SLF4J): everything the agent needs to
 * know is in its output, which never holds the token (it reads the token file itself). Every call it makes is bounded
 * by the timeouts it is given, so it ends within them; before each patch it asks the agent, which answers at once.
 */
public final class TaintRemovalMain
{
    private static final String ARGUMENTS = "arguments";

    private TaintRemovalMain() {}

    /**
     * Writes the attempt's lines, ends with exit code 0 when it has an outcome to report (whatever it is), 2 for bad
     * arguments, 1 for a failure of its own.
     *
     * @param args {@link AttemptArguments#toArgs()}
     */
    public static void main(String[] args)
    {
        // The bytes as they are, UTF-8, one write per line: not the platform's encoding, which may be ASCII in a container.
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        AttemptOutcome outcome = run(args, System.in, out);
        int exit = outcome.kind().filter(ARGUMENTS::equals).isPresent() ? 2 : outcome.result() == Result.FATAL ? 1 : 0;
        try {
            write(out, outcome);
        }
        catch (UncheckedIOException e) {
            // The agent is gone: nobody to tell.
            exit = 1;
        }
        System.exit(exit);
    }

    /**
     * The attempt, whatever happens: every failure becomes an outcome.
     *
     * @param args    {@link AttemptArguments#toArgs()}
     * @param answers the agent's answers to {@link ChildLine.Read}
     * @param out     where the progress lines go (not the outcome)
     * @return how it ended
     */
    static AttemptOutcome run(String[] args, InputStream answers, OutputStream out)
    {
        AttemptArguments attempt;
        try {
            attempt = AttemptArguments.parse(args);
        }
        catch (IllegalArgumentException e) {
            return AttemptOutcome.fatal(ARGUMENTS, "the child process got bad arguments: " + e.getMessage(), 0);
        }
        try {
            return attempt(attempt, answers, out);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return AttemptOutcome.fatal("interrupted", "the attempt was interrupted", attempt.rereadsInARow());
        }
        catch (RuntimeException e) {
            return AttemptOutcome.fatal(e.getClass().getName(), "unexpected " + e, attempt.rereadsInARow());
        }
    }

    /**
     * One attempt.
     *
     * @param attempt what to do
     * @param answers the agent's answers to {@link ChildLine.Read}
     * @param out     where the progress lines go
     * @return how it ended
     */
    private static AttemptOutcome attempt(AttemptArguments attempt, InputStream answers, OutputStream out)
            throws InterruptedException
    {
        NodeApiClient api = new NodeApiClient(attempt);
        int rereadsInARow = attempt.rereadsInARow();
        while (true) {
            try {
                JsonNode read = api.getNode();
                NodeTaints taints = NodeTaints.withKey(read, attempt.key());
                if (taints.isEmpty()) {
                    return AttemptOutcome.of(Result.ABSENT, rereadsInARow);
                }
                write(out, new ChildLine.Read(taints.describe()));
                if (!ChildLine.PATCH.equals(readAnswer(answers))) {
                    return AttemptOutcome.of(Result.STOPPED, rereadsInARow);
                }
                int status = api.patchNode(taints.removal());
                if (status == 200) {
                    return AttemptOutcome.removed(taints.describe(), rereadsInARow);
                }
                rereadsInARow++;
                if (rereadsInARow > attempt.immediateRereads()) {
                    throw new ApiCallException("HTTP " + status, "PATCH /api/v1/nodes/" + attempt.node() + ": HTTP " + status + ", " + rereadsInARow
                            + " times in a row: the node keeps changing between our read and our patch, or the API server refuses the patch");
                }
                write(out, new ChildLine.Changed(status, rereadsInARow));
            }
            catch (ApiCallException e) {
                return AttemptOutcome.retry(e, rereadsInARow);
            }
        }
    }

    /** One short line; empty at the end of input (the agent is gone or closing). */
    private static String readAnswer(InputStream answers)
    {
        StringBuilder line = new StringBuilder();
        try {
            for (int c = answers.read(); c >= 0 && c != '\n' && line.length() < 16; c = answers.read()) {
                line.append((char) c);
            }
        }
        catch (IOException e) {
            return "";
        }
        return line.toString().trim();
    }

    static void write(OutputStream out, ChildLine line)
    {
        try {
            out.write((line.toJson() + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
