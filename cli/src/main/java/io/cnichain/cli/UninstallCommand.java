package io.cnichain.cli;

import io.cnichain.core.Printable;
import io.cnichain.core.engine.UninstallReport;
import picocli.CommandLine.Command;

@Command(
        mixinStandardHelpOptions = true,
        name = "uninstall",
        header = "Remove everything install added, entries first.",
        description = "Removes the plugin's entry from every configuration that may hold it (links followed, "
                + ".conflist-current and other authoritative targets included) and puts back a .conf it converted; "
                + "then the kubeconfig, then the binaries. Continues past a bad file and reports every failure; "
                + "keeps the binary while any configuration may still name it.",
        footer = {"", "Exit 0 when everything was removed, 1 otherwise, 2 on bad configuration."})
final class UninstallCommand
        extends AgentCommand
{
    @Override
    public Integer call()
    {
        UninstallReport report = oneShotEngine(loadConfig()).uninstall();
        report.failures().forEach(failure -> context().err().println("error: " + Printable.line(failure)));
        return report.succeeded() ? 0 : 1;
    }
}
