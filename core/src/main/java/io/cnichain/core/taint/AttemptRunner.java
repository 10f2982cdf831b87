package io.cnichain.core.taint;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/** Runs one removal attempt to its end. The agent's runs it in a child JVM: {@link TaintRemovalChild}. */
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
    AttemptOutcome attempt(AttemptArguments attempt, BooleanSupplier mayPatch, Consumer<ChildLine.Changed> onChanged)
            throws InterruptedException;
}
