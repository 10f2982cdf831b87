package io.cnichain.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.CniChainException;
import io.cnichain.core.fs.PodVolumeFiles;
import io.cnichain.core.install.KubeconfigRenderer;
import io.cnichain.core.json.CniJson;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.Security;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The agent's one client of the Kubernetes API, in-process: the JDK's HTTP client over https only, trusting only the
 * CA file, which is read before every call (the client is rebuilt when it changes); the service-account token is
 * read for every request (the kubelet rotates it). No request is sent unless both were read, and the token only after
 * TLS verified the server's certificate and host name. Every call is bounded by the connect and request timeouts.
 * Bodies are JSON, read with Jackson; errors are the API's {@code Status} message on one line, never more of a body.
 */
public final class KubeApiClient
{
    public static final String JSON_PATCH = "application/json-patch+json";
    private static final int MAX_FILE_BYTES = 1024 * 1024;
    private static final int MAX_MESSAGE_CHARS = 300;

    private final String base;
    private final Path tokenFile;
    private final Path caFile;
    private final Duration connectTimeout;
    private final Duration requestTimeout;
    private byte[] trustedPem;
    private HttpClient http;

    /**
     * @param host           the API server's host ({@code KUBERNETES_SERVICE_HOST})
     * @param port           its port
     * @param tokenFile      the service-account token, read for every request
     * @param caFile         the one CA trusted, read for every call
     * @param connectTimeout bound on a TCP and TLS connection
     * @param requestTimeout bound on one request
     */
    public KubeApiClient(String host, String port, Path tokenFile, Path caFile, Duration connectTimeout, Duration requestTimeout)
    {
        this.base = KubeconfigRenderer.serverUrl("https", requireNonNull(host, "host is null"), requireNonNull(port, "port is null"));
        this.tokenFile = requireNonNull(tokenFile, "tokenFile is null");
        this.caFile = requireNonNull(caFile, "caFile is null");
        this.connectTimeout = requireNonNull(connectTimeout, "connectTimeout is null");
        this.requestTimeout = requireNonNull(requestTimeout, "requestTimeout is null");
    }

    /**
     * {@code GET path}.
     *
     * @param path the object's path, such as {@code /api/v1/nodes/NAME}
     * @param hint added to an error's message for 403 and 404 (which RBAC rule, which variable), or empty
     * @return the object; empty when the API answers 404
     * @throws ApiCallException for any other answer than 200 or 404, or no answer
     */
    public Optional<JsonNode> find(String path, Hint hint)
            throws ApiCallException, InterruptedException
    {
        return read(path, hint, true);
    }

    /** {@code GET path}, where 404 is an error like any other: see {@link #find}. */
    public JsonNode get(String path, Hint hint)
            throws ApiCallException, InterruptedException
    {
        return read(path, hint, false).orElseThrow();
    }

    private Optional<JsonNode> read(String path, Hint hint, boolean notFoundIsAnswer)
            throws ApiCallException, InterruptedException
    {
        HttpResponse<byte[]> response = send("GET", path, HttpRequest.newBuilder(uri(path)).GET());
        if (response.statusCode() == 404 && notFoundIsAnswer) {
            return Optional.empty();
        }
        if (response.statusCode() != 200) {
            throw failure("GET", path, response, hint);
        }
        try {
            return Optional.of(CniJson.parse(response.body()));
        }
        catch (CniJson.InvalidJsonException e) {
            throw new ApiCallException("response", "GET " + path + ": the answer " + e.getMessage());
        }
    }

