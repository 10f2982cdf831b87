package io.cnichain.core.taint;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.json.CniJson;
import io.cnichain.core.kube.ApiCallException;
import io.cnichain.core.taint.AttemptOutcome.Result;
import io.cnichain.core.taint.FakeApiServer.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

import static io.cnichain.core.taint.NodeTaintRemoverTest.KEY;
import static io.cnichain.core.taint.NodeTaintRemoverTest.NODE;
import static io.cnichain.core.taint.NodeTaintRemoverTest.OURS;
import static io.cnichain.core.taint.NodeTaintRemoverTest.children;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The child process and its protocol: what {@link TaintRemovalMain} writes and reads, run as the agent runs it
 * (this JVM's {@code java} and class path) against {@link FakeApiServer}; and what {@link TaintRemovalChild} makes of
 * a child that hangs, cannot start or dies without an outcome.
 */
class TaintRemovalChildTest
{
    static TestCertificates certificates;

    @TempDir
    Path serviceAccount;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void makeCertificates()
            throws Exception
    {
        certificates = TestCertificates.shared();
    }

    @BeforeEach
    void serviceAccountFiles()
            throws Exception
    {
        Files.writeString(serviceAccount.resolve("token"), "secret-token\n");
        Files.copy(certificates.caPem(), serviceAccount.resolve("ca.crt"));
    }

    @AfterEach
    void closeAll()
            throws Exception
    {
        for (AutoCloseable closeable : toClose) {
            closeable.close();
        }
        assertThat(children()).as("child processes left").isEmpty();
    }

    @Test
    void theChildAsksBeforeItPatchesWritesOnlyItsProtocolAndNeverTheToken()
            throws Exception
    {
        FakeApiServer server = server();
        AttemptArguments attempt = arguments(server, Duration.ofSeconds(5));

        Process stopped = child(attempt);
        try (BufferedReader out = reader(stopped); OutputStream answers = stopped.getOutputStream()) {
            assertThat(out.readLine()).isEqualTo("{\"progress\":\"READ\",\"taints\":\"cni-chain.io/not-ready=true:NoSchedule\"}");
            assertThat(String.join(" ", stopped.info().arguments().orElseThrow())).contains("--token-file=" + serviceAccount.resolve("token"))
                    .doesNotContain("secret-token");
            answers.write("STOP\n".getBytes(StandardCharsets.UTF_8));
            answers.flush();
            assertThat(out.readLine()).isEqualTo("{\"outcome\":\"STOPPED\",\"rereadsInARow\":0}");
            assertThat(out.readLine()).isNull();
        }
        assertThat(stopped.waitFor()).isZero();
        assertThat(new String(stopped.getErrorStream().readAllBytes(), StandardCharsets.UTF_8)).as("stderr: no log, no JVM noise").isEmpty();
        assertThat(server.requests()).extracting(Request::method).as("read, not patched").containsExactly("GET");

        Process patched = child(attempt);
        try (BufferedReader out = reader(patched); OutputStream answers = patched.getOutputStream()) {
            assertThat(out.readLine()).startsWith("{\"progress\":\"READ\"");
            answers.write("PATCH\n".getBytes(StandardCharsets.UTF_8));
            answers.flush();
            assertThat(out.readLine()).isEqualTo("{\"outcome\":\"REMOVED\",\"taints\":\"cni-chain.io/not-ready=true:NoSchedule\",\"rereadsInARow\":0}");
            assertThat(out.readLine()).isNull();
        }
        assertThat(patched.waitFor()).isZero();
        assertThat(patched.getErrorStream().readAllBytes()).isEmpty();
        assertThat(server.requests()).extracting(Request::method).containsExactly("GET", "GET", "PATCH");
        assertThat(server.requests()).extracting(Request::authorization).containsOnly("Bearer secret-token");
        assertThat(server.node().at("/spec/taints").size()).isZero();
    }

    @Test
    void badArgumentsAreAFatalOutcomeWithExitCode2()
            throws Exception
    {
        Process process = new ProcessBuilder(command(List.of("--host=127.0.0.1", "--host=other"))).start();
        process.getOutputStream().close();
        try (BufferedReader out = reader(process)) {
            assertThat(out.readLine()).isEqualTo("{\"outcome\":\"FATAL\",\"kind\":\"arguments\",\"error\":\"the child process got bad arguments: "
                    + "given twice: --host\",\"rereadsInARow\":0}");
        }
        assertThat(process.waitFor()).isEqualTo(2);
    }

    @Test
    void aChildPastItsDeadlineIsKilledAndThatIsAnError()
            throws Exception
    {
        FakeApiServer server = server();
        CountDownLatch release = new CountDownLatch(1);
        server.holdNext("GET", release);
        // The child would wait 60 s for its answer; the deadline is shorter.
        TaintRemovalChild child = new TaintRemovalChild(java(), System.getProperty("java.class.path"), Optional.of(Duration.ofSeconds(3)));
        long start = System.nanoTime();
        AttemptOutcome outcome = child.attempt(arguments(server, Duration.ofSeconds(60)), () -> true, changed -> {});
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        release.countDown();

        assertThat(outcome.result()).isEqualTo(Result.FATAL);
        assertThat(outcome.kind()).contains("child process");
        assertThat(outcome.error()).contains("the child process that calls the API server did not finish within 3000 ms; killed");
        assertThat(took).isBetween(Duration.ofSeconds(3), Duration.ofSeconds(6));
        assertThat(children()).as("killed and reaped").isEmpty();
    }

    @Test
    void aChildThatEndsWithoutAnOutcomeIsAnErrorWithWhatItSaid(@TempDir Path emptyClassPath)
            throws Exception
    {
        TaintRemovalChild child = new TaintRemovalChild(java(), emptyClassPath.toString(), Optional.empty());
        AttemptOutcome outcome = child.attempt(arguments(server(), Duration.ofSeconds(5)), () -> true, changed -> {});
        assertThat(outcome.result()).isEqualTo(Result.FATAL);
        assertThat(outcome.error()).get().asString().startsWith("the child process that calls the API server exited with code 1 without an outcome: "
                + "Error: Could not find or load main class io.cnichain.core.taint.TaintRemovalMain");
    }

    @Test
    void protocolLinesRoundTripAndOtherLinesAreNotPartOfIt()
    {
        List<ChildLine> lines = List.of(new ChildLine.Read("a=b:NoSchedule, a:NoExecute"), new ChildLine.Changed(422, 2),
                AttemptOutcome.removed("a=b:NoSchedule", 1), AttemptOutcome.of(Result.ABSENT, 0), AttemptOutcome.of(Result.STOPPED, 3),
                AttemptOutcome.retry(new ApiCallException("HTTP 429", "GET /api/v1/nodes/n: HTTP 429 … \"quoted\"", Optional.of(Duration.ofMillis(1500))), 0),
                AttemptOutcome.fatal("child process", "line\nbreak", 4));
        for (ChildLine line : lines) {
            assertThat(line.toJson()).doesNotContain("\n");
            assertThat(ChildLine.parse(line.toJson())).contains(line);
        }
        assertThat(ChildLine.parse("OpenJDK 64-Bit Server VM warning: Options -Xverify:none are deprecated")).isEmpty();
        assertThat(ChildLine.parse("{\"outcome\":\"SOMETHING\",\"rereadsInARow\":0}")).isEmpty();
        assertThat(ChildLine.parse("{\"outcome\":\"RETRY\",\"rereadsInARow\":0}")).as("no kind, no error").isEmpty();
        assertThat(ChildLine.parse("{not json")).isEmpty();
    }

    @Test
    void argumentsRoundTripAndAreChecked()
    {
        AttemptArguments attempt = new AttemptArguments("10.96.0.1", "443", NODE, KEY, Path.of("/var/run/secrets/token"), Path.of("/ca=1.crt"),
                Duration.ofSeconds(5), Duration.ofMillis(10_500), 5, 2);
        assertThat(AttemptArguments.parse(attempt.toArgs().toArray(String[]::new))).isEqualTo(attempt);
        assertThat(TaintRemovalChild.deadlineFor(attempt)).as("30 s to start, then 4 reads and 4 patches of at most 15.5 s each")
                .isEqualTo(Duration.ofSeconds(154));

        List<String> unknown = new ArrayList<>(attempt.toArgs());
        unknown.add("--token=secret");
        assertThatThrownBy(() -> AttemptArguments.parse(unknown.toArray(String[]::new))).hasMessageStartingWith("unknown arguments");
        List<String> missing = new ArrayList<>(attempt.toArgs());
        missing.remove(0);
        assertThatThrownBy(() -> AttemptArguments.parse(missing.toArray(String[]::new))).hasMessage("missing: --host");
        assertThatThrownBy(() -> AttemptArguments.parse(new String[] {"host"})).hasMessage("not --name=value: host");
    }

    private FakeApiServer server()
            throws Exception
    {
        FakeApiServer server = FakeApiServer.start(certificates.server(), (ObjectNode) CniJson.parse(
                ("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-1\",\"resourceVersion\":\"100\"},\"spec\":{\"taints\":[" + OURS
                        + "]}}").getBytes(StandardCharsets.UTF_8)), "secret-token");
        toClose.add(server);
        return server;
    }

    private AttemptArguments arguments(FakeApiServer server, Duration requestTimeout)
    {
        return new AttemptArguments("127.0.0.1", server.port(), NODE, KEY, serviceAccount.resolve("token"), serviceAccount.resolve("ca.crt"),
                Duration.ofSeconds(5), requestTimeout, 3, 0);
    }

    /** As {@link TaintRemovalChild} starts it, but with its own standard error, to show that nothing goes there. */
    private static Process child(AttemptArguments attempt)
            throws Exception
    {
        ProcessBuilder builder = new ProcessBuilder(command(attempt.toArgs()));
        List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS").forEach(builder.environment()::remove);
        return builder.start();
    }

    private static List<String> command(List<String> args)
    {
        List<String> command = new ArrayList<>(List.of(java()));
        command.addAll(TaintRemovalChild.JVM_OPTIONS);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), TaintRemovalMain.class.getName()));
        command.addAll(args);
        return command;
    }

    private static String java()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static BufferedReader reader(Process process)
    {
        return new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }
}
