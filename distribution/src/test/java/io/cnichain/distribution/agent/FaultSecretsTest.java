package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.KubeletVolume;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service-account token never leaves the kubeconfig: not in any log line at any level, text or JSON, nor in
 * {@code detect}'s output, the health endpoints, the metrics, or an error message (with its stack trace). Every
 * command and the agent run with a token no one could mistake ({@code tok-SECRET-...}), through a kubelet-style
 * rotation, and all their output is searched for it.
 */
@Tag("reliability")
@ExtendWith(TempNodeExtension.class)
class FaultSecretsTest
{
    static final String MARK = "SECRET";
    static final List<String> LEVELS = List.of("trace", "debug", "info");

    @Test
    void theAgentAtEveryLevelThroughATokenRotationNeverShowsTheToken(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        KubeletVolume account = node.serviceAccount().update("token", "tok-SECRET-0000");
        int round = 0;
        List<String> formats = new ArrayList<>();
        for (String level : LEVELS) {
            for (String format : level.equals("debug") ? List.of("text", "json") : List.of("text")) {
                String token = "tok-SECRET-" + (1000 + ++round);
                try (AgentProcess agent = AgentProcess.start(node, "--log-level", level, "--log-format", format)) {
                    awaitPatched(agent, file);
                    account.update("token", token);
                    Await.until(Duration.ofSeconds(10), () -> Files2.read(node.conf("ZZZ-linkerd-cni-kubeconfig")).contains(token),
                            () -> "the kubeconfig never got the new token\n" + agent.log());
                    StringBuilder seen = new StringBuilder();
                    for (String path : List.of("/healthz", "/readyz", "/metrics")) {
                        seen.append(agent.get(path).body());
                    }
                    // Then one the kubeconfig refuses: /readyz and the log say why, never what.
                    account.update("token", token + " refused");
                    Await.until(Duration.ofSeconds(10), () -> agent.get("/readyz").body().contains("the service-account token"), agent::log);
                    seen.append(agent.get("/readyz").body());
                    account.update("token", token);
                    assertThat(agent.terminate(Duration.ofSeconds(25))).as(agent.log()).isZero();
                    seen.append(agent.log());
                    assertThat(seen.toString()).as("--log-level " + level + " --log-format " + format).doesNotContain(MARK);
                    assertThat(agent.log()).contains("Detected change in service account files; recreating kubeconfig file");
                    if (!level.equals("info")) {
                        assertThat(agent.log()).as("the kubeconfig is logged, redacted").contains("<redacted>");
                    }
                    formats.add(level + "/" + format);
                }
            }
        }
        FaultSettings.report("token", "agent at " + formats + " through a kubelet-style rotation: the token in no log line, health or metrics");
    }

    @Test
    void everyCommandAtEveryLevelAndEveryErrorNeverShowsTheToken(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        KubeletVolume account = node.serviceAccount().update("token", "tok-SECRET-1234");
        int runs = 0;
        for (String level : LEVELS) {
            for (List<String> command : List.of(List.of("detect"), List.of("detect", "--output", "json"), List.of("install"), List.of("uninstall"))) {
                InProcessCli.Result result = run(node, command, "--log-level", level, "--stacktrace");
                assertThat(result.code()).as(result.toString()).isZero();
                assertThat(result.all()).as(command + " at " + level).doesNotContain(MARK);
                runs++;
            }
        }
        // Tokens the kubeconfig refuses: the error says why, never what.
        for (String bad : List.of("tok-SECRET-1234 with a space", "tok-SECRET-\u00011234", "tok-SECRET-" + "x".repeat(5000) + "\u00e9")) {
            account.update("token", bad);
            for (String level : LEVELS) {
                InProcessCli.Result result = run(node, List.of("install"), "--log-level", level, "--stacktrace");
                assertThat(result.code()).as(result.toString()).isNotZero();
                assertThat(result.all()).contains("the service-account token").doesNotContain(MARK);
                InProcessCli.Result detect = run(node, List.of("detect", "--output", "json"), "--log-level", level, "--stacktrace");
                assertThat(detect.all()).doesNotContain(MARK);
                runs += 2;
            }
        }
        FaultSettings.report("token", runs + " command runs (detect text and JSON, install, uninstall; refused tokens) at trace, debug and"
                + " info with --stacktrace: the token in none of their output");
    }

    private static InProcessCli.Result run(TestNode node, List<String> command, String... options)
    {
        return InProcessCli.run(node, command, options);
    }
}
