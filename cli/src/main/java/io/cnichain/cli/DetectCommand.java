package io.cnichain.cli;

import io.cnichain.core.engine.DetectReport;
import io.cnichain.core.json.CniJson;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        mixinStandardHelpOptions = true,
        name = "detect",
        header = "Show what install would do, changing nothing.",
        description = "Shows every adapter's score and evidence, the chosen adapter, the effective configuration with "
                + "its link chain, the files to patch and how, and the problems found (broken files sorting first, "
                + "refused links, what will undo our entry).",
        footer = {"", "Exit 0 when nothing stands in install's way, 1 when Problems lists something, 2 on bad configuration."})
final class DetectCommand
        extends AgentCommand
{
    @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "text", description = "text or json (default ${DEFAULT-VALUE}).")
    String output;

    @Override
    public Integer call()
    {
        if (!output.equals("text") && !output.equals("json")) {
            throw CniChainCli.usage("--output: '" + output + "' is not text or json");
        }
        DetectReport report = oneShotEngine(loadConfig()).detect();
        if (output.equals("json")) {
            context().out().print(new String(CniJson.write(DetectJson.render(report)), java.nio.charset.StandardCharsets.UTF_8));
        }
        else {
            context().out().print(DetectText.render(report));
        }
        return report.problems().isEmpty() ? 0 : 1;
    }
}
