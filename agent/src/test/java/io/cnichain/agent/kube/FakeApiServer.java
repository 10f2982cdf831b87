package io.cnichain.agent.kube;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.cnichain.core.json.CniJson;
import io.cnichain.agent.kube.KubeApiClient;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A stand-in for the Kubernetes API server (no real one can run in these tests), for the calls the agent makes,
 * over HTTPS on 127.0.0.1 with a certificate of the test CA. It holds one node document and serves
 * {@code GET /api/v1/nodes/NAME} and JSON-patch {@code PATCH /api/v1/nodes/NAME}, and {@code GET} of any other object
 * a test puts at its path (a pod, a DaemonSet), with the API's semantics: bearer token checked (401), unknown node 404, a PATCH
 * in any other content type 415, the {@code test}/{@code remove}/{@code replace} operations applied for real and all
 * or nothing, 422 (Invalid) when one fails, 409 (Conflict) when the patch sets a stale
 * {@code metadata.resourceVersion}, and {@code resourceVersion} incremented on every change. Errors are {@code Status}
 * objects. A test scripts what the real server does only sometimes: an answer (403, 500, 429 with Retry-After, 409),
 * a slow answer, another controller changing the node between the remover's GET and its PATCH. Every request that
 * reaches the handler is recorded with the time it arrived.
 */
