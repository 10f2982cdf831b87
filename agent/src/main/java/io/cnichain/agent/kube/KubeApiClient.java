package io.cnichain.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.agent.time.Clock;
import io.cnichain.core.CniChainException;
import io.cnichain.core.Printable;
import io.cnichain.core.fs.PodVolumeFiles;
import io.cnichain.core.install.KubeconfigRenderer;
import io.cnichain.core.json.CniJson;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.Security;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * The agent's one client of the Kubernetes API: HTTPS only, trusting only the CA file, with the service-account token,
 * both read again for every call (the kubelet rotates them). One connection per call, closed after its answer: the
 * agent calls a few times in its life, and a connection kept open would be one more thing for a thousand agents to hold
 * on the API server. Every call ends by its deadline, the whole answer included (connect, TLS, head and body), and
 * reads at most {@value #MAX_ANSWER_BYTES} bytes. Errors are the API's {@code Status} message on one line, shortened;
 * no request is sent unless the token and the CA were read, and the token only after TLS verified the server.
 */
public final class KubeApiClient
{
    public static final String JSON_PATCH = "application/json-patch+json";
    /** The largest answer read: a Node with hundreds of images is a few hundred KiB. */
    static final int MAX_ANSWER_BYTES = 4 * 1024 * 1024;
    private static final int MAX_HEAD_BYTES = 64 * 1024;
    private static final int MAX_FILE_BYTES = 1024 * 1024;
    private static final int MAX_MESSAGE_CHARS = 300;

    private final String host;
    private final int port;
    private final Path tokenFile;
    private final Path caFile;
    private final Duration deadline;
    private final Clock clock;

    /**
     * @param host      the API server's host ({@code KUBERNETES_SERVICE_HOST})
     * @param port      its port
     * @param tokenFile the service-account token, read for every call
     * @param caFile    the one CA trusted, read for every call
     * @param deadline  how long one call may take, from its connect to its answer's last byte
     */
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

    /**
     * {@code GET path}.
     *
     * @param path the object's path, such as {@code /api/v1/nodes/NAME}
     * @param hint added to an error's message for 403 and 404 (which RBAC rule, which variable)
     * @return the object; empty when the API answers 404
     * @throws ApiCallException for any other answer than 200 or 404, or no answer
     */
    public Optional<JsonNode> find(String path, Hint hint)
            throws ApiCallException
    {
        Answer answer = call("GET", path, Optional.empty(), hint);
        if (answer.status() == 404) {
            return Optional.empty();
        }
        return Optional.of(answer.ok("GET", path, hint));
    }

    /** @return the same client, each call ending by {@code deadline} instead */
    public KubeApiClient within(Duration deadline)
    {
        return new KubeApiClient(host, Integer.toString(port), tokenFile, caFile, deadline, clock);
    }

    /** {@code GET path}, where 404 is an error like any other: see {@link #find}. */
    public JsonNode get(String path, Hint hint)
            throws ApiCallException
    {
        return call("GET", path, Optional.empty(), hint).ok("GET", path, hint);
    }

    /**
     * {@code PATCH path} with a JSON patch.
     *
     * @return 200 when applied; 422 (a {@code test} operation failed) or 409 (a conflict) when the object changed since
     *         it was read
     * @throws ApiCallException for any other answer, or no answer
     */
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
     * A dry run ({@code dryRun=All}) of a JSON patch: the API server authorizes and admits it, and stores nothing.
     *
     * @return whether admission denied it (a ValidatingAdmissionPolicy's 403); false when it would be applied
     * @throws ApiCallException for any other answer (a 403 of RBAC included), or no answer
     */
    public boolean deniedByAdmission(String path, String operations, Hint hint)
            throws ApiCallException
    {
        Answer answer = call("PATCH", path + (path.contains("?") ? "&" : "?") + "dryRun=All", Optional.of(new Body(JSON_PATCH, operations)), hint);
        if (answer.status() == 200) {
            return false;
        }
        if (answer.status() == 403 && statusMessage(answer.body()).filter(message -> message.contains("denied request")).isPresent()) {
            return true;
        }
        throw answer.failure("PATCH", path, hint);
    }

    /**
     * {@code POST path} with a JSON object, for a subresource that answers 201 with what it made.
     *
     * @return the answer's object
     * @throws ApiCallException for any answer but 200 or 201, or no answer
     */
    public JsonNode create(String path, String object, Hint hint)
            throws ApiCallException
    {
        Answer answer = call("POST", path, Optional.of(new Body("application/json", object)), hint);
        return answer.status() == 201 ? answer.json("POST", path) : answer.ok("POST", path, hint);
    }

    /**
     * @param status  the HTTP status
     * @param body    the answer's body
     * @param retryAfter the server's {@code Retry-After}, for 429 and 5xx
     */
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

    private record Body(String contentType, String text) {}

    private Answer call(String method, String path, Optional<Body> body, Hint hint)
            throws ApiCallException
    {
        String token = token();
        byte[] pem = readSmall(caFile, "CA", "the CA certificate");
        String call = method + " " + KubeconfigRenderer.serverUrl("https", host, Integer.toString(port)) + path;
        long end = clock.nanoTime() + deadline.toNanos();
        SSLSocket socket = null;
        try {
            socket = (SSLSocket) TrustedCa.sslContext(pem, caFile).getSocketFactory().createSocket();
            socket.connect(new InetSocketAddress(InetAddress.getByName(host), port), remainingMillis(end, call));
            SSLParameters tls = socket.getSSLParameters();
            tls.setEndpointIdentificationAlgorithm("HTTPS");
            if (!Character.isDigit(host.charAt(0)) && !host.contains(":")) {
                tls.setServerNames(java.util.List.of(new SNIHostName(host)));
            }
            socket.setSSLParameters(tls);
            socket.setSoTimeout(remainingMillis(end, call));
            socket.startHandshake();
            OutputStream out = socket.getOutputStream();
            out.write(request(method, path, token, body));
            out.flush();
            return read(socket, end, call);
        }
        catch (SocketTimeoutException e) {
            throw new ApiCallException("timeout", call + ": no whole answer within " + deadline.toMillis() + " ms");
        }
        catch (ConnectException e) {
            throw new ApiCallException("connection", call + ": cannot connect: " + reason(e));
        }
        catch (javax.net.ssl.SSLHandshakeException e) {
            // Without it the handshake with a Go server (X25519, P-256) fails with no word of why.
            String runtime = Security.getProvider("SunEC") == null
                    ? " (and this Java runtime lacks module jdk.crypto.ec, which TLS with the API server needs)" : "";
            throw new ApiCallException("TLS", call + ": TLS failed, nothing sent (the server's certificate must be signed by the CA in "
                    + caFile + " and name the host)" + runtime + ": " + reason(e));
        }
        catch (IOException e) {
            throw new ApiCallException("connection", call + ": " + reason(e));
        }
        finally {
            close(socket);
        }
    }

    /** Without waiting for the server's close_notify, which TLS's close would wait for up to the last read's timeout. */
    private static void close(SSLSocket socket)
    {
        if (socket == null) {
            return;
        }
        try {
            socket.setSoTimeout(1);
            socket.setSoLinger(true, 0);
            socket.close();
        }
        catch (IOException e) {
            // closed already, or half-made: nothing to release
        }
    }

    private byte[] request(String method, String path, String token, Optional<Body> body)
    {
        String authority = host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
        StringBuilder head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n")
                .append("Host: ").append(authority).append("\r\n")
                .append("Authorization: Bearer ").append(token).append("\r\n")
                .append("Accept: application/json\r\n")
                .append("User-Agent: cni-chain\r\n")
                .append("Connection: close\r\n");
        byte[] content = body.map(b -> b.text().getBytes(StandardCharsets.UTF_8)).orElse(new byte[0]);
        body.ifPresent(b -> head.append("Content-Type: ").append(b.contentType()).append("\r\n"));
        if (body.isPresent()) {
            head.append("Content-Length: ").append(content.length).append("\r\n");
        }
        head.append("\r\n");
        byte[] start = head.toString().getBytes(StandardCharsets.UTF_8);
        byte[] all = Arrays.copyOf(start, start.length + content.length);
        System.arraycopy(content, 0, all, start.length, content.length);
        return all;
    }

    /** The answer's head, then its body by its length, its chunks, or to the end of the connection, within the deadline. */
    private Answer read(SSLSocket socket, long end, String call)
            throws IOException, ApiCallException
    {
        Bounded in = new Bounded(socket, end, call);
        String statusLine = in.line();
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.") || !parts[1].matches("[0-9]{3}")) {
            throw new ApiCallException("response", call + ": not an HTTP answer: " + Printable.quoted(shortened(statusLine)));
        }
        int status = Integer.parseInt(parts[1]);
        long length = -1;
        boolean chunked = false;
        Optional<Duration> retryAfter = Optional.empty();
        for (String header = in.line(); !header.isEmpty(); header = in.line()) {
            int colon = header.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = header.substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT);
            String value = header.substring(colon + 1).trim();
            switch (name) {
                case "content-length" -> length = parseLength(value, call);
                case "transfer-encoding" -> chunked = value.toLowerCase(java.util.Locale.ROOT).contains("chunked");
                case "retry-after" -> retryAfter = status == 429 || status >= 500 ? parseRetryAfter(value, ZonedDateTime.now()) : Optional.empty();
                default -> {
                    // not needed
                }
            }
        }
        byte[] body;
        if (chunked) {
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            for (long size = chunkSize(in.line(), call); size > 0; size = chunkSize(in.line(), call)) {
                if (all.size() + size > MAX_ANSWER_BYTES) {
                    throw tooLarge(call);
                }
                all.write(in.bytes((int) size));
                in.line();
            }
            body = all.toByteArray();
        }
        else if (length >= 0) {
            if (length > MAX_ANSWER_BYTES) {
                throw tooLarge(call);
            }
            body = in.bytes((int) length);
        }
        else {
            body = in.rest();
        }
        return new Answer(status, body, retryAfter);
    }

    private static long parseLength(String value, String call)
            throws ApiCallException
    {
        if (!value.matches("[0-9]{1,18}")) {
            throw new ApiCallException("response", call + ": a Content-Length that is not a number: " + Printable.quoted(shortened(value)));
        }
        return Long.parseLong(value);
    }

    private static long chunkSize(String line, String call)
            throws ApiCallException
    {
        String size = line.split(";", 2)[0].trim();
        if (!size.matches("[0-9a-fA-F]{1,8}")) {
            throw new ApiCallException("response", call + ": a chunk size that is not one: " + Printable.quoted(shortened(line)));
        }
        return Long.parseLong(size, 16);
    }

    private static ApiCallException tooLarge(String call)
    {
        return new ApiCallException("too large", call + ": the answer is larger than " + MAX_ANSWER_BYTES / (1024 * 1024) + " MiB; not read");
    }

    /** Reads from the socket with the time left before the deadline as each read's timeout, and no more than it may hold. */
    private final class Bounded
    {
        private final SSLSocket socket;
        private final InputStream in;
        private final long end;
        private final String call;
        private int headBytes;

        Bounded(SSLSocket socket, long end, String call)
                throws IOException
        {
            this.socket = socket;
            this.in = socket.getInputStream();
            this.end = end;
            this.call = call;
        }

        private int next()
                throws IOException, ApiCallException
        {
            socket.setSoTimeout(remainingMillis(end, call));
            return in.read();
        }

        /** A line of the head or of a chunked body, without its CRLF. */
        String line()
                throws IOException, ApiCallException
        {
            StringBuilder line = new StringBuilder();
            while (true) {
                int b = next();
                if (b < 0) {
                    throw new ApiCallException("connection", call + ": the answer ended early");
                }
                if (++headBytes > MAX_HEAD_BYTES) {
                    throw new ApiCallException("too large", call + ": the answer's head is larger than " + MAX_HEAD_BYTES / 1024 + " KiB; not read");
                }
                if (b == '\n') {
                    int last = line.length() - 1;
                    return last >= 0 && line.charAt(last) == '\r' ? line.substring(0, last) : line.toString();
                }
                line.append((char) b);
            }
        }

        byte[] bytes(int n)
                throws IOException, ApiCallException
        {
            byte[] out = new byte[n];
            int done = 0;
            while (done < n) {
                socket.setSoTimeout(remainingMillis(end, call));
                int read = in.read(out, done, n - done);
                if (read < 0) {
                    throw new ApiCallException("connection", call + ": the answer ended early");
                }
                done += read;
            }
            return out;
        }

        byte[] rest()
                throws IOException, ApiCallException
        {
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            while (true) {
                socket.setSoTimeout(remainingMillis(end, call));
                int read = in.read(buffer);
                if (read < 0) {
                    return all.toByteArray();
                }
                if (all.size() + read > MAX_ANSWER_BYTES) {
                    throw tooLarge(call);
                }
                all.write(buffer, 0, read);
            }
        }
    }

    /** The time left before the deadline, as a socket timeout (which 0 would make endless). */
    private int remainingMillis(long end, String call)
            throws ApiCallException
    {
        long left = TimeUnit.NANOSECONDS.toMillis(end - clock.nanoTime());
        if (left <= 0) {
            throw new ApiCallException("timeout", call + ": no whole answer within " + deadline.toMillis() + " ms");
        }
        return (int) Math.min(left, Integer.MAX_VALUE);
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

    /** The message of the API's {@code Status} object, on one line and shortened; nothing else of a body is shown. */
    private static Optional<String> statusMessage(byte[] body)
    {
        try {
            JsonNode message = CniJson.parse(body).path("message");
            if (message.isTextual() && !message.asText().isBlank()) {
                return Optional.of(Printable.line(shortened(message.asText().trim())));
            }
        }
        catch (CniJson.InvalidJsonException e) {
            // not a Status object: the status code says enough
        }
        return Optional.empty();
    }

    /** A value from the API for a log line: its first {@value #MAX_MESSAGE_CHARS} characters, and how many more there were. */
    public static String shortened(String value)
    {
        return value.length() <= MAX_MESSAGE_CHARS ? value
                : value.substring(0, MAX_MESSAGE_CHARS) + "… (" + (value.length() - MAX_MESSAGE_CHARS) + " more characters)";
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

    private static String reason(Throwable e)
    {
        String message = e.getMessage();
        return Printable.line(shortened(message == null || message.isBlank() ? e.getClass().getSimpleName() : message));
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
