package io.cnichain.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.agent.kube.FakeApiServer.Request;
import io.cnichain.agent.time.ManualClock;
import io.cnichain.core.config.PodIdentity;
import io.cnichain.core.logcapture.CapturedLog;
import io.cnichain.testkit.KubeletVolume;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plugin's own token, requested on the API worker against the stand-in API server (the cluster suite reads with it
 * on the real one): what is asked, where the token goes, when it is asked again.
 */
class PluginTokenTest
{
    static final Duration WAIT = Duration.ofSeconds(20);
    static final PodIdentity POD = new PodIdentity("cni-chain", "cni-chain-x7k2p", "node-1");

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock();
    private final KubeWork work = new KubeWork(clock);
    private FakeApiServer server;

    @BeforeEach
    void start()
            throws Exception
    {
        CapturedLog.clear();
        KubeletVolume.serviceAccount(dir.resolve("serviceaccount"), "agent-token\n", Files.readString(TestCertificates.shared().caPem()), "cni-chain");
        server = FakeApiServer.start(TestCertificates.shared().server(), StartupTaintTest.node(), "agent-token");
    }

    @AfterEach
    void stop()
    {
        work.close();
        server.close();
    }

    @Test
    void requestsATokenBoundToTheAgentsNodeWritesItForTheKubeconfigAndRenewsItBeforeItEnds()
            throws Exception
    {
        Path file = dir.resolve("plugin-token/token");
        PluginToken token = token(file);
        work.add(token);
        long next = work.awaitRuns(1, WAIT);

        Request request = server.requests().get(0);
        assertThat(request.method() + " " + request.path()).isEqualTo("POST /api/v1/namespaces/cni-chain/serviceaccounts/cni-chain-plugin/token");
        assertThat(request.authorization()).as("asked with the agent's own token").isEqualTo("Bearer agent-token");
        JsonNode spec = request.json().path("spec");
        assertThat(spec.path("expirationSeconds").asLong()).as("short-lived, and not the 3607 s the API server stretches to a year").isEqualTo(3600);
        assertThat(spec.path("boundObjectRef").path("kind").asText()).as("the API server binds to a pod only its own account's tokens")
                .isEqualTo("Node");
        assertThat(spec.path("boundObjectRef").path("name").asText()).isEqualTo("node-1");
        assertThat(Files.readString(file)).endsWith(".plugin-token-1");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(Duration.ofNanos(next - clock.nanoTime())).as("70 to 80 %% of an hour").isBetween(Duration.ofMinutes(41), Duration.ofMinutes(49));
        assertThat(token.describe()).contains("cni-chain/cni-chain-plugin").contains("renewed in");
        assertThat(CapturedLog.lines()).anyMatch(line -> line.startsWith("INFO Got the plugin's token for service account cni-chain/cni-chain-plugin, bound to "
                + "this node"));

        clock.advance(Duration.ofMinutes(49));
        work.awaitRuns(2, WAIT);
        assertThat(Files.readString(file)).endsWith(".plugin-token-2");
        assertThat(server.issuedTokens()).containsExactly("plugin-token-1", "plugin-token-2");
    }

    @Test
    void whereTheApiServerCannotBindATokenToANodeItAsksForOneBoundByTimeAndSaysSoOnce()
            throws Exception
    {
        Path file = dir.resolve("plugin-token/token");
        server.nodeBinding(false);
        work.add(token(file));
        long next = work.awaitRuns(1, WAIT);
        assertThat(server.requests()).extracting(request -> request.json().path("spec").has("boundObjectRef")).containsExactly(true, false);
        assertThat(server.requests().get(1).json().path("spec").path("expirationSeconds").asLong()).isEqualTo(3600);
        assertThat(Files.readString(file)).endsWith(".plugin-token-1");
        clock.advance(Duration.ofNanos(next - clock.nanoTime()));
        work.awaitRuns(2, WAIT);
        assertThat(Files.readString(file)).endsWith(".plugin-token-2");
        assertThat(CapturedLog.lines()).filteredOn(line -> line.startsWith("WARN The API server cannot bind a token to a Node")).as("said once")
                .hasSize(1);
        assertThat(CapturedLog.lines()).anyMatch(line -> line.contains("cni-chain/cni-chain-plugin, bound by time alone"));
        assertThat(PluginToken.Issued.parse(new PluginToken.Issued(Duration.ofMinutes(48), false).toString()))
                .as("as a child prints it").isEqualTo(new PluginToken.Issued(Duration.ofMinutes(48), false));
    }

