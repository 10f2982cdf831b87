package io.cnichain.core.agent;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * {@code /healthz} (the loop is alive and consuming events), {@code /readyz} (every authoritative file holds
 * our entry, binary and kubeconfig present, no fight; the body says which condition fails) and
 * {@code /metrics} (Prometheus text).
 *
 * <p>One thread waits in {@code accept}, so nothing runs while no one asks: the JDK's HTTP server woke its dispatcher
 * every second and kept two more threads, on every node, for three plain-text answers. Each connection is answered on
 * a thread of its own, at most {@value #MAX_CLIENTS} at a time, so a client that sends nothing (or sends slowly) holds
 * no one else back: a probe is answered while others stall. A request is a {@code GET} or {@code HEAD} whose head (at
 * most {@value #MAX_HEAD} bytes) arrives within {@value #REQUEST_SECONDS} second, as a probe's does at once; each
 * answer closes its connection (kubelet's probes open one per probe, and so may a scraper).
 */
final class HealthServer
{
    private static final Logger log = LoggerFactory.getLogger(HealthServer.class);

    static final int MAX_HEAD = 8192;
    static final int REQUEST_SECONDS = 1;
    /** Connections answered at once; the next one waits in the accept queue until one is done. */
    static final int MAX_CLIENTS = 16;

    private final java.util.concurrent.Semaphore clients = new java.util.concurrent.Semaphore(MAX_CLIENTS);

    private final ServerSocket socket;
    private final Thread thread;
    private final AgentStatus status;
    private final AgentMetrics metrics;
    private final Duration stuckAfter;
    private final boolean metricsOnly;

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
        socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(address, port), 16);
        thread = new Thread(new Runnable()
        {
            @Override
            public void run()
            {
                serve();
            }
        }, "health-server");
        thread.setDaemon(true);
    }

    void start()
    {
        thread.start();
        log.info(metricsOnly ? "Metrics on {}:{}: /metrics" : "Health endpoints on {}:{}: /healthz /readyz /metrics", socket.getInetAddress().getHostAddress(),
                port());
    }

    java.net.InetAddress address()
    {
        return socket.getInetAddress();
    }

    int port()
    {
        return socket.getLocalPort();
    }

    /** Closes the port; a request being answered is cut off. */
    void stop()
    {
        try {
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
        while (!socket.isClosed()) {
            Socket client;
            try {
                clients.acquire();
                client = socket.accept();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            catch (IOException | RuntimeException e) {
                clients.release();
                if (socket.isClosed()) {
                    return;
                }
                log.debug("health port: {}", e.toString());
                continue;
            }
            Thread handler = new Thread(new Runnable()
            {
                @Override
                public void run()
                {
                    try (client) {
                        answer(client);
                    }
                    catch (IOException | RuntimeException e) {
                        // One client's trouble (it hung up, it sent too slowly) is its own.
                        log.debug("health request: {}", e.toString());
                    }
                    finally {
                        clients.release();
                    }
                }
            }, "health-request");
            handler.setDaemon(true);
            handler.start();
        }
    }

    private void answer(Socket client)
            throws IOException
    {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(REQUEST_SECONDS);
        Optional<String> requestLine = requestLine(client, deadline);
        OutputStream out = client.getOutputStream();
        String[] parts = requestLine.map(line -> line.split(" ", -1)).orElse(new String[0]);
        if (parts.length != 3 || !parts[1].startsWith("/") || !parts[2].startsWith("HTTP/1.")) {
            respond(out, 400, "Bad Request", "a GET of /healthz, /readyz or /metrics, in HTTP/1.x\n", "text/plain", false, "");
            return;
        }
        boolean head = parts[0].equals("HEAD");
        if (!head && !parts[0].equals("GET")) {
            respond(out, 405, "Method Not Allowed", "only GET and HEAD\n", "text/plain", false, "Allow: GET, HEAD\r\n");
            return;
        }
        int query = parts[1].indexOf('?');
        String path = query < 0 ? parts[1] : parts[1].substring(0, query);
        if (metricsOnly && !path.equals("/metrics")) {
            // A scraper's listener: what /readyz says (host paths, errors) stays on the health listener.
            respond(out, 404, "Not Found", "only /metrics here\n", "text/plain", head, "");
            return;
        }
        switch (path) {
            case "/healthz" -> {
                String problem = status.unhealthy(stuckAfter);
                respond(out, problem == null ? 200 : 503, problem == null ? "OK" : "Service Unavailable", problem == null ? "ok\n" : problem + "\n",
                        "text/plain", head, "");
            }
            case "/readyz" -> {
                var reasons = status.notReady();
                StringBuilder body = new StringBuilder(reasons.isEmpty() ? "ready\n" : "not ready:\n- " + String.join("\n- ", reasons) + "\n");
                status.details().forEach(detail -> body.append(detail).append('\n'));
                respond(out, reasons.isEmpty() ? 200 : 503, reasons.isEmpty() ? "OK" : "Service Unavailable", body.toString(), "text/plain", head, "");
            }
            case "/metrics" -> respond(out, 200, "OK", metrics.render(status.ready()), "text/plain; version=0.0.4", head, "");
            default -> respond(out, 404, "Not Found", "try /healthz, /readyz or /metrics\n", "text/plain", head, "");
        }
    }

    /**
     * Reads the request's head, up to the blank line that ends it.
     *
     * @return its first line; empty when the head is too large or cut short
     * @throws SocketTimeoutException when it is not all there by the deadline (the connection is closed unanswered)
     */
    private static Optional<String> requestLine(Socket client, long deadline)
            throws IOException
    {
        InputStream in = client.getInputStream();
        byte[] head = new byte[MAX_HEAD];
        int length = 0;
        while (length < head.length) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                throw new SocketTimeoutException("no complete request within " + REQUEST_SECONDS + " s");
            }
            client.setSoTimeout((int) left);
            int read = in.read(head, length, head.length - length);
            if (read < 0) {
                return Optional.empty();
            }
            int from = Math.max(0, length - 3);
            length += read;
            for (int i = from; i < length; i++) {
                boolean crlf = i + 3 < length && head[i] == '\r' && head[i + 1] == '\n' && head[i + 2] == '\r' && head[i + 3] == '\n';
                boolean lf = i + 1 < length && head[i] == '\n' && head[i + 1] == '\n';
                if (crlf || lf) {
                    String text = new String(head, 0, length, StandardCharsets.ISO_8859_1);
                    int end = text.indexOf('\n');
                    return Optional.of(text.substring(0, end > 0 && text.charAt(end - 1) == '\r' ? end - 1 : end));
                }
            }
        }
        return Optional.empty();
    }

    private static void respond(OutputStream out, int code, String reason, String body, String type, boolean head, String extraHeaders)
            throws IOException
    {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String headers = "HTTP/1.1 " + code + " " + reason + "\r\n"
                + "Content-Type: " + type + "; charset=utf-8\r\n"
                + "Content-Length: " + bytes.length + "\r\n"
                + extraHeaders
                + "Connection: close\r\n\r\n";
        out.write(headers.getBytes(StandardCharsets.ISO_8859_1));
        if (!head) {
            out.write(bytes);
        }
        out.flush();
    }
}
