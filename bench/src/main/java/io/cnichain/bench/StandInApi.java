package io.cnichain.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The API server as an agent in a DaemonSet meets it, for the memory of the chart's configuration: HTTPS with a
 * certificate of its own CA (made here with the JDK's keytool), the plugin's TokenRequest answered, a Node with the
 * start-up taint served, its fence denying the dry run of a label change, and the patch that lifts the taint applied.
 * It answers what the agent asks in each mode the chart offers; nothing else of the API is there.
 */
final class StandInApi
        implements AutoCloseable
{
    static final String NODE = "node-bench";

    private final HttpsServer server;
    private final Path caPem;
    private final AtomicInteger requests = new AtomicInteger();
    private volatile boolean tainted = true;

    private StandInApi(HttpsServer server, Path caPem)
    {
        this.server = server;
        this.caPem = caPem;
    }

    /** @param dir where its key and certificate go */
    static StandInApi start(Path javaHome, Path dir)
            throws Exception
    {
        Path keystore = dir.resolve("api.p12");
        run(javaHome.resolve("bin/keytool").toString(), "-genkeypair", "-alias", "api", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=kubernetes", "-ext", "san=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", keystore.toString(),
                "-storepass", "changeit");
        Path pem = dir.resolve("ca.crt");
        Files.writeString(pem, run(javaHome.resolve("bin/keytool").toString(), "-exportcert", "-rfc", "-alias", "api", "-keystore", keystore.toString(),
                "-storepass", "changeit"));
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            keys.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory managers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        managers.init(keys, "changeit".toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(managers.getKeyManagers(), null, null);
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        StandInApi api = new StandInApi(server, pem);
        server.createContext("/", api::handle);
        server.start();
        return api;
    }

    int port()
    {
        return server.getAddress().getPort();
    }

    /** The CA the agent's service account trusts. */
    Path caPem()
    {
        return caPem;
    }

    int requests()
    {
        return requests.get();
    }

    private void handle(HttpExchange exchange)
            throws IOException
    {
        try (exchange) {
            requests.incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().getPath();
            String query = String.valueOf(exchange.getRequestURI().getQuery());
            if (method.equals("POST") && path.endsWith("/token")) {
                String expires = Instant.now().plus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS).toString();
                answer(exchange, 201, "{\"kind\":\"TokenRequest\",\"status\":{\"token\":\"bench-plugin-token\",\"expirationTimestamp\":\"" + expires + "\"}}");
            }
            else if (path.equals("/api/v1/nodes/" + NODE) && method.equals("GET")) {
                answer(exchange, 200, node());
            }
            else if (path.equals("/api/v1/nodes/" + NODE) && method.equals("PATCH") && query.contains("dryRun=All")) {
                answer(exchange, 403, "{\"kind\":\"Status\",\"code\":403,\"reason\":\"Forbidden\",\"message\":\"nodes \\\"" + NODE
                        + "\\\" is forbidden: ValidatingAdmissionPolicy 'cni-chain-node-taint' with binding 'cni-chain-node-taint' denied request: "
                        + "cni-chain may not change a node's labels, annotations, finalizers or owners\"}");
            }
            else if (path.equals("/api/v1/nodes/" + NODE) && method.equals("PATCH")) {
                tainted = false;
                answer(exchange, 200, node());
            }
            else {
                answer(exchange, 404, "{\"kind\":\"Status\",\"code\":404,\"reason\":\"NotFound\",\"message\":\"not served by the stand-in\"}");
            }
        }
    }

    private String node()
    {
        String taints = tainted ? "[{\"key\":\"cni-chain.io/not-ready\",\"value\":\"true\",\"effect\":\"NoSchedule\"}]" : "[]";
        return "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" + NODE + "\",\"resourceVersion\":\"1\",\"labels\":{\"kubernetes.io/os\":"
                + "\"linux\"}},\"spec\":{\"taints\":" + taints + "},\"status\":{\"nodeInfo\":{\"containerRuntimeVersion\":\"containerd://1.7.27\"}}}";
    }

    private static void answer(HttpExchange exchange, int status, String json)
            throws IOException
    {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static String run(String... command)
            throws IOException, InterruptedException
    {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
        return out;
    }

    @Override
    public void close()
    {
        server.stop(0);
    }
}