    /**
     * {@code PATCH path} with a JSON patch.
     *
     * @return 200 when applied; 422 (a {@code test} operation failed) or 409 (a conflict) when the object changed
     *         since it was read
     * @throws ApiCallException for any other answer, or no answer
     */
    public int jsonPatch(String path, String operations, Hint hint)
            throws ApiCallException, InterruptedException
    {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).header("Content-Type", JSON_PATCH)
                .method("PATCH", HttpRequest.BodyPublishers.ofString(operations, StandardCharsets.UTF_8));
        HttpResponse<byte[]> response = send("PATCH", path, request);
        int status = response.statusCode();
        if (status == 200 || status == 409 || status == 422) {
            return status;
        }
        throw failure("PATCH", path, response, hint);
    }

    /**
     * {@code GET path} with {@code watch=true}: the API's watch of a collection, narrowed by the path's query (such as
     * {@code fieldSelector=metadata.name=NAME}). Each event ({@code {"type": "ADDED|MODIFIED|DELETED|BOOKMARK|ERROR",
     * "object": {...}}}, one JSON document per line) goes to {@code events} as it arrives, until the server ends the
     * watch (its {@code timeoutSeconds}), {@code events} returns false, or {@code maxDuration} passes (a connection that
     * went silent).
     *
     * @param opened run once the server has accepted the watch (answered 200), before the first event
     * @throws ApiCallException when the watch cannot start (any answer but 200), or its stream breaks
     */
    public void watch(String path, Hint hint, Duration maxDuration, Runnable opened, java.util.function.Predicate<JsonNode> events)
            throws ApiCallException, InterruptedException
    {
        HttpResponse<java.util.stream.Stream<String>> response = send("GET", path, HttpRequest.newBuilder(uri(path)).GET(),
                HttpResponse.BodyHandlers.ofLines());
        try (java.util.stream.Stream<String> lines = response.body()) {
            if (response.statusCode() != 200) {
                byte[] body = String.join("\n", (Iterable<String>) lines.limit(100)::iterator).getBytes(StandardCharsets.UTF_8);
                throw failure("GET", path, response.statusCode(), body, response, hint);
            }
            opened.run();
            // A watch whose connection died without a word would wait forever: closing the stream ends it.
            java.util.concurrent.CompletableFuture.delayedExecutor(maxDuration.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                    .execute(lines::close);
            java.util.Iterator<String> each = lines.iterator();
            while (each.hasNext()) {
                String line = each.next();
                if (line.isBlank()) {
                    continue;
                }
                JsonNode event;
                try {
                    event = CniJson.parse(line.getBytes(StandardCharsets.UTF_8));
                }
                catch (CniJson.InvalidJsonException e) {
                    throw new ApiCallException("response", "GET " + path + ": a watch event " + e.getMessage());
                }
                if (!events.test(event)) {
                    return;
                }
            }
        }
        catch (java.io.UncheckedIOException e) {
            throw new ApiCallException("I/O", "GET " + base + path + ": the watch broke: " + reason(e.getCause()));
        }
        catch (IllegalStateException e) {
            // closed by the bound above: the caller starts a new watch
        }
    }

    private URI uri(String path)
    {
        return URI.create(base + path);
    }

    private HttpResponse<byte[]> send(String method, String path, HttpRequest.Builder request)
            throws ApiCallException, InterruptedException
    {
        return send(method, path, request, HttpResponse.BodyHandlers.ofByteArray());
    }

    /**
     * Sends with the token; the time bound is on the answer's head (a watch's body then streams without one).
     *
     * <p>API servers and the load balancers before them close keep-alive connections that sat idle. A request sent on
     * one just as it closes gets no answer at all ("header parser received no bytes", a reset): it is sent once more,
     * at once, on a new connection. Safe for what we send: GETs, and JSON patches whose {@code test} operation makes
     * a repeat of an applied patch fail (422) instead of applying twice. Timeouts and answers are never sent again.
     */
    private <T> HttpResponse<T> send(String method, String path, HttpRequest.Builder request, HttpResponse.BodyHandler<T> body)
            throws ApiCallException, InterruptedException
    {
        String token = token();
        HttpClient client = client();
        String call = method + " " + base + path;
        HttpRequest built = request.header("Accept", "application/json").header("Authorization", "Bearer " + token).timeout(requestTimeout).build();
        try {
            try {
                return client.send(built, body);
            }
            catch (IOException e) {
                if (!closedBeforeAnswer(e)) {
                    throw e;
                }
                // The pool gave a connection the other end had closed; it is gone from the pool now, so this opens a new one.
                return client.send(built, body);
            }
        }
        catch (HttpConnectTimeoutException e) {
            throw new ApiCallException("connect timeout", call + ": no connection within " + connectTimeout.toMillis() + " ms");
        }
        catch (HttpTimeoutException e) {
            throw new ApiCallException("timeout", call + ": no answer within " + requestTimeout.toMillis() + " ms");
        }
        catch (ConnectException e) {
            throw new ApiCallException("connection", call + ": cannot connect: " + reason(e));
        }
        catch (IOException e) {
            if (causedBy(e, SSLException.class)) {
                // Without it the handshake with a Go server (X25519, P-256) fails with no word of why.
                String runtime = Security.getProvider("SunEC") == null
                        ? " (and this Java runtime lacks module jdk.crypto.ec, which TLS with the API server needs)" : "";
                throw new ApiCallException("TLS", call + ": TLS failed, nothing sent (the server's certificate must be signed by the CA in "
                        + caFile + " and name the host)" + runtime + ": " + reason(e));
            }
            throw new ApiCallException("I/O", call + ": " + reason(e));
        }
    }

    private HttpClient client()
            throws ApiCallException
    {
        byte[] pem = readSmall(caFile, "CA", "the CA certificate");
        if (http == null || !Arrays.equals(pem, trustedPem)) {
            http = HttpClient.newBuilder()
                    .sslContext(TrustedCa.sslContext(pem, caFile))
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(connectTimeout)
                    .followRedirects(HttpClient.Redirect.NEVER)
                    .proxy(HttpClient.Builder.NO_PROXY)
                    .build();
            trustedPem = pem;
        }
        return http;
    }

    private String token()
            throws ApiCallException
    {
        String token = new String(readSmall(tokenFile, "token", "the service-account token"), StandardCharsets.UTF_8).trim();
        if (token.isEmpty()) {
            throw new ApiCallException("token", tokenFile + ": the service-account token is empty; no request sent");
        }
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                throw new ApiCallException("token", tokenFile + ": the service-account token holds characters a token never has; no request sent");
            }
        }
        return token;
    }

    /**
     * Reads a small file of a pod volume: following its links inside the volume (the kubelet's {@code ..data} swap),
     * at most {@value #MAX_FILE_BYTES} bytes, never waiting on a FIFO.
     */
    private static byte[] readSmall(Path file, String kind, String what)
            throws ApiCallException
    {
        try {
            return PodVolumeFiles.read(file, MAX_FILE_BYTES);
        }
        catch (CniChainException e) {
            throw new ApiCallException(kind, file + ": " + what + " " + e.reason() + "; no request sent");
        }
    }

    private static ApiCallException failure(String method, String path, HttpResponse<byte[]> response, Hint hint)
    {
        return failure(method, path, response.statusCode(), response.body(), response, hint);
    }

    private static ApiCallException failure(String method, String path, int status, byte[] body, HttpResponse<?> response, Hint hint)
    {
        String advice = switch (status) {
            case 401 -> " (the service-account token was refused)";
            case 403 -> hint.forbidden();
            case 404 -> hint.notFound();
            default -> "";
        };
        Optional<Duration> retryAfter = status == 429 || status >= 500 ? retryAfter(response) : Optional.empty();
        String message = method + " " + path + ": HTTP " + status + statusMessage(body).map(m -> " " + m).orElse("") + advice
                + retryAfter.map(wait -> "; Retry-After " + wait.toMillis() / 1000.0 + " s").orElse("");
        return new ApiCallException("HTTP " + status, message, retryAfter);
    }

    /** The message of the API's {@code Status} object, on one line and bounded; nothing else of a body is shown. */
    private static Optional<String> statusMessage(byte[] body)
    {
        try {
            JsonNode message = CniJson.parse(body).path("message");
            if (message.isTextual() && !message.asText().isBlank()) {
                String text = message.asText().replaceAll("\\p{Cntrl}+", " ").trim();
                return Optional.of(text.length() > MAX_MESSAGE_CHARS ? text.substring(0, MAX_MESSAGE_CHARS) + "…" : text);
            }
        }
        catch (CniJson.InvalidJsonException e) {
            // not a Status object: the status code says enough
        }
        return Optional.empty();
    }

    private static Optional<Duration> retryAfter(HttpResponse<?> response)
    {
        return response.headers().firstValue("Retry-After").flatMap(value -> parseRetryAfter(value, ZonedDateTime.now()));
    }

    /**
     * @param value a {@code Retry-After} header: seconds, or an HTTP date
     * @param now   the time now, for a date
     * @return how long to wait; empty when the header means nothing
     */
    public static Optional<Duration> parseRetryAfter(String value, ZonedDateTime now)
    {
        String text = value.trim();
        if (text.matches("[0-9]{1,9}")) {
            return Optional.of(Duration.ofSeconds(Long.parseLong(text)));
        }
        try {
            Duration until = Duration.between(now, ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME));
            return Optional.of(until.isNegative() ? Duration.ZERO : until);
        }
        catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** @return whether a request failed because its connection was closed before any byte of an answer came */
    private static boolean closedBeforeAnswer(IOException e)
    {
        if (e instanceof HttpTimeoutException || e instanceof ConnectException || causedBy(e, SSLException.class)) {
            return false;
        }
        String message = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
        return causedBy(e, java.io.EOFException.class) || message.contains("header parser received no bytes") || message.contains("connection reset")
                || message.contains("connection closed") || message.contains("broken pipe");
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type)
    {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return true;
            }
        }
        return false;
    }

    private static String reason(Throwable e)
    {
        String message = e.getMessage();
        String text = message == null || message.isBlank() ? e.getClass().getSimpleName() : message.replaceAll("\\p{Cntrl}+", " ");
        return text.length() > MAX_MESSAGE_CHARS ? text.substring(0, MAX_MESSAGE_CHARS) + "…" : text;
    }

    /**
     * What to add to an error's message, for the answers that mean the setup is wrong.
     *
     * @param forbidden added for 403, such as {@code " (the agent's ClusterRole must allow get on nodes)"}
     * @param notFound  added for 404
     */
    public record Hint(String forbidden, String notFound)
    {
        public Hint
        {
            requireNonNull(forbidden, "forbidden is null");
            requireNonNull(notFound, "notFound is null");
        }
    }
}
