package io.cnichain.core.engine;

import io.cnichain.core.adapters.AdapterSelector.Selection;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What one install pass did.
 *
 * @param selection  the adapter decision and the files it named
 * @param outcomes   one per file patched
 * @param binaries   binaries written
 * @param kubeconfig whether the kubeconfig was written
 * @param failures   why the pass failed whatever it patched (the adapter, the runtime's file) or could not patch at all
 *                   (a prerequisite that cannot be written or is missing), one line each
 * @param owed       the prerequisites whose write failed: the next pass compares them again
 * @param waiting    what the pass waits for that the agent provides itself (the plugin's token), one line each: not a fault
 */
public record InstallReport(Selection selection, List<FileOutcome> outcomes, List<Path> binaries, boolean kubeconfig, List<String> failures,
                            Prerequisites owed, List<String> waiting)
{
    public InstallReport
    {
        requireNonNull(selection, "selection is null");
        outcomes = List.copyOf(outcomes);
        binaries = List.copyOf(binaries);
        failures = List.copyOf(failures);
        requireNonNull(owed, "owed is null");
        waiting = List.copyOf(waiting);
    }

    /** @return the failures, and what the pass waits for, in one line, if any */
    public Optional<String> failure()
    {
        List<String> all = new java.util.ArrayList<>(failures);
        all.addAll(waiting);
        return all.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", all));
    }

    /** @return one line per file of the decision that the runtime reaches through a link: where the link leads */
    public List<String> links()
    {
        return selection.targets().stream().filter(target -> !target.path().equals(target.resolvedFile()))
                .map(target -> "File " + target.path() + " resolves to " + target.resolvedFile()).toList();
    }

    /** @return one line per file that could not be patched, and why */
    public List<String> notPatched()
    {
        return outcomes.stream().filter(FileOutcome::failed).map(outcome -> "Not patching " + outcome.path() + ": " + outcome.detail()).toList();
    }

    /** Whether every file ended up patched (or nothing needed patching). */
    public boolean succeeded()
    {
        return failures.isEmpty() && waiting.isEmpty() && outcomes.stream().noneMatch(o -> o.failed() || o.result() == FileOutcome.Result.WAITING);
    }

    /** Whether no primary configuration exists, so nothing was done. */
    public boolean nothingToDo()
    {
        return failures.isEmpty() && selection.targets().isEmpty();
    }
}
