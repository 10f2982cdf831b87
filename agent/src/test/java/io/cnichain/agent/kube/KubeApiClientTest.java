package io.cnichain.agent.kube;

import io.cnichain.agent.time.Backoff;
import io.cnichain.agent.time.Clock;
import io.cnichain.testkit.KubeletVolume;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The client's bounds, against a TLS server that answers as the test scripts it: every call ends by its deadline, the
 * whole answer included (a body that trickles in forever too), and reads at most its cap of bytes; a value from the
 * server reaches a message shortened. Heads and bodies in the shapes the API server uses: a length, chunks, or the
 * connection's end.
 */
class KubeApiClientTest
{
    private static final KubeApiClient.Hint HINT = new KubeApiClient.Hint(" (forbidden hint)", " (not found hint)");

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close()
            throws Exception
    {
        for (AutoCloseable closeable : open) {
            closeable.close();
        }
    }

    @Test
    void readsABodyByItsLengthByItsChunksAndToTheConnectionsEnd()
            throws Exception
    {
        String json = "{\"kind\":\"Node\",\"metadata\":{\"name\":\"node-1\"}}";
        assertThat(client(serve(out -> answer(out, "200 OK", "Content-Length: " + json.length(), json))).get("/api/v1/nodes/node-1", HINT)
                .path("metadata").path("name").asText()).isEqualTo("node-1");
        assertThat(client(serve(out -> answer(out, "200 OK", "Transfer-Encoding: chunked",
                Integer.toHexString(10) + "\r\n" + json.substring(0, 10) + "\r\n" + Integer.toHexString(json.length() - 10) + "\r\n" + json.substring(10)
                        + "\r\n0\r\n\r\n"))).get("/api/v1/nodes/node-1", HINT).path("kind").asText()).isEqualTo("Node");
        assertThat(client(serve(out -> answer(out, "200 OK", "Connection: close", json))).find("/api/v1/nodes/node-1", HINT)).isPresent();
        assertThat(client(serve(out -> answer(out, "404 Not Found", "Content-Length: 2", "{}"))).find("/api/v1/nodes/node-2", HINT)).isEmpty();
    }

    @Test
    void aBodyThatTricklesPastTheDeadlineEndsTheCallAtItsDeadline()
            throws Exception
    {
        int port = serve(out -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // A byte every 100 ms: each read is quick, the whole answer never comes.
            for (int i = 0; i < 999; i++) {
                sleep(100);
                out.write(' ');
                out.flush();
            }
        });
        long start = System.nanoTime();
        assertThatThrownBy(() -> client(port).within(Duration.ofMillis(700)).get("/api/v1/nodes/node-1", HINT))
                .isInstanceOfSatisfying(ApiCallException.class, e -> assertThat(e.kind()).isEqualTo("timeout"))
                .hasMessageContaining("no whole answer within 700 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
    }

