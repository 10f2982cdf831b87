package io.cnichain.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.agent.time.Clock;
import io.cnichain.core.CniChainException;
import io.cnichain.core.Printable;
import io.cnichain.core.config.ApiServerSettings;
import io.cnichain.core.fs.PodVolumeFiles;
import io.cnichain.core.install.KubeconfigRenderer;
import io.cnichain.core.json.CniJson;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Security;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static java.util.Objects.requireNonNull;

/**
 * The agent's one client of the Kubernetes API: HTTPS only, trusting only the CA file, with the service-account token,
 * both read again for every call (the kubelet rotates them). One connection per call: the agent calls a few times in its
 * life, and a connection kept open would be one more thing for a thousand agents to hold on the API server. Every call
 * ends by its deadline, the whole answer included.
 */
public final class KubeApiClient
{
    public static final String JSON_PATCH = "application/json-patch+json";
    private static final int MAX_FILE_BYTES = 1024 * 1024;
    /** The largest answer read: a Node with hundreds of images is a few hundred KiB. */
    static final int MAX_ANSWER_BYTES = 4 * 1024 * 1024;
    /** How the JDK's limiting subscriber says the cap was reached. */
    private static final String TOO_LARGE = "body exceeds capacity";

    static {
        // The JDK's client connects a second time after a refused connection, and then says only "ConnectException":
        // one try a call, which the callers' back-off repeats, and the kernel's reason. Unless the JVM was told otherwise.
        if (System.getProperty("jdk.httpclient.disableRetryConnect") == null) {
            System.setProperty("jdk.httpclient.disableRetryConnect", "true");
        }
    }
    private static final int MAX_MESSAGE_CHARS = 300;
    private static final java.util.concurrent.atomic.LongAdder SENT = new java.util.concurrent.atomic.LongAdder();

    private final String host;
    private final int port;
    private final Path tokenFile;
    private final Path caFile;
    private final Duration deadline;
    private final Clock clock;