    /** A refusal is a setup to fix, not a blip: 2 000 agents asking every 30 s for ever would send ~50 refused requests a second. */
    @Test
    void aRefusedRequestSaysWhatTheRoleMustAllowAndIsAskedAgainSlowly()
            throws Exception
    {
        Path file = dir.resolve("plugin-token/token");
        server.forbidAll("system:serviceaccount:cni-chain:cni-chain");
        PluginToken token = token(file);
        work.add(token);
        long next = work.awaitRuns(1, WAIT);
        assertThat(file).doesNotExist();
        assertThat(Duration.ofNanos(next - clock.nanoTime())).isBetween(Duration.ofSeconds(30), Duration.ofSeconds(45));
        assertThat(token.describe()).contains("not had yet: POST /api/v1/namespaces/cni-chain/serviceaccounts/cni-chain-plugin/token: HTTP 403")
                .contains("(the agent's Role must allow create on serviceaccounts/token named cni-chain-plugin)");
        clock.advance(Duration.ofSeconds(45));
        next = work.awaitRuns(2, WAIT);
        assertThat(Duration.ofNanos(next - clock.nanoTime())).as("doubled").isBetween(Duration.ofSeconds(60), Duration.ofSeconds(90));
        for (int run = 3; run <= 8; run++) {
            clock.advance(Duration.ofNanos(next - clock.nanoTime()));
            next = work.awaitRuns(run, WAIT);
        }
        assertThat(Duration.ofNanos(next - clock.nanoTime())).as("after 8 refusals").isBetween(Duration.ofMinutes(10), Duration.ofMinutes(15));
        assertThat(CapturedLog.lines()).filteredOn(line -> line.startsWith("WARN Cannot get the plugin's token")).as("said once").hasSize(1);
    }

    /**
     * A token the answer says has already expired (the node's clock ahead of the API server's): renewed a minute later,
     * not at once and again and again.
     */
    @Test
    void aTokenThatExpiresTooSoonIsRenewedAMinuteLaterNotAtOnce()
            throws Exception
    {
        server.tokenLifetime(Duration.ofMinutes(-5));
        work.add(token(dir.resolve("plugin-token/token")));
        long next = work.awaitRuns(1, WAIT);
        assertThat(Duration.ofNanos(next - clock.nanoTime())).isBetween(Duration.ofSeconds(52), Duration.ofMinutes(1));
        assertThat(server.issuedTokens()).hasSize(1);
    }

    /** The token's own dates are the API server's: a node's clock 20 minutes behind must not move the renewal past the end. */
    @Test
    void aRenewalComesByTheTokensOwnLifetimeWhateverTheNodesClock()
            throws Exception
    {
        server.clockAhead(Duration.ofMinutes(20));
        work.add(token(dir.resolve("plugin-token/token")));
        long next = work.awaitRuns(1, WAIT);
        assertThat(Duration.ofNanos(next - clock.nanoTime())).as("70 to 80 %% of the hour the token states").isBetween(Duration.ofMinutes(41),
                Duration.ofMinutes(49));
    }

    /**
     * Renewals refused from the first (a Role changed by an upgrade): tried again more often as the token nears its end,
     * and once it ends, the agent is not ready (every new pod's setup fails then) and says so once.
     */
    @Test
    void aTokenThatEndsWithoutANewOneMakesTheAgentNotReadyAndIsSaidOnce()
            throws Exception
    {
        Path file = dir.resolve("plugin-token/token");
        PluginToken token = token(file);
        work.add(token);
        long next = work.awaitRuns(1, WAIT);
        java.time.Instant end = Files.getLastModifiedTime(file).toInstant().plus(Duration.ofHours(1));
        server.forbidAll("system:serviceaccount:cni-chain:cni-chain");
        int runs = 1;
        while (clock.instant().plusNanos(next - clock.nanoTime()).isBefore(end)) {
            assertThat(token.expired()).as("before its end").isEmpty();
            clock.advance(Duration.ofNanos(next - clock.nanoTime()));
            next = work.awaitRuns(++runs, WAIT);
        }
        assertThat(Duration.between(end, clock.instant().plusNanos(next - clock.nanoTime()))).as("the first try after the end, within")
                .isLessThanOrEqualTo(Duration.ofSeconds(30));
        assertThat(runs).as("refused tries, doubling but not past the end").isBetween(6, 20);
        assertThat(token.describe()).contains("not renewed: POST /api/v1/namespaces/cni-chain/serviceaccounts/cni-chain-plugin/token: HTTP 403");

        clock.advance(Duration.ofNanos(next - clock.nanoTime()));
        next = work.awaitRuns(++runs, WAIT);
        assertThat(token.expired()).hasValueSatisfying(reason -> assertThat(reason).startsWith("the plugin's token (service account "
                + "cni-chain/cni-chain-plugin) ended at " + end + ": the chained plugin's calls to the API server fail")
                .contains("HTTP 403"));
        clock.advance(Duration.ofNanos(next - clock.nanoTime()));
        work.awaitRuns(++runs, WAIT);
        assertThat(CapturedLog.lines()).filteredOn(line -> line.startsWith("ERROR The plugin's token for service account cni-chain/cni-chain-plugin "
                + "ended at " + end + " and no new one came")).as("said once").hasSize(1);
        assertThat(Files.readString(file)).as("the ended token stays: nothing better").endsWith(".plugin-token-1");
    }

