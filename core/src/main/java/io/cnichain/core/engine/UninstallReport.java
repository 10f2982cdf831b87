package io.cnichain.core.engine;

import java.nio.file.Path;
import java.util.List;

/**
 * What uninstall did.
 *
 * @param outcomes          one per configuration file looked at
 * @param kubeconfigRemoved whether the kubeconfig was removed
 * @param binariesRemoved   binaries removed
 * @param failures          everything that went wrong, one line each
 */
public record UninstallReport(List<FileOutcome> outcomes, boolean kubeconfigRemoved, List<Path> binariesRemoved, List<String> failures)
{
    public UninstallReport
    {
        outcomes = List.copyOf(outcomes);
        binariesRemoved = List.copyOf(binariesRemoved);
        failures = List.copyOf(failures);
    }

    public boolean succeeded()
    {
        return failures.isEmpty();
    }
}