    public KubeApiClient(String host, String port, Path tokenFile, Path caFile, Duration deadline, Clock clock)
    {
        String bare = requireNonNull(host, "host is null");
        this.host = bare.startsWith("[") && bare.endsWith("]") ? bare.substring(1, bare.length() - 1) : bare;
        this.port = Integer.parseInt(requireNonNull(port, "port is null"));
        this.tokenFile = requireNonNull(tokenFile, "tokenFile is null");
        this.caFile = requireNonNull(caFile, "caFile is null");
        this.deadline = requireNonNull(deadline, "deadline is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** The agent's client: the API server and the service account of its settings. */
    public KubeApiClient(ApiServerSettings api, Duration deadline, Clock clock)
    {
        this(api.host().orElseThrow(), api.port().orElseThrow(), api.tokenFile(), api.effectiveCaFile(), deadline, clock);
    }

    /** @return the object; empty when the API answers 404 */
    public Optional<JsonNode> find(String path, Hint hint)
            throws ApiCallException
    {
        Answer answer = call("GET", path, Optional.empty(), hint);
        return answer.status() == 404 ? Optional.empty() : Optional.of(answer.ok("GET", path, hint));
    }

    public KubeApiClient within(Duration deadline)
    {
        return new KubeApiClient(host, Integer.toString(port), tokenFile, caFile, deadline, clock);
    }

    public JsonNode get(String path, Hint hint)
            throws ApiCallException
    {
        return call("GET", path, Optional.empty(), hint).ok("GET", path, hint);
    }

    /** @return 200 when applied; 422 (a {@code test} operation failed) or 409 when the object changed since it was read */
    public int jsonPatch(String path, String operations, Hint hint)
            throws ApiCallException
    {
        Answer answer = call("PATCH", path, Optional.of(new Body(JSON_PATCH, operations)), hint);
        if (answer.status() == 200 || answer.status() == 409 || answer.status() == 422) {
            return answer.status();
        }
        throw answer.failure("PATCH", path, hint);
    }

    /**
     * @param denial what the policy says when it denies
     * @return whether admission denied a dry run of the patch with {@code denial} (a ValidatingAdmissionPolicy's 403,
     *         not RBAC's); another policy's denial says nothing of this one's
     */
    public boolean deniedByAdmission(String path, String operations, String denial, Hint hint)
            throws ApiCallException
    {
        Answer answer = call("PATCH", path + (path.contains("?") ? "&" : "?") + "dryRun=All", Optional.of(new Body(JSON_PATCH, operations)), hint);
        if (answer.status() == 200) {
            return false;
        }
        Optional<String> denied = answer.status() == 403 ? statusText(answer.body()).filter(message -> message.contains("denied request"))
                : Optional.empty();
        if (denied.isPresent()) {
            return denied.get().contains(denial);
        }
        throw answer.failure("PATCH", path, hint);
    }

    /** For a subresource that answers 201 with what it made. */
    public JsonNode create(String path, String object, Hint hint)
            throws ApiCallException
    {
        Answer answer = call("POST", path, Optional.of(new Body("application/json", object)), hint);
        return answer.status() == 201 ? answer.json("POST", path) : answer.ok("POST", path, hint);
    }

    private record Answer(int status, byte[] body, Optional<Duration> retryAfter)
    {
        JsonNode ok(String method, String path, Hint hint)
                throws ApiCallException
        {
            if (status != 200) {
                throw failure(method, path, hint);
            }
            return json(method, path);
        }

        JsonNode json(String method, String path)
                throws ApiCallException
        {
            try {
                return CniJson.parse(body);
            }
            catch (CniJson.InvalidJsonException e) {
                throw new ApiCallException("response", method + " " + path + ": the answer " + e.getMessage());
            }
        }

        ApiCallException failure(String method, String path, Hint hint)
        {
            String advice = switch (status) {
                case 401 -> " (the service-account token was refused)";
                case 403 -> hint.forbidden();
                case 404 -> hint.notFound();
                default -> "";
            };
            String message = method + " " + path + ": HTTP " + status + statusMessage(body).map(m -> " " + m).orElse("") + advice
                    + retryAfter.map(wait -> "; Retry-After " + wait.toMillis() / 1000.0 + " s").orElse("");
            return new ApiCallException("HTTP " + status, message, retryAfter);
        }
    }

    /** Requests this process has begun to send, refused connections included: the fleet simulation's count. */
    public static long requestsSent()
    {
        return SENT.sum();
    }

    private record Body(String contentType, String text) {}

    private Answer call(String method, String path, Optional<Body> body, Hint hint)
            throws ApiCallException
    {
        String token = token();
        byte[] pem = readSmall(caFile, "CA", "the CA certificate");
        String url = KubeconfigRenderer.serverUrl("https", host, Integer.toString(port)) + path;
        String call = method + " " + url;
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token)
                .header("Accept", "application/json").header("User-Agent", "cni-chain")
                .method(method, body.map(b -> BodyPublishers.ofString(b.text())).orElse(BodyPublishers.noBody()));
        body.ifPresent(b -> request.header("Content-Type", b.contentType()));
        long end = clock.nanoTime() + deadline.toNanos();
        // One client and connection per call, nothing kept between the agent's few calls; never a proxy: the API server is the cluster's.
        HttpClient client;
        try {
            client = HttpClient.newBuilder().sslContext(trusting(pem)).version(HttpClient.Version.HTTP_1_1).connectTimeout(deadline)
                    .proxy(HttpClient.Builder.NO_PROXY).build();
        }
        catch (UncheckedIOException e) {
            throw new ApiCallException("connection", call + ": no HTTP client (its selector, out of file descriptors?): " + reason(e));
        }
        SENT.increment();
        CompletableFuture<HttpResponse<byte[]>> sent = client.sendAsync(request.build(), KubeApiClient::capped);
        try {
            // The whole answer by the deadline, however slowly it comes.
            HttpResponse<byte[]> response = sent.get(Math.max(0, end - clock.nanoTime()), TimeUnit.NANOSECONDS);
            int status = response.statusCode();
            Optional<Duration> retryAfter = status == 429 || status >= 500
                    ? response.headers().firstValue("Retry-After").flatMap(value -> ApiCallException.parseRetryAfter(value, ZonedDateTime.now())) : Optional.empty();
            return new Answer(status, response.body(), retryAfter);
        }
        catch (TimeoutException e) {
            throw failure(call, e);
        }
        catch (ExecutionException e) {
            throw failure(call, e.getCause());
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiCallException("timeout", call + ": interrupted");
        }
        finally {
            sent.cancel(true);
            client.shutdownNow();
        }
    }

    /** An answer that says it is larger than the cap is not read at all; one that does not say so is read up to the cap. */
    private static BodySubscriber<byte[]> capped(HttpResponse.ResponseInfo answer)
    {
        if (answer.headers().firstValueAsLong("Content-Length").orElse(0) > MAX_ANSWER_BYTES) {
            throw new UncheckedIOException(new IOException(TOO_LARGE + " (its Content-Length)"));
        }
        return BodySubscribers.limiting(BodySubscribers.ofByteArray(), MAX_ANSWER_BYTES);
    }

    private ApiCallException failure(String call, Throwable cause)
    {
        // The whole answer's deadline, or the connection's.
        if (cause instanceof TimeoutException || cause instanceof HttpTimeoutException) {
            return new ApiCallException("timeout", call + ": no whole answer within " + deadline.toMillis() + " ms");
        }
        if (cause instanceof ConnectException) {
            return new ApiCallException("connection", call + ": cannot connect: " + reason(cause));
        }
        String why = reason(cause);
        if (why.contains(TOO_LARGE)) {
            return new ApiCallException("too large", call + ": the answer is larger than " + MAX_ANSWER_BYTES / (1024 * 1024) + " MiB; not read");
        }
        if (cause instanceof ProtocolException) {
            return new ApiCallException("response", call + ": not an answer HTTP/1.1 allows: " + why);
        }
        for (Throwable e = cause; e != null; e = e.getCause()) {
            // The JDK says a peer's hang-up mid-handshake only in its message ("Remote host terminated the handshake",
            // "Remote host closed the channel"): the port was open, nothing answered (a load balancer with no API server).
            if (e instanceof javax.net.ssl.SSLHandshakeException && String.valueOf(e.getMessage()).startsWith("Remote host")) {
                return new ApiCallException("connection", call + ": the server hung up during the TLS handshake: " + reason(e));
            }
            if (e instanceof javax.net.ssl.SSLHandshakeException) {
                // Without it the handshake with a Go server (X25519, P-256) fails with no word of why.
                String runtime = Security.getProvider("SunEC") == null
                        ? " (and this Java runtime lacks module jdk.crypto.ec, which TLS with the API server needs)" : "";
                return new ApiCallException("TLS", call + ": TLS failed, nothing sent (the server's certificate must be signed by the CA in "
                        + caFile + " and name the host)" + runtime + ": " + reason(e));
            }
        }
        return new ApiCallException("connection", call + ": " + why);
    }

    /** A TLS context that trusts the CA file's certificates and nothing else, not the JDK's CAs. */
    private SSLContext trusting(byte[] pem)
            throws ApiCallException
    {
        Collection<? extends Certificate> certificates;
        try {
            certificates = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem));
        }
        catch (CertificateException e) {
            throw notACa(e.getMessage());
        }
        if (certificates.isEmpty()) {
            throw notACa("no certificate found");
        }
        try {
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            int n = 0;
            for (Certificate certificate : certificates) {
                trusted.setCertificateEntry("ca-" + n++, certificate);
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        }
        catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("the JDK cannot build a TLS context: " + e, e);
        }
    }

    private ApiCallException notACa(String reason)
    {
        return new ApiCallException("CA", caFile + ": not a PEM CA certificate (" + reason + "); no request sent");
    }

    private String token()
            throws ApiCallException
    {
        String token = new String(readSmall(tokenFile, "token", "the service-account token"), StandardCharsets.UTF_8).trim();
        if (token.isEmpty()) {
            throw new ApiCallException("token", tokenFile + ": the service-account token is empty; no request sent");
        }
        if (token.chars().anyMatch(c -> c <= 0x20 || c >= 0x7f)) {
            throw new ApiCallException("token", tokenFile + ": the service-account token holds characters a token never has; no request sent");
        }
        return token;
    }

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

    /** The message of the API's {@code Status} object, on one line and shortened; nothing else of a body is shown. */
    private static Optional<String> statusMessage(byte[] body)
    {
        return statusText(body).map(text -> Printable.line(shortened(text)));
    }

    /** The message whole, to be looked into, not shown: a long node name would shorten a policy's words away. */
    private static Optional<String> statusText(byte[] body)
    {
        try {
            JsonNode message = CniJson.parse(body).path("message");
            if (message.isTextual() && !message.asText().isBlank()) {
                return Optional.of(message.asText().trim());
            }
        }
        catch (CniJson.InvalidJsonException e) {
            // not a Status object: the status code says enough
        }
        return Optional.empty();
    }

    public static String shortened(String value)
    {
        return value.length() <= MAX_MESSAGE_CHARS ? value
                : value.substring(0, MAX_MESSAGE_CHARS) + "… (" + (value.length() - MAX_MESSAGE_CHARS) + " more characters)";
    }

    private static String reason(Throwable e)
    {
        String message = e.getMessage();
        if ((message == null || message.isBlank()) && e instanceof ConnectException) {
            return "refused or unreachable";
        }
        return Printable.line(shortened(message == null || message.isBlank() ? e.getClass().getSimpleName() : message));
    }

    /** What to add to an error's message for 403 and 404, the answers that mean the setup is wrong. */
    public record Hint(String forbidden, String notFound)
    {
        public Hint
        {
            requireNonNull(forbidden, "forbidden is null");
            requireNonNull(notFound, "notFound is null");
        }
    }
}
