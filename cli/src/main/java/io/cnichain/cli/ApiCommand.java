package io.cnichain.cli;

import io.cnichain.agent.kube.ChildAttempt;
import io.cnichain.agent.kube.KubeApiClient;
import io.cnichain.agent.kube.NodeRuntime;
import io.cnichain.agent.kube.PluginToken;
import io.cnichain.agent.kube.StartupTaint;
import io.cnichain.agent.time.Clock;
import io.cnichain.cli.logging.ConsoleLogging;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.KubeconfigSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Duration;

/**
 * One call to the API server for the running agent, in a process of its own ({@code ChildAttempt}): with the agent's
 * environment and configuration file, it makes the call, prints one JSON line saying how it went, and exits. Not for
 * people: hidden from the help.
 */
@Command(name = "api", hidden = true, description = "One call to the API server for the running agent (plugin-token, lift-taint, node-runtime).")
final class ApiCommand
        extends AgentCommand
{
    @Parameters(index = "0", description = "plugin-token, lift-taint or node-runtime")
    String call;

    @Option(names = "--deadline-millis", defaultValue = "10000", description = "How long the call may take, the whole answer included.")
    long deadlineMillis;

    @Override
    public Integer call()
    {
        AgentConfig config = loadConfig();
        // Only the answer line on standard output: the log says nothing.
        ConsoleLogging.redirect(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
        KubeApiClient client = new KubeApiClient(config.apiServer(), Duration.ofMillis(deadlineMillis), Clock.SYSTEM);
        String line = switch (call) {
            case "plugin-token" -> ChildAttempt.line(() -> PluginToken.request(client, config.run().pod().orElseThrow(),
                    config.kubeconfig().serviceAccount().orElseThrow(), KubeconfigSettings.REQUESTED_TOKEN).toString());
            case "lift-taint" -> ChildAttempt.line(() -> StartupTaint.lift(client, config.nodeTaint().nodeName().orElseThrow(), config.nodeTaint().key())
                    .toString());
            case "node-runtime" -> ChildAttempt.line(() -> NodeRuntime.version(client, config.nodeTaint().nodeName().orElseThrow()));
            default -> throw new picocli.CommandLine.ParameterException(spec.commandLine(), "unknown call " + call);
        };
        System.out.println(line);
        System.out.flush();
        return 0;
    }
}
