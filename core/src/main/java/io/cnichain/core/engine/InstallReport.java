package io.cnichain.core.engine;

import io.cnichain.core.adapters.AdapterSelector.Selection;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What one install pass did.
 *
 * @param selection   the adapter decision and the files it named
 * @param outcomes    one per file
 * @param binaries    binaries written
 * @param kubeconfig  whether the kubeconfig was written
 * @param failure     why the pass could not patch at all (missing binary, kubeconfig, adapter failure)
 */
public record InstallReport(Selection selection, List<FileOutcome> outcomes, List<Path> binaries, boolean kubeconfig, Optional<String> failure)
{
    public InstallReport
    {
        outcomes = List.copyOf(outcomes);
        binaries = List.copyOf(binaries);
    }

    /** Whether every file ended up patched (or nothing needed patching). */
    public boolean succeeded()
    {
        return failure.isEmpty() && outcomes.stream().noneMatch(o -> o.failed() || o.result() == FileOutcome.Result.WAITING);
    }

    /** Whether no primary configuration exists, so nothing was done. */
    public boolean nothingToDo()
    {
        return failure.isEmpty() && selection.targets().isEmpty();
    }
}
