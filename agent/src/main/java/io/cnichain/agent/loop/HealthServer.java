package io.cnichain.agent.loop;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.SequencedSet;
import java.util.concurrent.TimeUnit;

/**
 * {@code /healthz}, {@code /readyz} and {@code /metrics}, from one thread and one selector, with a bound on everything a
 * client can make it hold, so that no traffic on the port keeps a probe from its answer (docs/security.md has the
 * rules). A probe sends its head at once, so the oldest connection with part of a head is the first evicted. A limit
 * per client address would not help: the probes come from 127.0.0.1, as would a local flood. Should the thread end, it
 * closes the port: the liveness probe then fails and the kubelet restarts the agent, rather than a port that accepts
 * and never answers.
 */
final class HealthServer
{
    private static final Logger log = LoggerFactory.getLogger(HealthServer.class);

    static final int MAX_HEAD = 8192;
    static final int REQUEST_SECONDS = 1;
    static final int MAX_CLIENTS = 512;
    static final int ACCEPTS_PER_TURN = MAX_CLIENTS / 4;
    /**
     * The kernel's queue of connections not yet accepted (capped by {@code net.core.somaxconn}): a probe that finds it
     * full is tried again only a second later, while one waiting in it is accepted at once.
     */
    private static final int BACKLOG = 4096;
    private static final byte[] NOTHING = new byte[0];

    private final ServerSocketChannel socket;
    private final Selector selector;
    private final Thread thread;
    private final AgentStatus status;
    private final AgentMetrics metrics;
    private final Duration stuckAfter;
    private final boolean metricsOnly;
    /** Open connections in the order they were accepted, which is the order of their deadlines. */
    private final SequencedSet<Client> open = new LinkedHashSet<>();
    /** Those that sent part of a head and not the rest, in the order they began: the first to be evicted. */
    private final SequencedSet<Client> partial = new LinkedHashSet<>();
    /** Every read lands here; a connection keeps only what it sent. */
    private final ByteBuffer received = ByteBuffer.allocate(MAX_HEAD);
    private boolean acceptable;

    /** @param metricsOnly a scraper's listener ({@code metricsAddress}) serves {@code /metrics} alone */
    HealthServer(java.net.InetAddress address, int port, AgentStatus status, AgentMetrics metrics, Duration stuckAfter, boolean metricsOnly)
            throws IOException
    {
        this.metricsOnly = metricsOnly;
        this.status = status;
        this.metrics = metrics;
        this.stuckAfter = stuckAfter;
        socket = ServerSocketChannel.open();
        socket.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        socket.bind(new InetSocketAddress(address, port), BACKLOG);
        socket.configureBlocking(false);
        selector = Selector.open();
        socket.register(selector, SelectionKey.OP_ACCEPT);
        thread = new Thread(this::serve, "health-server");
        thread.setDaemon(true);
    }

    void start()
    {
        thread.start();
        log.info(metricsOnly ? "Metrics on {}:{}: /metrics" : "Health endpoints on {}:{}: /healthz /readyz /metrics", address().getHostAddress(),
                port());
    }

    java.net.InetAddress address()
    {
        return socket.socket().getInetAddress();
    }

    int port()
    {
        return socket.socket().getLocalPort();
    }