    @Test
    void anAnswerLargerThanTheCapIsNotRead()
            throws Exception
    {
        AtomicLong written = new AtomicLong();
        int declared = serve(out -> answer(out, "200 OK", "Content-Length: 314572800", ""));
        assertThatThrownBy(() -> client(declared).get("/api/v1/nodes/node-1", HINT)).isInstanceOfSatisfying(ApiCallException.class,
                e -> assertThat(e.kind()).isEqualTo("too large")).hasMessageContaining("larger than 4 MiB");
        int chunks = serve(out -> {
            out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = ("100000\r\n" + " ".repeat(0x100000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < 300; i++) {
                out.write(chunk);
                written.addAndGet(0x100000);
            }
        });
        assertThatThrownBy(() -> client(chunks).get("/api/v1/nodes/node-1", HINT)).isInstanceOfSatisfying(ApiCallException.class,
                e -> assertThat(e.kind()).isEqualTo("too large"));
        int head = serve(out -> {
            out.write("HTTP/1.1 200 OK\r\n".getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < 10_000; i++) {
                out.write(("X-Filler-" + i + ": " + "y".repeat(100) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            }
        });
        // The JDK client's own cap on a head (jdk.http.maxHeaderSize, 384 KiB): not an answer to try again.
        assertThatThrownBy(() -> client(head).get("/api/v1/nodes/node-1", HINT)).isInstanceOfSatisfying(ApiCallException.class,
                e -> assertThat(e.kind()).isEqualTo("response")).hasMessageContaining("Header size too big");
    }

    /**
     * A port that accepts and hangs up before the handshake ends, as a load balancer does while no API server is behind
     * it: the server was not reached, which is tried again, not a TLS setup to fix (which is not).
     */
    @Test
    void aHandshakeTheServerHangsUpOnIsAConnectionFailure()
            throws Exception
    {
        // Hung up after the client's hello, or at once: the JDK words the two differently.
        for (boolean readsFirst : List.of(true, false)) {
            ServerSocket hangsUp = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            open.add(hangsUp);
            Thread thread = new Thread(() -> {
                while (!hangsUp.isClosed()) {
                    try (Socket socket = hangsUp.accept()) {
                        if (readsFirst) {
                            socket.getInputStream().read(new byte[512]);
                        }
                    }
                    catch (IOException e) {
                        // closed: the test is over
                    }
                }
            }, "hangs-up");
            thread.setDaemon(true);
            thread.start();
            for (int call = 0; call < 10; call++) {
                assertThatThrownBy(() -> client(hangsUp.getLocalPort()).get("/api/v1/nodes/node-1", HINT)).isInstanceOfSatisfying(ApiCallException.class,
                        e -> {
                            assertThat(e.kind()).as(e.getMessage()).isEqualTo("connection");
                            assertThat(e.passing()).isTrue();
                        });
            }
        }

        // Nothing listening: a connection refused, said so. The JDK's exception for it has lost its message once in four
        // runs of this class with the machine busy; then the message says what a refusal may be.
        ServerSocket closed = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        closed.close();
        assertThatThrownBy(() -> client(closed.getLocalPort()).get("/api/v1/nodes/node-1", HINT)).isInstanceOfSatisfying(ApiCallException.class,
                e -> assertThat(e.kind()).isEqualTo("connection")).message().containsAnyOf("cannot connect: Connection refused",
                "cannot connect: refused or unreachable");

        // A certificate the CA did not sign is TLS, and not tried again.
        int port = serve(out -> answer(out, "200 OK", "Content-Length: 2", "{}"));
        client(port);
        KubeApiClient untrusting = new KubeApiClient("127.0.0.1", Integer.toString(port), dir.resolve("serviceaccount/token"),
                TestCertificates.shared().otherCaPem(), Duration.ofSeconds(5), Clock.SYSTEM);
        assertThatThrownBy(() -> untrusting.get("/api/v1/nodes/node-1", HINT)).isInstanceOfSatisfying(ApiCallException.class, e -> {
            assertThat(e.kind()).as(e.getMessage()).isEqualTo("TLS");
            assertThat(e.passing()).isFalse();
        });
    }

    @Test
    void theStatusMessageIsShortenedAndOnOneLine()
            throws Exception
    {
        String status = "{\"kind\":\"Status\",\"code\":403,\"message\":\"line one\\nline two " + "x".repeat(4_000_000) + "\"}";
        int port = serve(out -> answer(out, "403 Forbidden", "Content-Length: " + status.length(), status));
        assertThatThrownBy(() -> client(port).get("/api/v1/nodes/node-1", HINT)).isInstanceOfSatisfying(ApiCallException.class, e -> {
            assertThat(e.kind()).isEqualTo("HTTP 403");
            assertThat(e.getMessage()).startsWith("GET /api/v1/nodes/node-1: HTTP 403 line one\\nline two xxx").contains("more characters)")
                    .endsWith(" (forbidden hint)").hasSizeLessThan(500);
        });
        assertThat(KubeApiClient.shortened("containerd://" + "9".repeat(4_000_000))).hasSizeLessThan(400).endsWith("(3999713 more characters)");
    }

    @Test
    void aTokenWithCharactersNoTokenHasIsNeverSent()
            throws Exception
    {
        AtomicLong requests = new AtomicLong();
        KubeApiClient client = client(serve(out -> {
            requests.incrementAndGet();
            answer(out, "200 OK", "Content-Length: 2", "{}");
        }));
        Files.writeString(dir.resolve("serviceaccount/token").toRealPath(), "two words\n");
        assertThatThrownBy(() -> client.get("/api/v1/nodes/node-1", HINT)).isInstanceOf(ApiCallException.class)
                .hasMessageContaining("the service-account token holds characters a token never has; no request sent");
        assertThat(requests).hasValue(0);
    }

    /** The API server is the cluster's own: a proxy the JVM is told of (here for every host) never sees the call. */
    @Test
    void aProxyTheJvmIsToldOfIsNeverUsed()
            throws Exception
    {
        int port = serve(out -> answer(out, "200 OK", "Content-Length: 2", "{}"));
        AtomicLong proxied = new AtomicLong();
        ServerSocket proxy = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        open.add(proxy);
        Thread.ofPlatform().daemon().start(() -> {
            while (!proxy.isClosed()) {
                try (Socket connection = proxy.accept()) {
                    proxied.incrementAndGet();
                }
                catch (IOException e) {
                    return;
                }
            }
        });
        List<String> properties = List.of("https.proxyHost", "https.proxyPort", "http.nonProxyHosts");
        List<String> before = properties.stream().map(System::getProperty).toList();
        System.setProperty("https.proxyHost", "127.0.0.1");
        System.setProperty("https.proxyPort", Integer.toString(proxy.getLocalPort()));
        System.setProperty("http.nonProxyHosts", "");
        try {
            assertThat(client(port).get("/api/v1/nodes/node-1", HINT).isObject()).isTrue();
        }
        finally {
            for (int i = 0; i < properties.size(); i++) {
                if (before.get(i) == null) {
                    System.clearProperty(properties.get(i));
                }
                else {
                    System.setProperty(properties.get(i), before.get(i));
                }
            }
        }
        assertThat(proxied).hasValue(0);
    }

    /**
     * A server asking for more than the back-off's cap is waited the cap: a Retry-After of an hour must not stall a
     * fleet's agents. What it asks is stretched by the jitter as a step is: 2 000 agents told "503, Retry-After: 10" at
     * the moment an API server comes back must not all come back in the same instant.
     */
    @Test
    void aRetryAfterIsWaitedUpToTheBackOffsCapAndSpreadAcrossAFleet()
    {
        Backoff.Policy policy = Backoff.Policy.apiServer();
        for (Duration asked : List.of(Duration.ofSeconds(10), policy.cap().minusSeconds(1), Duration.ofHours(1))) {
            Duration least = asked.compareTo(policy.cap()) > 0 ? policy.cap() : asked;
            Set<Duration> waits = new HashSet<>();
            for (int agent = 0; agent < 2000; agent++) {
                Duration wait = new ApiCallException("HTTP 503", "busy", Optional.of(asked)).wait(new Backoff(policy, new SplittableRandom(agent)), 0);
                assertThat(wait).as("asked %s", asked).isBetween(least, least.plus(least.dividedBy(2)));
                waits.add(wait);
            }
            assertThat(waits).as("distinct waits of 2 000 agents asked %s", asked).hasSizeGreaterThan(1000);
        }
    }

    @FunctionalInterface
    interface Script
    {
        void answer(OutputStream out)
                throws IOException;
    }

    /** A TLS server that reads one request's head and answers as scripted, on every connection. */
    private int serve(Script script)
            throws Exception
    {
        SSLServerSocket server = (SSLServerSocket) TestCertificates.shared().server().getServerSocketFactory().createServerSocket(0, 50,
                InetAddress.getLoopbackAddress());
        open.add(server);
        Thread thread = new Thread(() -> {
            while (!server.isClosed()) {
                try (SSLSocket socket = (SSLSocket) server.accept()) {
                    BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
                    for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                        // the request's head
                    }
                    script.answer(socket.getOutputStream());
                    socket.getOutputStream().flush();
                }
                catch (IOException e) {
                    // the client hung up: the next connection
                }
            }
        }, "scripted-api-server");
        thread.setDaemon(true);
        thread.start();
        return server.getLocalPort();
    }

    private KubeApiClient client(int port)
            throws Exception
    {
        Path serviceAccount = dir.resolve("serviceaccount");
        if (!Files.exists(serviceAccount.resolve("token"))) {
            KubeletVolume.serviceAccount(serviceAccount, "token\n", Files.readString(TestCertificates.shared().caPem()), "cni-chain");
        }
        return new KubeApiClient("127.0.0.1", Integer.toString(port), serviceAccount.resolve("token"), serviceAccount.resolve("ca.crt"),
                Duration.ofSeconds(5), Clock.SYSTEM);
    }

    private static void answer(OutputStream out, String status, String header, String body)
            throws IOException
    {
        out.write(("HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\n" + header + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
    }

    private static void sleep(long millis)
    {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
