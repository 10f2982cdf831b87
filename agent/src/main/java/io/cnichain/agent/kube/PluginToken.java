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
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.SplittableRandom;

import static java.util.Objects.requireNonNull;

/**
 * The plugin's own token, for the kubeconfig on the node's disk: requested for the plugin's service account
 * (TokenRequest), {@value #LIFETIME_SECONDS} seconds long, and requested again when four fifths of it have passed. The
 * agent's own token, with the agent's rights, never leaves its pod. It is bound to the agent's node (it dies with the
 * Node object): the API server binds a token to a pod only when the pod runs as that very account, and the node
 * outlives a rolling update of the agent, so the kubeconfig stays valid while the new agent starts. Each new token is
 * written to a file of the agent's own, which the reconcile loop watches as it watches a volume, and turns into the
 * kubeconfig. A failed request waits on the API server's back-off.
 *
 * <p>An API server that cannot bind a token to a Node (Kubernetes before 1.31, or 1.29 and 1.30 without the
 * {@code ServiceAccountTokenNodeBinding} feature) refuses such a request with 400; the token is then asked for bound by
 * time alone, and the log says so once.
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

    /** What one request got: when to ask again, and whether the token dies with the Node object too. */
    public record Issued(Duration renewIn, boolean boundToNode)
    {
        /** As a child prints it: {@code PT48M} or {@code PT48M unbound}. */
        @Override
        public String toString()
        {
            return boundToNode ? renewIn.toString() : renewIn + " unbound";
        }

        /** A child's value ({@link #toString()}) as the answer it was. */
        public static Issued parse(String value)
        {
            String[] parts = value.split(" ", 2);
            return new Issued(Duration.parse(parts[0]), parts.length == 1);
        }
    }

    private final Attempt<Issued> attempt;
    private final String subject;
    private final Clock clock;
    private final Backoff backoff;
    private String lastError = "";
    private volatile String state = "not requested yet";
    private boolean saidUnbound;

    /**
     * @param attempt one request of the token, which writes it and says when to renew it ({@link #request})
     * @param subject the account, for messages ({@code NAMESPACE/NAME})
     */
    public PluginToken(Attempt<Issued> attempt, String subject, Clock clock)
    {
        this.attempt = requireNonNull(attempt, "attempt is null");
        this.subject = requireNonNull(subject, "subject is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.backoff = new Backoff(Backoff.Policy.apiServer(), new SplittableRandom());
    }

    /**
     * One request, in this process: the token asked for, bound to the node, and written to {@code file}.
     *
     * @param account the plugin's service account, in the agent's namespace
     * @return when to ask again (four fifths of the lifetime the answer gives, at least a minute), and how it is bound
     */
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
        return new Issued(renewIn(answer.path("status").path("expirationTimestamp").asText("")), boundToNode);
    }

    private static ObjectNode tokenRequest(Optional<String> node)
    {
        ObjectNode request = CniJson.nodes().objectNode().put("apiVersion", "authentication.k8s.io/v1").put("kind", "TokenRequest");
        ObjectNode spec = request.putObject("spec").put("expirationSeconds", LIFETIME_SECONDS);
        node.ifPresent(name -> spec.putObject("boundObjectRef").put("apiVersion", "v1").put("kind", "Node").put("name", name));
        return request;
    }

    /** Where it stands, for {@code /readyz}'s detail. */
    public String describe()
    {
        return "the plugin's token (service account " + subject + "): " + state;
    }

    @Override
    public KubeWork.Next run(long now)
    {
        try {
            Issued issued = attempt.run();
            Duration renewIn = issued.renewIn();
            backoff.succeeded(now);
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
            return new KubeWork.Next.At(clock.nanoTime() + renewIn.toNanos());
        }
        catch (ApiCallException e) {
            Duration wait = e.wait(backoff, now);
            if (!e.kind().equals(lastError)) {
                log.warn("Cannot get the plugin's token yet, trying again with back-off: {}", e.getMessage());
                lastError = e.kind();
            }
            state = "not had yet: " + e.getMessage() + " (again in " + wait.toMillis() / 1000.0 + " s)";
            return new KubeWork.Next.At(now + wait.toNanos());
        }
    }

    /** Four fifths of the lifetime the answer gives (by its expiry, not by what was asked), at least a minute. */
    private static Duration renewIn(String expiration)
    {
        Duration lifetime = Duration.ofSeconds(LIFETIME_SECONDS);
        try {
            lifetime = Duration.between(Instant.now(), Instant.parse(expiration));
        }
        catch (DateTimeParseException e) {
            // no expiry given: the lifetime asked for
        }
        Duration renew = Duration.ofMillis(lifetime.toMillis() * 4 / 5);
        return renew.compareTo(Duration.ofMinutes(1)) < 0 ? Duration.ofMinutes(1) : renew;
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
