package io.cnichain.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.agent.time.Backoff;
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

    private final Attempt<Issued> attempt;
    private final String subject;
    private final Backoff backoff;
    private final Backoff refusals = new Backoff(Backoff.Policy.refusedByApiServer(), new SplittableRandom());
    private final SplittableRandom random = new SplittableRandom();
    private String lastError = "";
    private volatile String state = "not requested yet";
    private boolean saidUnbound;

    /** @param subject the account, for messages ({@code NAMESPACE/NAME}) */
    public PluginToken(Attempt<Issued> attempt, String subject)
    {
        this.attempt = requireNonNull(attempt, "attempt is null");
        this.subject = requireNonNull(subject, "subject is null");
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
        return new Issued(renewIn(answer.path("status").path("expirationTimestamp").asText("")), boundToNode);
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
            state = "not had yet: " + e.getMessage() + " (again in " + wait.toMillis() / 1000.0 + " s)";
            return new KubeWork.Next.In(wait);
        }
    }

    /** By the expiry the answer gives, not by what was asked. */
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
