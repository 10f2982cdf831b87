package io.cnichain.agent.taint;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/** Runs one removal attempt to its end: {@link InProcessAttempts}. */
@FunctionalInterface
interface AttemptRunner
{
    /**
     * @param attempt   its arguments
     * @param mayPatch  asked before each patch; false stops the attempt without it
     * @param onChanged told of each changed-node answer after which the node is read again at once
     * @return how it ended
     * @throws InterruptedException when interrupted; nothing of the attempt is left running
     */
    AttemptOutcome attempt(AttemptArguments attempt, BooleanSupplier mayPatch, Consumer<Changed> onChanged)
            throws InterruptedException;

    /**
     * The patch found the node changed since it was read (422 from a {@code test}, 409); the node is read again now.
     *
     * @param status        the answer's status
     * @param rereadsInARow changed-node answers in a row so far
     */
    record Changed(int status, int rereadsInARow) {}
}
