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
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * {@code /healthz} (the loop is alive and consuming events), {@code /readyz} (every authoritative file holds
 * our entry, binary and kubeconfig present, no fight; the body says which condition fails) and
 * {@code /metrics} (Prometheus text).
 *
 * <p>One thread, one selector: it accepts every connection waiting, reads each request's head as its bytes arrive
 * and answers as soon as the head is whole (the answers are in memory), so nothing runs while no one asks and no
 * client holds another back. Each connection has {@value #REQUEST_SECONDS} second from its accept to send a head of
 * at most {@value #MAX_HEAD} bytes, as a probe does at once; then it is closed unanswered. At most
 * {@value #MAX_CLIENTS} connections are open at a time: one more evicts the oldest that has not sent its head (one
 * that sent nothing first), so a flood of idle connections (hundreds, reopened as fast as they are closed) costs a
 * probe one turn of the loop. A
 * limit per client address would not help: the kubelet's probes come from 127.0.0.1 (the pod has the host's
 * network and the probes say {@code host: 127.0.0.1}), as would a local flood. Each answer closes its connection
 * (the kubelet's probes open one per probe, and so may a scraper).
 */
final class HealthServer
{
    private static final Logger log = LoggerFactory.getLogger(HealthServer.class);

    static final int MAX_HEAD = 8192;
    static final int REQUEST_SECONDS = 1;
    /**
     * Connections open at once; one more evicts the oldest still waiting for its head. An idle connection costs a file
     * descriptor and nothing else (its buffer is taken when its first byte comes).
     */
    static final int MAX_CLIENTS = 512;
    /** The kernel's queue of connections not yet accepted; the loop empties it on every turn. */
    private static final int BACKLOG = 512;

    private final ServerSocketChannel socket;
    private final Selector selector;
    private final Thread thread;
    private final AgentStatus status;
    private final AgentMetrics metrics;
    private final Duration stuckAfter;
    private final boolean metricsOnly;
    /** Open connections, oldest first. */
    private final Deque<Client> clients = new ArrayDeque<>();

    /**
     * @param port       the port (0: any free one, see {@link #port()})
     * @param stuckAfter how long one pass may take before {@code /healthz} reports the loop stuck
     * @throws IOException when the port cannot be bound
     */
    HealthServer(int port, AgentStatus status, AgentMetrics metrics, Duration stuckAfter)
            throws IOException
    {
        this(java.net.InetAddress.getLoopbackAddress(), port, status, metrics, stuckAfter, false);
    }

    /**
     * @param address     the address to listen on (loopback by default; any address for a scraper elsewhere)
     * @param metricsOnly whether this listener serves {@code /metrics} alone (metricsAddress: a scraper's)
     */
    HealthServer(java.net.InetAddress address, int port, AgentStatus status, AgentMetrics metrics, Duration stuckAfter, boolean metricsOnly)
            throws IOException
    {
        this.metricsOnly = metricsOnly;
        this.status = requireNonNull(status, "status is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
        this.stuckAfter = requireNonNull(stuckAfter, "stuckAfter is null");
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

    /** Closes the port and every connection; a request being answered is cut off. */
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

    private void serve()
    {
        try {
            while (selector.isOpen()) {
                selector.select(this::ready, nextDeadlineMillis());
                closeExpired();
            }
        }
        catch (IOException | ClosedSelectorException e) {
            // stop() closed the selector: the server is done.
        }
        finally {
            clients.forEach(Client::close);
            clients.clear();
        }
    }

    private void ready(SelectionKey key)
    {
        if (key.isValid() && key.isAcceptable()) {
            acceptAll();
        }
        else if (key.isValid() && key.attachment() instanceof Client client) {
            try {
                client.onReady(key);
            }
            catch (IOException | RuntimeException e) {
                // One client's trouble (it hung up, it sent garbage) is its own.
                log.debug("health request: {}", e.toString());
                client.close();
            }
            if (!client.channel.isOpen()) {
                clients.remove(client);
            }
        }
    }

    private void acceptAll()
    {
        while (true) {
            SocketChannel channel;
            try {
                channel = socket.accept();
            }
            catch (IOException e) {
                log.debug("health port: {}", e.toString());
                return;
            }
            if (channel == null) {
                return;
            }
            if (clients.size() >= MAX_CLIENTS) {
                evictOne();
            }
            try {
                channel.configureBlocking(false);
                Client client = new Client(channel, System.nanoTime() + TimeUnit.SECONDS.toNanos(REQUEST_SECONDS));
                SelectionKey key = channel.register(selector, SelectionKey.OP_READ, client);
                clients.addLast(client);
                // A probe sends its request with the connection: answered now, before a burst of others can push it out.
                ready(key);
            }
            catch (IOException e) {
                closeQuietly(channel);
            }
        }
    }

    /**
     * Makes room for one more: the oldest connection that, read once more, still has not sent its whole head is closed;
     * those that have are answered on the way.
     */
    private void evictOne()
    {
        for (Iterator<Client> each = clients.iterator(); each.hasNext(); ) {
            Client silent = each.next();
            if (silent.head == null) {
                SelectionKey key = silent.channel.keyFor(selector);
                if (key != null) {
                    ready(key);
                }
                if (silent.head == null && silent.channel.isOpen()) {
                    each.remove();
                    silent.close();
                    return;
                }
                break;
            }
        }
        while (!clients.isEmpty()) {
            Client oldest = clients.peekFirst();
            SelectionKey key = oldest.channel.keyFor(selector);
            if (key != null) {
                ready(key);
            }
            if (clients.peekFirst() == oldest) {
                clients.removeFirst();
                oldest.close();
                return;
            }
            if (clients.size() < MAX_CLIENTS) {
                return;
            }
        }
    }

    /** @return how long the selector may wait: until the oldest connection's deadline, or for ever (0) when none is open */
    private long nextDeadlineMillis()
    {
        Client oldest = clients.peekFirst();
        if (oldest == null) {
            return 0;
        }
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(oldest.deadlineNanos - System.nanoTime()) + 1);
    }

    private void closeExpired()
    {
        long now = System.nanoTime();
        for (Iterator<Client> each = clients.iterator(); each.hasNext(); ) {
            Client client = each.next();
            if (!client.channel.isOpen()) {
                each.remove();
            }
            else if (now - client.deadlineNanos >= 0) {
                log.debug("health request: no complete request within {} s; closed", REQUEST_SECONDS);
                client.close();
                each.remove();
            }
        }
    }

    /** A connection: its head as it arrives, then its answer as the socket takes it. */
    private final class Client
    {
        private final SocketChannel channel;
        private final long deadlineNanos;
        /** Taken when the first byte comes: an idle connection holds none. */
        private ByteBuffer head;
        private ByteBuffer answer;

        Client(SocketChannel channel, long deadlineNanos)
        {
            this.channel = channel;
            this.deadlineNanos = deadlineNanos;
        }

        void onReady(SelectionKey key)
                throws IOException
        {
            if (answer == null) {
                if (head == null) {
                    ByteBuffer first = ByteBuffer.allocate(1);
                    if (channel.read(first) == 0) {
                        return;
                    }
                    head = ByteBuffer.allocate(MAX_HEAD);
                    head.put(first.flip());
                }
                int read = channel.read(head);
                Optional<String> line = requestLine(head);
                if (line.isEmpty() && read >= 0 && head.hasRemaining()) {
                    return;
                }
                answer = ByteBuffer.wrap(answer(line.orElse("")));
                key.interestOps(SelectionKey.OP_WRITE);
            }
            channel.write(answer);
            if (!answer.hasRemaining()) {
                close();
            }
        }

        void close()
        {
            closeQuietly(channel);
        }
    }

    private static void closeQuietly(SocketChannel channel)
    {
        try {
            channel.close();
        }
        catch (IOException e) {
            // nothing to do: it is gone either way
        }
    }

    /** @return the whole answer to a request line (empty for a head that never came whole: 400) */
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

    /**
     * @param head the bytes of the request read so far (position: how many)
     * @return the request's first line once its head, up to the blank line that ends it, is all there
     */
    private static Optional<String> requestLine(ByteBuffer head)
    {
        byte[] bytes = head.array();
        int length = head.position();
        for (int i = 0; i < length; i++) {
            boolean crlf = i + 3 < length && bytes[i] == '\r' && bytes[i + 1] == '\n' && bytes[i + 2] == '\r' && bytes[i + 3] == '\n';
            boolean lf = i + 1 < length && bytes[i] == '\n' && bytes[i + 1] == '\n';
            if (crlf || lf) {
                String text = new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
                int end = text.indexOf('\n');
                return Optional.of(text.substring(0, end > 0 && text.charAt(end - 1) == '\r' ? end - 1 : end));
            }
        }
        return Optional.empty();
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
        if (head) {
            return start;
        }
        byte[] all = java.util.Arrays.copyOf(start, start.length + bytes.length);
        System.arraycopy(bytes, 0, all, start.length, bytes.length);
        return all;
    }
}