    void stop()
    {
        try {
            selector.close();
            socket.close();
        }
        catch (IOException e) {
            log.debug("closing the health port: {}", e.toString());
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(REQUEST_SECONDS + 1));
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Each turn: what came on open connections (a closed one's descriptor goes at the next select), then new ones. */
    private void serve()
    {
        try {
            while (selector.isOpen()) {
                acceptable = false;
                selector.select(this::ready, nextDeadlineMillis());
                if (acceptable) {
                    accept();
                }
                closeExpired();
            }
        }
        catch (ClosedSelectorException e) {
            // stop() closed the selector: the server is done.
        }
        catch (IOException | RuntimeException | Error e) {
            if (selector.isOpen()) {
                log.error("The health server failed; its port is closed, so that the liveness probe fails: {}", e.toString());
            }
        }
        finally {
            while (!open.isEmpty()) {
                open.getFirst().close();
            }
            closeQuietly(socket);
            closeQuietly(selector);
        }
    }

    private void ready(SelectionKey key)
    {
        if (key.attachment() instanceof Client client) {
            client.serve();
        }
        else {
            acceptable = true;
        }
    }

    private void accept()
    {
        for (int i = 0; i < ACCEPTS_PER_TURN; i++) {
            SocketChannel channel;
            try {
                channel = socket.accept();
            }
            catch (IOException e) {
                // Out of descriptors, or the connection reset in the queue: the next turn tries again.
                log.debug("health port: {}", e.toString());
                return;
            }
            if (channel == null) {
                return;
            }
            if (open.size() >= MAX_CLIENTS) {
                (partial.isEmpty() ? open : partial).getFirst().close();
            }
            Client client = new Client(channel, System.nanoTime() + TimeUnit.SECONDS.toNanos(REQUEST_SECONDS));
            open.add(client);
            // A probe sends its head with the connection: answered now, without waiting for the selector.
            client.serve();
        }
    }

    /** @return how long the selector may wait: until the oldest connection's deadline, or for ever (0) when none is open */
    private long nextDeadlineMillis()
    {
        if (open.isEmpty()) {
            return 0;
        }
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(open.getFirst().deadlineNanos - System.nanoTime()) + 1);
    }

    private void closeExpired()
    {
        long now = System.nanoTime();
        while (!open.isEmpty() && now - open.getFirst().deadlineNanos >= 0) {
            log.debug("health request: no complete request within {} s; closed", REQUEST_SECONDS);
            open.getFirst().close();
        }
    }

    private final class Client
    {
        private final SocketChannel channel;
        private final long deadlineNanos;
        private byte[] head = NOTHING;
        private int length;
        private ByteBuffer answer;

        Client(SocketChannel channel, long deadlineNanos)
        {
            this.channel = channel;
            this.deadlineNanos = deadlineNanos;
        }

            void serve()
        {
            try {
                if (channel.isBlocking()) {
                    channel.configureBlocking(false);
                }
                if (answer == null) {
                    read();
                }
                if (answer != null) {
                    channel.write(answer);
                    if (!answer.hasRemaining()) {
                        discardWhatCame();
                        close();
                    }
                }
                if (channel.isOpen()) {
                    channel.register(selector, answer == null ? SelectionKey.OP_READ : SelectionKey.OP_WRITE, this);
                }
            }
            catch (IOException | RuntimeException | Error e) {
                // One connection's trouble (it hung up, its answer could not be made) is its own.
                log.debug("health request: {}", e.toString());
                close();
            }
        }

        private void read()
                throws IOException
        {
            received.clear().limit(MAX_HEAD - length);
            int read = channel.read(received);
            if (read < 0) {
                // The client shut its sending half before its head was whole: nothing more will come.
                close();
                return;
            }
            if (length + read > head.length) {
                head = Arrays.copyOf(head, Math.min(MAX_HEAD, Math.max(length + read, 2 * head.length)));
            }
            System.arraycopy(received.array(), 0, head, length, read);
            int from = Math.max(0, length - 2);
            length += read;
            if (whole(head, from, length)) {
                answer = ByteBuffer.wrap(answer(requestLine(head, length)));
                partial.remove(this);
            }
            else if (length == MAX_HEAD) {
                answer = ByteBuffer.wrap(respond(431, "Request Header Fields Too Large", "a head of at most " + MAX_HEAD + " bytes\n", "text/plain",
                        false, ""));
                partial.remove(this);
            }
            else if (length > 0) {
                partial.add(this);
            }
        }

        /**
         * A socket closed with unread bytes (a body, the rest of a head too large) sends a reset, which can reach the
         * client before it has read the answer; what has already come is read and dropped first, a bounded amount.
         */
        private void discardWhatCame()
                throws IOException
        {
            for (int total = 0; total < 16 * MAX_HEAD; ) {
                received.clear();
                int read = channel.read(received);
                if (read <= 0) {
                    return;
                }
                total += read;
            }
        }

        void close()
        {
            closeQuietly(channel);
            open.remove(this);
            partial.remove(this);
            head = null;
            answer = null;
        }
    }

    /** @return whether the bytes hold the blank line that ends a head, looked for from {@code from} on */
    private static boolean whole(byte[] bytes, int from, int length)
    {
        for (int i = from; i < length; i++) {
            if (bytes[i] == '\n' && (i + 1 < length && bytes[i + 1] == '\n' || i + 2 < length && bytes[i + 1] == '\r' && bytes[i + 2] == '\n')) {
                return true;
            }
        }
        return false;
    }

    private static String requestLine(byte[] head, int length)
    {
        int end = 0;
        while (end < length && head[end] != '\n') {
            end++;
        }
        return new String(head, 0, end > 0 && head[end - 1] == '\r' ? end - 1 : end, StandardCharsets.ISO_8859_1);
    }

    private static void closeQuietly(java.io.Closeable closeable)
    {
        try {
            closeable.close();
        }
        catch (IOException e) {
            // nothing to do: it is gone either way
        }
    }

    private byte[] answer(String requestLine)
    {
        String[] parts = requestLine.split(" ", -1);
        if (parts.length != 3 || !parts[1].startsWith("/") || !parts[2].startsWith("HTTP/1.")) {
            return respond(400, "Bad Request", "a GET of /healthz, /readyz or /metrics, in HTTP/1.x\n", "text/plain", false, "");
        }
        boolean head = parts[0].equals("HEAD");
        if (!head && !parts[0].equals("GET")) {
            return respond(405, "Method Not Allowed", "only GET and HEAD\n", "text/plain", false, "Allow: GET, HEAD\r\n");
        }
        int query = parts[1].indexOf('?');
        String path = query < 0 ? parts[1] : parts[1].substring(0, query);
        if (metricsOnly && !path.equals("/metrics")) {
            // A scraper's listener: what /readyz says (host paths, errors) stays on the health listener.
            return respond(404, "Not Found", "only /metrics here\n", "text/plain", head, "");
        }
        return switch (path) {
            case "/healthz" -> {
                String problem = status.unhealthy(stuckAfter);
                yield respond(problem == null ? 200 : 503, problem == null ? "OK" : "Service Unavailable", problem == null ? "ok\n" : problem + "\n",
                        "text/plain", head, "");
            }
            case "/readyz" -> {
                var reasons = status.notReady();
                StringBuilder body = new StringBuilder(reasons.isEmpty() ? "ready\n" : "not ready:\n- " + String.join("\n- ", reasons) + "\n");
                status.details().forEach(detail -> body.append(detail).append('\n'));
                yield respond(reasons.isEmpty() ? 200 : 503, reasons.isEmpty() ? "OK" : "Service Unavailable", body.toString(), "text/plain", head, "");
            }
            case "/metrics" -> respond(200, "OK", metrics.render(status.ready()), "text/plain; version=0.0.4", head, "");
            default -> respond(404, "Not Found", "try /healthz, /readyz or /metrics\n", "text/plain", head, "");
        };
    }

    private static byte[] respond(int code, String reason, String body, String type, boolean head, String extraHeaders)
    {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String headers = "HTTP/1.1 " + code + " " + reason + "\r\n"
                + "Content-Type: " + type + "; charset=utf-8\r\n"
                + "Content-Length: " + bytes.length + "\r\n"
                + extraHeaders
                + "Connection: close\r\n\r\n";
        byte[] start = headers.getBytes(StandardCharsets.ISO_8859_1);
        return head ? start : ByteBuffer.allocate(start.length + bytes.length).put(start).put(bytes).array();
    }
}
