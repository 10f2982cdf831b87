package io.cnichain.core.taint;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The child's own code ({@link TaintRemovalMain#run}) on the remover's thread: the arguments go through their
 * command-line form, every line through its JSON, the answer before a patch is asked for when the child reads it; only
 * the JVM and its pipes are left out. For the tests of the remover's decisions, which would otherwise spend most of
 * their time starting JVMs (a second or more each on a busy machine). What only a process does (the command line, the
 * pipes, the question and its answer across them, the deadline, the kill) is tested with the real child, as are the
 * requests themselves in the main cases.
 */
final class InProcessAttempts
        implements AttemptRunner
{
    @Override
    public AttemptOutcome attempt(AttemptArguments attempt, BooleanSupplier mayPatch, Consumer<ChildLine.Changed> onChanged)
            throws InterruptedException
    {
        Lines lines = new Lines(onChanged);
        AttemptOutcome outcome = TaintRemovalMain.run(attempt.toArgs().toArray(String[]::new), new Answers(mayPatch), lines);
        if (Thread.interrupted()) {
            throw new InterruptedException("closed during the attempt");
        }
        TaintRemovalMain.write(lines, outcome);
        return lines.outcome.orElseThrow(() -> new AssertionError("the outcome's line is not one: " + outcome.toJson()));
    }

    /** What the agent answers, decided when the child reads it, as across the pipe. */
    private static final class Answers
            extends InputStream
    {
        private final BooleanSupplier mayPatch;
        private byte[] answer = new byte[0];
        private int next;

        Answers(BooleanSupplier mayPatch)
        {
            this.mayPatch = mayPatch;
        }

        @Override
        public int read()
        {
            if (next == answer.length) {
                answer = ((mayPatch.getAsBoolean() ? ChildLine.PATCH : ChildLine.STOP) + "\n").getBytes(StandardCharsets.UTF_8);
                next = 0;
            }
            return answer[next++];
        }
    }

    /** The child's output, acted on line by line as the agent does. */
    private static final class Lines
            extends OutputStream
    {
        private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
        private final Consumer<ChildLine.Changed> onChanged;
        private Optional<AttemptOutcome> outcome = Optional.empty();

        Lines(Consumer<ChildLine.Changed> onChanged)
        {
            this.onChanged = onChanged;
        }

        @Override
        public void write(int b)
        {
            if (b != '\n') {
                partial.write(b);
                return;
            }
            String line = partial.toString(StandardCharsets.UTF_8);
            partial.reset();
            ChildLine parsed = ChildLine.parse(line).orElseThrow(() -> new AssertionError("not a line of the protocol: " + line));
            if (parsed instanceof ChildLine.Changed changed) {
                onChanged.accept(changed);
            }
            else if (parsed instanceof AttemptOutcome last) {
                outcome = Optional.of(last);
            }
        }
    }
}