    /** A busy API server's Retry-After is kept as far as the back-off keeps it: an hour asked for near the token's end is not waited. */
    @Test
    void aRetryAfterLongerThanTheBackOffsCapDoesNotOutlastTheToken()
            throws Exception
    {
        PluginToken token = token(dir.resolve("plugin-token/token"));
        work.add(token);
        long next = work.awaitRuns(1, WAIT);
        server.answerNext("POST", 429, java.util.Map.of("Retry-After", "3600"));
        clock.advance(Duration.ofNanos(next - clock.nanoTime()));
        next = work.awaitRuns(2, WAIT);
        assertThat(token.describe()).contains("HTTP 429");
        assertThat(Duration.ofNanos(next - clock.nanoTime())).isBetween(Duration.ofSeconds(30), Duration.ofMinutes(1));
    }

    /** Tokens issued together end together: the tries of a fleet whose renewals are refused do not bunch up at the end. */
    @Test
    void triesNearTheEndOfTokensIssuedTogetherSpreadOut()
            throws Exception
    {
        server.forbidAll("system:serviceaccount:cni-chain:cni-chain");
        long now = clock.instant().getEpochSecond();
        java.nio.file.attribute.FileTime written = java.nio.file.attribute.FileTime.from(clock.instant().minusSeconds(3540));
        long earliest = Long.MAX_VALUE;
        long latest = Long.MIN_VALUE;
        for (int agent = 0; agent < 20; agent++) {
            Path file = Files.createDirectories(dir.resolve("plugin-token-" + agent)).resolve("token");
            Files.writeString(file, FakeApiServer.jwt(now - 3540, now + 60, "issued-together"));
            Files.setLastModifiedTime(file, written);
            try (KubeWork each = new KubeWork(clock)) {
                each.add(token(file));
                long next = each.awaitRuns(1, WAIT);
                earliest = Math.min(earliest, next);
                latest = Math.max(latest, next);
            }
        }
        assertThat(Duration.ofNanos(earliest - clock.nanoTime())).as("before the end, a minute away").isLessThan(Duration.ofMinutes(1));
        assertThat(Duration.ofNanos(latest - earliest)).as("spread of 20 tries near the end").isGreaterThan(Duration.ofSeconds(2));
    }

    /** The token file outlives the container: one an earlier agent wrote counts until it ends, before any request. */
    @Test
    void aTokenLeftByAnEarlierAgentCountsUntilItEnds()
            throws Exception
    {
        Path file = Files.createDirectories(dir.resolve("plugin-token")).resolve("token");
        long now = clock.instant().getEpochSecond();
        Files.writeString(file, FakeApiServer.jwt(now - 3000, now + 600, "left-behind"));
        Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.from(clock.instant().minusSeconds(3000)));
        PluginToken token = token(file);
        assertThat(token.expired()).isEmpty();
        clock.advance(Duration.ofMinutes(11));
        assertThat(token.expired()).hasValueSatisfying(reason -> assertThat(reason).contains("ended at"));

        // A new token counts from the moment its file is there, whoever asks first (a pass, a probe), before the task hears.
        long later = clock.instant().getEpochSecond();
        Files.writeString(file, FakeApiServer.jwt(later, later + 3600, "new"));
        assertThat(token.expired()).isEmpty();

        Files.writeString(file, "not-a-jwt");
        assertThat(token(file).expired()).as("a token that does not say its end").isEmpty();
    }

    /**
     * Agents that got their tokens in the same minute (a DaemonSet created on every node, or the nodes whose renewals
     * fell into an outage, all served when it ends) must not renew in the same minute every 48 minutes for ever.
     */
    @Test
    void renewalsOfTokensIssuedTogetherSpreadOut()
            throws Exception
    {
        long earliest = Long.MAX_VALUE;
        long latest = Long.MIN_VALUE;
        for (int agent = 0; agent < 20; agent++) {
            try (KubeWork each = new KubeWork(clock)) {
                each.add(token(dir.resolve("plugin-token-" + agent + "/token")));
                long next = each.awaitRuns(1, WAIT);
                earliest = Math.min(earliest, next);
                latest = Math.max(latest, next);
            }
        }
        assertThat(Duration.ofNanos(latest - earliest)).as("spread of 20 renewals of tokens issued together").isGreaterThan(Duration.ofMinutes(1));
    }

    private PluginToken token(Path file)
    {
        KubeApiClient client = new KubeApiClient("127.0.0.1", server.port(), dir.resolve("serviceaccount/token"), dir.resolve("serviceaccount/ca.crt"),
                Duration.ofSeconds(5), clock);
        return new PluginToken(() -> PluginToken.request(client, POD, "cni-chain-plugin", file), "cni-chain/cni-chain-plugin", file, clock);
    }
}