public final class FakeApiServer
        implements AutoCloseable
{
    static final String NODES = "/api/v1/nodes/";

    private final HttpsServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final String nodeName;
    private final List<Request> requests = new ArrayList<>();
    private final Deque<Scripted> script = new ArrayDeque<>();
    private final List<CountDownLatch> holds = new ArrayList<>();
    private final Map<String, ObjectNode> objects = new java.util.LinkedHashMap<>();
    private ObjectNode node;
    private String acceptedToken;
    private Consumer<ObjectNode> beforeNextPatch;
    private Optional<CountDownLatch> holdAll = Optional.empty();
    private final List<String> issued = new ArrayList<>();
    private static final String OUR_FENCE = "ValidatingAdmissionPolicy 'cni-chain-node-taint' with binding 'cni-chain-node-taint' denied request: "
            + "cni-chain may not change a node's labels, annotations, finalizers or owners";
    private boolean fenced = true;
    private String denial = OUR_FENCE;
    private boolean nodeBinding = true;
    private Optional<java.time.Duration> tokenLifetime = Optional.empty();
    private java.time.Duration clockAhead = java.time.Duration.ZERO;
    private long version = 100;
    private Optional<String> forbiddenUser = Optional.empty();

    private FakeApiServer(SSLContext tls, ObjectNode node, String acceptedToken)
            throws IOException
    {
        this.node = node.deepCopy();
        this.nodeName = node.path("metadata").path("name").asText();
        this.acceptedToken = acceptedToken;
        server = HttpsServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /**
     * @param tls           the server's certificate
     * @param node          the node document it serves
     * @param acceptedToken the one bearer token it accepts
     */
    public static FakeApiServer start(SSLContext tls, ObjectNode node, String acceptedToken)
            throws IOException
    {
        return new FakeApiServer(tls, node, acceptedToken);
    }

    public String port()
    {
        return Integer.toString(server.getAddress().getPort());
    }

    /** The node as it is now. */
    public synchronized ObjectNode node()
    {
        return node.deepCopy();
    }

    public synchronized void acceptToken(String token)
    {
        acceptedToken = token;
    }

    /** The next request with this method (or any, for null) gets this status and these headers, whatever it asks. */
    public synchronized void answerNext(String method, int status, Map<String, String> headers)
    {
        script.addLast(new Scripted(method, null, status, headers, Optional.empty()));
    }

    /** The next request for this path gets this status (a {@code Status} object), whatever it asks. */
    public synchronized void answerNextAt(String path, int status)
    {
        script.addLast(new Scripted(null, path, status, Map.of(), Optional.empty()));
    }

    /** The next request with this method is answered (normally) only once {@code release} is counted down. */
    public synchronized void holdNext(String method, CountDownLatch release)
    {
        script.addLast(new Scripted(method, null, 0, Map.of(), Optional.of(release)));
        holds.add(release);
    }

    /** Every request is answered (normally) only once {@code release} is counted down: an API server that hangs. */
    public synchronized void holdAll(CountDownLatch release)
    {
        holdAll = Optional.of(release);
        holds.add(release);
    }

    /** Serves {@code object} to {@code GET path} from now on, with a new {@code resourceVersion}, as a write does. */
    public synchronized void put(String path, JsonNode object)
    {
        ObjectNode copy = (ObjectNode) object.deepCopy();
        if (copy.path("metadata") instanceof ObjectNode metadata) {
            metadata.put("resourceVersion", Long.toString(++version));
        }
        objects.put(path, copy);
        notifyAll();
    }

    /**
     * The RBAC that allowed {@code user} is deleted: every request from now on is authenticated but refused, 403 with the
     * API server's message ({@code staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go},
     * {@code forbiddenMessage}: {@code <resource> "<name>" is forbidden: User "<user>" cannot <verb> resource
     * "<resource>" in API group "<group>" in the namespace "<namespace>"}). Watches already open go on: the API server
     * authorizes a request when it starts.
     */
    public synchronized void forbidAll(String user)
    {
        forbiddenUser = Optional.of(user);
    }

    /** Changes the node as served from now on (another controller, a cordon). */
    public synchronized void changeNode(Consumer<ObjectNode> change)
    {
        change.accept(node);
        bumpResourceVersion(node);
    }

    /** The node is gone: 404 from now on. */
    public synchronized void removeNode()
    {
        node = null;
    }

    /** The object {@code GET path} serves now, if any. */
    public synchronized Optional<JsonNode> get(String path)
    {
        return Optional.ofNullable(objects.get(path)).map(JsonNode::deepCopy);
    }

    /** {@code GET path} answers 404 from now on, as for an object deleted. */
    public synchronized void remove(String path)
    {
        objects.remove(path);
    }

    /**
     * Whether a ValidatingAdmissionPolicy fences the agent's changes to Nodes, as components/node-taint's does: with
     * it (the default), a change of a label is denied with the API server's wording for a policy's denial; without it,
     * admitted. Seen by a dry run ({@code dryRun=All}), which stores nothing, as by a real change.
     */
    public synchronized void fence(boolean present)
    {
        fenced = present;
        denial = OUR_FENCE;
    }

    /** Without our fence, another policy denies a change of a node's labels, for its own reasons. */
    public synchronized void fenceByAnotherPolicyOnly()
    {
        fenced = true;
        denial = "ValidatingAdmissionPolicy 'platform-node-labels' with binding 'platform-node-labels' denied request: node labels belong to the "
                + "platform team";
    }

    /**
     * Whether a TokenRequest may bind its token to a Node: without (Kubernetes before 1.31 by default) it is refused
     * with 400 and the wording of the API server's token registry (pkg/registry/core/serviceaccount/storage/token.go).
     */
    /** Tokens expire this long after they are issued, whatever was asked; negative: already expired by the node's clock (a skew). */
    public synchronized void tokenLifetime(java.time.Duration lifetime)
    {
        tokenLifetime = Optional.of(lifetime);
    }

    public synchronized void nodeBinding(boolean supported)
    {
        nodeBinding = supported;
    }

    /** This server's clock runs ahead of the node's by this much (negative: behind), as the dates in its tokens show. */
    public synchronized void clockAhead(java.time.Duration ahead)
    {
        clockAhead = ahead;
    }

    /**
     * A token as the API server's are, a JWT whose claims date it by the server's clock; signed by nobody: its last part
     * is the token's name in {@link #issuedTokens()}.
     */
    public static String jwt(long issuedAt, long expiresAt, String name)
    {
        java.util.Base64.Encoder base64 = java.util.Base64.getUrlEncoder().withoutPadding();
        String claims = "{\"aud\":[\"https://kubernetes.default.svc\"],\"exp\":" + expiresAt + ",\"iat\":" + issuedAt
                + ",\"sub\":\"system:serviceaccount:cni-chain:cni-chain-plugin\"}";
        return base64.encodeToString("{\"alg\":\"RS256\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8)) + "."
                + base64.encodeToString(claims.getBytes(java.nio.charset.StandardCharsets.UTF_8)) + "." + name;
    }

    /** The names of the tokens issued by TokenRequest so far, in order: each token ends with its name. */
    public synchronized List<String> issuedTokens()
    {
        return List.copyOf(issued);
    }

    /** Another controller changes the node just before the next PATCH is applied (after the remover's GET). */
    synchronized void beforeNextPatch(Consumer<ObjectNode> change)
    {
        beforeNextPatch = change;
    }

    public synchronized List<Request> requests()
    {
        return List.copyOf(requests);
    }

    /** Waits until at least {@code n} requests have reached the handler; a barrier for negative checks. */
    public synchronized List<Request> awaitRequests(int n, Duration timeout)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (requests.size() < n) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("the stand-in API server saw " + requests.size() + " request(s), not " + n + ": " + requests);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return List.copyOf(requests);
    }

    @Override
    public void close()
    {
        synchronized (this) {
            holds.forEach(CountDownLatch::countDown);
        }
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange exchange)
            throws IOException
    {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            Request request = new Request(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
                    Optional.ofNullable(exchange.getRequestURI().getRawQuery()).orElse(""),
                    exchange.getRequestHeaders().getFirst("Content-Type"), exchange.getRequestHeaders().getFirst("Authorization"),
                    exchange.getRequestHeaders().getFirst("Accept"), new String(body, StandardCharsets.UTF_8), System.nanoTime());
            Optional<Scripted> scripted;
            Optional<CountDownLatch> hangs;
            synchronized (this) {
                requests.add(request);
                notifyAll();
                scripted = script.stream().filter(s -> (s.method() == null || s.method().equals(request.method()))
                        && (s.path() == null || s.path().equals(request.path()))).findFirst();
                scripted.ifPresent(script::remove);
                hangs = holdAll;
            }
            if (hangs.isPresent()) {
                try {
                    hangs.get().await(30, TimeUnit.SECONDS);
                }
                catch (InterruptedException e) {
                    return;
                }
            }
            if (scripted.isPresent() && scripted.get().hold().isPresent()) {
                try {
                    scripted.get().hold().get().await(30, TimeUnit.SECONDS);
                }
                catch (InterruptedException e) {
                    return;
                }
            }
            if (scripted.isPresent() && scripted.get().status() > 0) {
                scripted.get().headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
                respond(exchange, scripted.get().status(), status(scripted.get().status(), reason(scripted.get().status()), message(scripted.get().status())));
                return;
            }
            Answer answer = answer(request);
            respond(exchange, answer.status(), answer.body());
        }
    }

    private synchronized Answer answer(Request request)
    {
        if (!("Bearer " + acceptedToken).equals(request.authorization())) {
            return failure(401, "Unauthorized", "Unauthorized");
        }
        if (forbiddenUser.isPresent()) {
            return forbidden(request, forbiddenUser.get());
        }
        if (request.method().equals("POST") && request.path().matches("/api/v1/namespaces/[^/]+/serviceaccounts/[^/]+/token")) {
            return tokenRequest(request);
        }
        if (node == null || !request.path().equals(NODES + nodeName)) {
            ObjectNode object = objects.get(request.path());
            String[] segments = request.path().split("/");
            String name = segments[segments.length - 1];
            String resource = segments.length > 1 ? segments[segments.length - 2] + (request.path().startsWith("/apis/apps/") ? ".apps" : "") : "";
            if (object == null) {
                return failure(404, "NotFound", resource + " \"" + name + "\" not found");
            }
            if (!request.method().equals("GET")) {
                return failure(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
            }
            return new Answer(200, object.deepCopy());
        }
        if (request.method().equals("GET")) {
            return new Answer(200, node.deepCopy());
        }
        if (!request.method().equals("PATCH")) {
            return failure(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
        }
        if (!KubeApiClient.JSON_PATCH.equals(request.contentType())) {
            return failure(415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media types include: "
                    + "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json");
        }
        if (beforeNextPatch != null && !request.query().contains("dryRun=All")) {
            beforeNextPatch.accept(node);
            bumpResourceVersion(node);
            beforeNextPatch = null;
        }
        String current = node.path("metadata").path("resourceVersion").asText();
        ObjectNode patched = node.deepCopy();
        try {
            JsonNode operations = CniJson.parse(request.body().getBytes(StandardCharsets.UTF_8));
            if (!operations.isArray()) {
                return failure(400, "BadRequest", "json: cannot unmarshal object into Go value of type jsonpatch.Patch");
            }
            for (JsonNode operation : operations) {
                apply(patched, operation);
            }
        }
        catch (PatchFailed | CniJson.InvalidJsonException e) {
            return failure(422, "Invalid", "the server rejected our request due to an error in our request: " + e.getMessage());
        }
        boolean labelsChanged = !patched.path("metadata").path("labels").equals(node.path("metadata").path("labels"));
        if (labelsChanged && fenced) {
            return failure(403, "Forbidden", "nodes \"" + nodeName + "\" is forbidden: " + denial);
        }
        if (request.query().contains("dryRun=All")) {
            return new Answer(200, patched);
        }
        if (!patched.path("metadata").path("resourceVersion").asText().equals(current)) {
            return failure(409, "Conflict", "Operation cannot be fulfilled on nodes \"" + nodeName
                    + "\": the object has been modified; please apply your changes to the latest version and try again");
        }
        if (!patched.equals(node)) {
            bumpResourceVersion(patched);
            node = patched;
        }
        return new Answer(200, node.deepCopy());
    }

    /**
     * A TokenRequest for an account: a new token each time, expiring as asked ({@code spec.expirationSeconds}), bound as
     * asked; 201 with the request and its status, as the API server answers.
     */
    private Answer tokenRequest(Request request)
    {
        JsonNode asked = request.json();
        if (!nodeBinding && asked.path("spec").path("boundObjectRef").path("kind").asText().equals("Node")) {
            return failure(400, "BadRequest", "cannot bind token to a Node object as the \"ServiceAccountTokenNodeBinding\" feature-gate is disabled");
        }
        String name = "plugin-token-" + (issued.size() + 1);
        issued.add(name);
        ObjectNode answer = ((ObjectNode) asked).deepCopy();
        long seconds = tokenLifetime.map(java.time.Duration::toSeconds).orElse(asked.path("spec").path("expirationSeconds").asLong(3600));
        java.time.Instant now = java.time.Instant.now().plus(clockAhead).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        answer.putObject("status").put("token", jwt(now.getEpochSecond(), now.getEpochSecond() + seconds, name))
                .put("expirationTimestamp", now.plusSeconds(seconds).toString());
        return new Answer(201, answer);
    }

    /** 403 as the API server words it for this request (see {@link #forbidAll}). */
    private static Answer forbidden(Request request, String user)
    {
        String[] segments = request.path().split("/");
        boolean core = request.path().startsWith("/api/v1/");
        String group = core ? "" : segments[2];
        int namespaces = java.util.Arrays.asList(segments).indexOf("namespaces");
        String namespace = namespaces > 0 ? segments[namespaces + 1] : "";
        int resourceIndex = namespaces > 0 ? namespaces + 2 : (core ? 3 : 4);
        String resource = segments[resourceIndex];
        boolean named = segments.length > resourceIndex + 1;
        String verb = switch (request.method()) {
            case "GET" -> named ? "get" : "list";
            case "PATCH" -> "patch";
            case "PUT" -> "update";
            case "POST" -> "create";
            case "DELETE" -> "delete";
            default -> request.method().toLowerCase(java.util.Locale.ROOT);
        };
        String subject = (group.isEmpty() ? resource : resource + "." + group) + (named ? " \"" + segments[resourceIndex + 1] + "\"" : "");
        return failure(403, "Forbidden", subject + " is forbidden: User \"" + user + "\" cannot " + verb + " resource \"" + resource
                + "\" in API group \"" + group + "\"" + (namespace.isEmpty() ? " at the cluster scope" : " in the namespace \"" + namespace + "\""));
    }

    private static void apply(ObjectNode document, JsonNode operation)
            throws PatchFailed
    {
        String op = operation.path("op").asText();
        JsonPointer path = JsonPointer.compile(operation.path("path").asText());
        JsonNode parent = document.at(path.head());
        String last = path.last().getMatchingProperty();
        switch (op) {
            case "test" -> {
                if (!document.at(path).equals(operation.path("value"))) {
                    throw new PatchFailed("testing value " + path + " failed: test failed");
                }
            }
            case "remove", "replace" -> {
                if (parent instanceof ArrayNode array && last.matches("0|[1-9][0-9]*") && Integer.parseInt(last) < array.size()) {
                    if (op.equals("remove")) {
                        array.remove(Integer.parseInt(last));
                    }
                    else {
                        array.set(Integer.parseInt(last), operation.path("value"));
                    }
                }
                else if (parent instanceof ObjectNode object && object.has(last)) {
                    if (op.equals("remove")) {
                        object.remove(last);
                    }
                    else {
                        object.set(last, operation.path("value"));
                    }
                }
                else {
                    throw new PatchFailed(op + " operation does not apply: doc is missing path: " + path);
                }
            }
            case "add" -> {
                if (parent instanceof ObjectNode object) {
                    object.set(last, operation.path("value"));
                }
                else if (parent instanceof ArrayNode array && last.equals("-")) {
                    array.add(operation.path("value"));
                }
                else {
                    throw new PatchFailed("add operation does not apply: doc is missing path: " + path);
                }
            }
            default -> throw new PatchFailed("unexpected op: " + op);
        }
    }

    private static void bumpResourceVersion(ObjectNode document)
    {
        ObjectNode metadata = (ObjectNode) document.path("metadata");
        metadata.put("resourceVersion", Long.toString(Long.parseLong(metadata.path("resourceVersion").asText("0")) + 1));
    }

    private static Answer failure(int code, String reason, String message)
    {
        return new Answer(code, status(code, reason, message));
    }

    private static ObjectNode status(int code, String reason, String message)
    {
        ObjectNode status = JsonNodeFactory.instance.objectNode().put("kind", "Status").put("apiVersion", "v1");
        status.putObject("metadata");
        return status.put("status", "Failure").put("message", message).put("reason", reason).put("code", code);
    }

    private static String reason(int code)
    {
        return switch (code) {
            case 403 -> "Forbidden";
            case 404 -> "NotFound";
            case 409 -> "Conflict";
            case 429 -> "TooManyRequests";
            case 500 -> "InternalError";
            case 503 -> "ServiceUnavailable";
            default -> "Unknown";
        };
    }

    private String message(int code)
    {
        return switch (code) {
            case 403 -> "nodes \"" + nodeName + "\" is forbidden: User \"system:serviceaccount:linkerd-cni:linkerd-cni\" cannot get resource "
                    + "\"nodes\" in API group \"\" at the cluster scope";
            case 404 -> "the server could not find the requested resource";
            case 409 -> "Operation cannot be fulfilled on nodes \"" + nodeName + "\": the object has been modified; please apply your changes "
                    + "to the latest version and try again";
            case 429 -> "Too many requests, please try again later.";
            case 500 -> "Internal error occurred: etcdserver: request timed out";
            default -> "the server is currently unable to handle the request";
        };
    }

    private static void respond(HttpExchange exchange, int code, JsonNode body)
            throws IOException
    {
        byte[] bytes = CniJson.compact(body).getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(code, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /**
     * A request as it reached the handler.
     *
     * @param receivedNanos {@link System#nanoTime()} on arrival: the stub's clock
     */
    public record Request(String method, String path, String query, String contentType, String authorization, String accept, String body,
            long receivedNanos)
    {
        JsonNode json()
        {
            return CniJson.parse(body.getBytes(StandardCharsets.UTF_8));
        }
    }

    private record Scripted(String method, String path, int status, Map<String, String> headers, Optional<CountDownLatch> hold) {}

    private record Answer(int status, JsonNode body) {}

    private static final class PatchFailed
            extends Exception
    {
        PatchFailed(String message)
        {
            super(message);
        }
    }
}
