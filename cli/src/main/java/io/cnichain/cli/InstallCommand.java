package io.cnichain.cli;

import io.cnichain.core.Printable;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.engine.FileOutcome;
import io.cnichain.core.engine.InstallReport;
import picocli.CommandLine.Command;

@Command(
        mixinStandardHelpOptions = true,
        name = "install",
        header = "Patch the node once: binaries, kubeconfig, then the plugin's entry.",
        description = "Installs the plugin's binaries, writes its kubeconfig, then adds its entry to every configuration "
                + "the adapter calls authoritative (links followed, the final target written atomically, links kept). "
                + "Creates nothing when no primary configuration exists.",
        footer = {"", "Exit 0 when done or nothing to do, 1 when a file could not be patched, 2 on bad configuration."})
final class InstallCommand
        extends AgentCommand
{
    @Override
    public Integer call()
    {
        AgentConfig config = loadConfig();
        requireApiServerForKubeconfig(config);
        InstallReport report = oneShotEngine(config).install();
        for (FileOutcome outcome : report.outcomes()) {
            if (outcome.failed() || outcome.result() == FileOutcome.Result.WAITING) {
                context().err().println("error: " + Printable.line(outcome.detail()));
            }
        }
        report.failure().ifPresent(failure -> context().err().println("error: " + Printable.line(failure)));
        return report.succeeded() ? 0 : 1;
    }
}
