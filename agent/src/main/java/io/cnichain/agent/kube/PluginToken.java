package io.cnichain.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.agent.time.Backoff;
import io.cnichain.agent.time.Clock;
import io.cnichain.core.config.PodIdentity;
import io.cnichain.core.json.CniJson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Optional;
import java.util.SplittableRandom;

import static java.util.Objects.requireNonNull;

/**
 * The plugin's own token for the kubeconfig on the node's disk, so that the agent's token, with the agent's rights,
 * never leaves its pod. It is bound to the node, not the agent's pod: the API server binds a token to a pod only when
 * the pod runs as that very account, and the node outlives a rolling update of the agent. An API server that cannot
 * bind a token to a Node (before 1.31) refuses with 400; the token is then bound by time alone.
 */
public final class PluginToken
        implements KubeWork.Task
{
    private static final Logger log = LoggerFactory.getLogger(PluginToken.class);
    /**
     * Short-lived, and not 3607: the API server stretches a pod-bound token of exactly that lifetime to a year (its
     * kubelet projection's transition rule).
     */
    static final long LIFETIME_SECONDS = 3600;

    public record Issued(Duration renewIn, boolean boundToNode)
    {
        /** As a child prints it: {@code PT48M} or {@code PT48M unbound}. */
        @Override
        public String toString()
        {
            return boundToNode ? renewIn.toString() : renewIn + " unbound";
        }

        public static Issued parse(String value)
        {
            String[] parts = value.split(" ", 2);
            return new Issued(Duration.parse(parts[0]), parts.length == 1);
        }
    }

    /** The least wait between tries as the token nears its end (less up to a quarter): the refused calls' first back-off. */
    private static final Duration NEAR_END_WAIT = Duration.ofSeconds(30);
    private static final int MAX_TOKEN_BYTES = 64 * 1024;
    private static final Duration MAX_LIFETIME = Duration.ofDays(3650);

    private final Attempt<Issued> attempt;
    private final String subject;
    private final Path file;
    private final Clock clock;
    private final Backoff backoff;
    private final Backoff refusals = new Backoff(Backoff.Policy.refusedByApiServer(), new SplittableRandom());
    private final SplittableRandom random = new SplittableRandom();
    private String lastError = "";
    private volatile String state = "not requested yet";
    /** The token file as last looked at; guarded by this. */
    private Seen seen = Seen.NONE;
    private Optional<Instant> saidExpired = Optional.empty();
    private boolean saidUnbound;

    /**
     * A token file seen: when it was written, and when its token ends, on the clock's monotonic scale (so that a step of
     * the wall clock after the file was first seen does not move it) and as a date for messages.
     */
    private record Seen(Optional<FileTime> written, long endNanos, Optional<Instant> end)
    {
        static final Seen NONE = new Seen(Optional.empty(), 0, Optional.empty());
    }

    /**
     * @param subject the account, for messages ({@code NAMESPACE/NAME})
     * @param file    where {@code attempt} writes the token: one written by an earlier agent on this node counts until it ends
     */
    public PluginToken(Attempt<Issued> attempt, String subject, Path file, Clock clock)
    {
        this.attempt = requireNonNull(attempt, "attempt is null");
        this.subject = requireNonNull(subject, "subject is null");
        this.file = requireNonNull(file, "file is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.backoff = new Backoff(Backoff.Policy.apiServer(), new SplittableRandom());
    }

    /** One request, in this process: the token written to {@code file}, which the loop watches and turns into the kubeconfig. */
    public static Issued request(KubeApiClient client, PodIdentity pod, String account, Path file)
            throws ApiCallException
    {
        String path = "/api/v1/namespaces/" + pod.namespace() + "/serviceaccounts/" + account + "/token";
        KubeApiClient.Hint hint = new KubeApiClient.Hint(" (the agent's Role must allow create on serviceaccounts/token named " + account + ")",
                " (the service account " + account + " must exist in namespace " + pod.namespace() + ")");
        boolean boundToNode = true;
        JsonNode answer;
        try {
            answer = client.create(path, CniJson.compact(tokenRequest(Optional.of(pod.node()))), hint);
        }
        catch (ApiCallException e) {
            if (!e.kind().equals("HTTP 400")) {
                throw e;
            }
            boundToNode = false;
            answer = client.create(path, CniJson.compact(tokenRequest(Optional.empty())), hint);
        }
        String token = answer.path("status").path("token").asText("");
        if (token.isEmpty()) {
            throw new ApiCallException("response", "POST " + path + ": the answer holds no status.token");
        }
        try {
            write(file, token);
        }
        catch (IOException e) {
            throw new ApiCallException("file", file + ": cannot write the plugin's token: " + e.getMessage());
        }
        String expiration = answer.path("status").path("expirationTimestamp").asText("");
        Duration lifetime = lifetime(token).orElseGet(() -> untilExpiry(expiration));
        Duration renew = Duration.ofMillis(lifetime.toMillis() * 4 / 5);
        return new Issued(renew.compareTo(Duration.ofMinutes(1)) < 0 ? Duration.ofMinutes(1) : renew, boundToNode);
    }

    /**
     * The lifetime a service-account token states of itself, a JWT's {@code exp} less its {@code iat}: both by the API
     * server's clock, so that a node's clock set wrong does not move the renewal past the end.
     */
    static Optional<Duration> lifetime(String token)
    {
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3) {
            return Optional.empty();
        }
        try {
            JsonNode claims = CniJson.parse(Base64.getUrlDecoder().decode(parts[1]));
            JsonNode issued = claims.path("iat");
            JsonNode expires = claims.path("exp");
            // A lifetime of years is no service-account token's: not a date to judge by.
            return issued.canConvertToLong() && expires.canConvertToLong() && expires.asLong() > issued.asLong()
                    && expires.asLong() - issued.asLong() < MAX_LIFETIME.toSeconds() ? Optional.of(Duration.ofSeconds(expires.asLong() - issued.asLong()))
                    : Optional.empty();
        }
        catch (IllegalArgumentException | CniJson.InvalidJsonException e) {
            return Optional.empty();
        }
    }

    /**
     * The token in the file as it is now: its stated lifetime counted from when the file was written (also by an earlier
     * agent), read again only when the file changed. Asked by whoever needs it (a pass, a probe, this task), so that a
     * new token counts from the moment its file is there.
     */
    private synchronized Seen current()
    {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isRegularFile() || attributes.size() > MAX_TOKEN_BYTES) {
                seen = Seen.NONE;
            }
            else if (!seen.written().equals(Optional.of(attributes.lastModifiedTime()))) {
                Optional<Instant> end = lifetime(Files.readString(file, StandardCharsets.US_ASCII).trim())
                        .map(life -> attributes.lastModifiedTime().toInstant().plus(life));
                long endNanos = end.map(at -> clock.nanoTime() + Duration.between(clock.instant(), at).toNanos()).orElse(0L);
                seen = new Seen(Optional.of(attributes.lastModifiedTime()), endNanos, end);
            }
        }
        catch (IOException e) {
            seen = Seen.NONE;
        }
        return seen;
    }

    /** Why the agent is not ready for its token, if so: the one the kubeconfig holds has ended, and no other came. */
    public Optional<String> expired()
    {
        Seen token = current();
        return token.end().filter(end -> clock.reached(token.endNanos())).map(end -> "the plugin's token (service account " + subject
                + ") ended at " + end + ": the chained plugin's calls to the API server fail, and so pods on this node cannot start, until the "
                + "agent gets a new one (" + state + ")");
    }

    private static ObjectNode tokenRequest(Optional<String> node)
    {
        ObjectNode request = CniJson.nodes().objectNode().put("apiVersion", "authentication.k8s.io/v1").put("kind", "TokenRequest");
        ObjectNode spec = request.putObject("spec").put("expirationSeconds", LIFETIME_SECONDS);
        node.ifPresent(name -> spec.putObject("boundObjectRef").put("apiVersion", "v1").put("kind", "Node").put("name", name));
        return request;
    }

    public String describe()
    {
        return "the plugin's token (service account " + subject + "): " + state;
    }

    @Override
    public KubeWork.Next run(long now)
    {
        try {
            Issued issued = attempt.run();
            // Up to an eighth sooner (at 70 to 80 % of its life): agents that got their tokens together do not renew together for ever.
            Duration renewIn = issued.renewIn().minus(Duration.ofMillis((long) (random.nextDouble() * issued.renewIn().toMillis() / 8)));
            backoff.succeeded(now);
            refusals.reset();
            if (!issued.boundToNode() && !saidUnbound) {
                log.warn("The API server cannot bind a token to a Node (Kubernetes before 1.31, or the ServiceAccountTokenNodeBinding feature off): "
                        + "the plugin's token for service account {} is bound by its hour alone, and outlives this node's deletion until then", subject);
                saidUnbound = true;
            }
            if (!lastError.isEmpty() || state.startsWith("not")) {
                log.info("Got the plugin's token for service account {}, {}; the kubeconfig holds it from now on, renewed in {} s",
                        subject, issued.boundToNode() ? "bound to this node" : "bound by time alone", renewIn.toSeconds());
            }
            lastError = "";
            state = "renewed in " + renewIn.toSeconds() + " s";
            return new KubeWork.Next.In(renewIn);
        }
        catch (ApiCallException e) {
            Duration wait = e.wait(e.passing() ? backoff : refusals, now);
            if (!e.kind().equals(lastError)) {
                log.warn("Cannot get the plugin's token yet, trying again with back-off: {}", e.getMessage());
                lastError = e.kind();
            }
            Seen token = current();
            boolean ended = token.end().isPresent() && clock.reached(token.endNanos());
            if (token.end().isPresent() && !ended) {
                // Tried again at least once before the token ends, and more often as it nears its end; Retry-After is
                // kept as far as the back-off keeps it. Up to a quarter sooner at random: the tokens of a fleet issued
                // together end together, and their tries must not bunch up at the end.
                Duration half = Duration.ofNanos(token.endNanos() - now).dividedBy(2);
                Duration nearEnd = half.compareTo(NEAR_END_WAIT) < 0 ? NEAR_END_WAIT : half;
                nearEnd = nearEnd.minus(Duration.ofMillis((long) (random.nextDouble() * nearEnd.toMillis() / 4)));
                Duration capped = wait.compareTo(nearEnd) < 0 ? wait : nearEnd;
                Duration limit = wait;
                wait = e.retryAfter().map(asked -> asked.compareTo(limit) < 0 ? asked : limit).filter(asked -> asked.compareTo(capped) > 0).orElse(capped);
            }
            state = (token.end().isPresent() ? "not renewed: " : "not had yet: ") + e.getMessage() + " (again in " + wait.toMillis() / 1000.0 + " s)";
            if (ended && !token.end().equals(saidExpired)) {
                log.error("The plugin's token for service account {} ended at {} and no new one came: the chained plugin's calls to the API server "
                        + "fail, and so pods on this node cannot start; the agent is not ready until it gets one: {}", subject, token.end().get(),
                        e.getMessage());
                saidExpired = token.end();
            }
            return new KubeWork.Next.In(wait);
        }
    }

    /** By the expiry the answer gives against this node's clock, for a token that does not say its own. */
    private static Duration untilExpiry(String expiration)
    {
        try {
            return Duration.between(Instant.now(), Instant.parse(expiration));
        }
        catch (DateTimeParseException e) {
            return Duration.ofSeconds(LIFETIME_SECONDS);
        }
    }

    /** Atomically, readable by root only: the loop sees one complete token or the previous one. */
    private static void write(Path file, String token)
            throws IOException
    {
        Path directory = file.getParent();
        Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path temp = directory.resolve("." + file.getFileName() + ".tmp");
        Files.deleteIfExists(temp);
        Files.write(Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))),
                token.getBytes(StandardCharsets.US_ASCII), StandardOpenOption.WRITE);
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
