package io.cnichain.core.agent;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * {@code /healthz} (the loop is alive and consuming events), {@code /readyz} (every authoritative file holds
 * our entry, binary and kubeconfig present, no fight; the body says which condition fails) and
 * {@code /metrics} (Prometheus text), on the JDK's HTTP server.
 */
final class HealthServer
{
    private static final Logger log = LoggerFactory.getLogger(HealthServer.class);

    private final HttpServer server;

    /**
     * @param port       the port (0: any free one, see {@link #port()})
     * @param stuckAfter how long one pass may take before {@code /healthz} reports the loop stuck
     */
    HealthServer(int port, AgentStatus status, AgentMetrics metrics, Duration stuckAfter)
            throws IOException
    {
        requireNonNull(status, "status is null");
        requireNonNull(metrics, "metrics is null");
        requireNonNull(stuckAfter, "stuckAfter is null");
        server = HttpServer.create(new InetSocketAddress(port), 16);
        server.createContext("/healthz", exchange -> {
            String problem = status.unhealthy(stuckAfter);
            respond(exchange, problem == null ? 200 : 503, problem == null ? "ok\n" : problem + "\n", "text/plain");
        });
        server.createContext("/readyz", exchange -> {
            var reasons = status.notReady();
            StringBuilder body = new StringBuilder(reasons.isEmpty() ? "ready\n" : "not ready:\n- " + String.join("\n- ", reasons) + "\n");
            status.details().forEach(detail -> body.append(detail).append('\n'));
            respond(exchange, reasons.isEmpty() ? 200 : 503, body.toString(), "text/plain");
        });
        server.createContext("/metrics", exchange -> respond(exchange, 200, metrics.render(status.ready()), "text/plain; version=0.0.4"));
        server.createContext("/", exchange -> respond(exchange, 404, "try /healthz, /readyz or /metrics\n", "text/plain"));
    }

    void start()
    {
        server.start();
        log.info("Health endpoints on port {}: /healthz /readyz /metrics", port());
    }

    int port()
    {
        return server.getAddress().getPort();
    }

    void stop()
    {
        server.stop(0);
    }

    private static void respond(HttpExchange exchange, int code, String body, String type)
            throws IOException
    {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(code, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
        exchange.close();
    }
}
