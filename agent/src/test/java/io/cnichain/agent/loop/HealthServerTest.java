package io.cnichain.agent.loop;

import io.cnichain.testkit.ConnectionFlood;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The health port as a client on the wire sees it: what is answered, and what a bad or slow client gets. */
class HealthServerTest
{
    final AgentStatus status = new AgentStatus(io.cnichain.agent.time.Clock.SYSTEM);
    HealthServer server;

    @BeforeEach
    void setUp()
            throws IOException
    {
        status.loopRunning(true);
        server = new HealthServer(java.net.InetAddress.getLoopbackAddress(), 0, status, new AgentMetrics(), Duration.ofSeconds(30), false);
        server.start();
    }

    @AfterEach
    void tearDown()
    {
        server.stop();
    }

    @Test
    void aProbeGetsItsAnswerAndTheConnectionIsClosed()
            throws IOException
    {
        status.publish(List.of());
        String answer = exchange("GET /readyz HTTP/1.1\r\nHost: 10.0.0.1\r\nUser-Agent: kube-probe/1.31\r\nAccept: */*\r\nConnection: close\r\n\r\n");

        assertThat(answer).startsWith("HTTP/1.1 200 OK\r\n").contains("Content-Type: text/plain; charset=utf-8\r\n")
                .contains("Content-Length: 6\r\n").contains("Connection: close\r\n").endsWith("\r\n\r\nready\n");
    }

    @Test
    void notReadyIs503WithTheReasonsAndAQueryIsIgnored()
            throws IOException
    {
        status.publish(List.of("no primary CNI configuration in /etc/cni/net.d yet"));

        assertThat(exchange("GET /readyz?verbose=1 HTTP/1.0\n\n")).startsWith("HTTP/1.1 503 Service Unavailable\r\n")
                .endsWith("\r\n\r\nnot ready:\n- no primary CNI configuration in /etc/cni/net.d yet\n");
    }

    /** A condition no pass sees (the plugin's token ended) is asked at each probe, and told to readiness's listeners too. */
    @Test
    void aConditionOutsideThePassesIsAReasonWhileItHolds()
            throws IOException
    {
        java.util.concurrent.atomic.AtomicReference<java.util.Optional<String>> ended = new java.util.concurrent.atomic.AtomicReference<>(
                java.util.Optional.empty());
        List<Boolean> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        status.addCondition(ended::get);
        status.onReadiness(told::add);
        status.publish(List.of());
        assertThat(exchange("GET /readyz HTTP/1.0\n\n")).endsWith("\r\n\r\nready\n");

        ended.set(java.util.Optional.of("the plugin's token ended"));
        assertThat(exchange("GET /readyz HTTP/1.0\n\n")).startsWith("HTTP/1.1 503 Service Unavailable\r\n")
                .endsWith("\r\n\r\nnot ready:\n- the plugin's token ended\n");
        status.publish(List.of());
        assertThat(told).containsExactly(true, false);
    }

    @Test
    void headGetsTheHeadersWithoutTheBody()
            throws IOException
    {
        String answer = exchange("HEAD /metrics HTTP/1.1\r\n\r\n");

        assertThat(answer).startsWith("HTTP/1.1 200 OK\r\n").contains("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n")
                .containsPattern("Content-Length: [1-9][0-9]*\r\n").endsWith("Connection: close\r\n\r\n");
    }

    @Test
    void otherMethodsPathsAndGarbageGetTheirOwnCodes()
            throws IOException
    {
        assertThat(exchange("POST /healthz HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi")).startsWith("HTTP/1.1 405 Method Not Allowed\r\n")
                .contains("Allow: GET, HEAD\r\n");
        assertThat(exchange("GET /other HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 404 Not Found\r\n").endsWith("try /healthz, /readyz or /metrics\n");
        assertThat(exchange("hello\r\n\r\n")).startsWith("HTTP/1.1 400 Bad Request\r\n");
        assertThat(exchange("GET /healthz HTTP/1.1\r\nX-Padding: " + "x".repeat(HealthServer.MAX_HEAD) + "\r\n\r\n"))
                .as("a head larger than %d bytes", HealthServer.MAX_HEAD).startsWith("HTTP/1.1 431 Request Header Fields Too Large\r\n");
    }

    @Test
    void aHeadInPiecesIsReadWhole()
            throws Exception
    {
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            out.write("GET /heal".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(100);
            out.write("thz HTTP/1.1\r\nHost: x\r".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(100);
            out.write("\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readAll(socket.getInputStream())).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\nok\n");
        }
    }

    @Test
    void aClientThatSendsNothingIsCutOffAndHoldsNoOneBack()
            throws IOException
    {
        try (Socket silent = connect(); Socket slow = connect()) {
            // A slow loris: a byte now and then, never the end of the head.
            slow.getOutputStream().write('G');
            long start = System.nanoTime();
            String next = exchange("GET /healthz HTTP/1.1\r\n\r\n");
            Duration waited = Duration.ofNanos(System.nanoTime() - start);

            assertThat(next).startsWith("HTTP/1.1 200 OK\r\n");
            assertThat(waited).as("the probe waited for no one").isLessThan(Duration.ofMillis(500));
            start = System.nanoTime();
            assertThat(readAll(silent.getInputStream())).as("the silent one is closed unanswered").isEmpty();
            assertThat(readAll(slow.getInputStream())).as("the slow one too").isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(HealthServer.REQUEST_SECONDS + 1));
        }
    }

    @Test
    void aProbeIsAnsweredWhileManySlowClientsStall()
            throws IOException
    {
        List<Socket> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < HealthServer.MAX_CLIENTS - 1; i++) {
                stalled.add(connect());
            }
            long start = System.nanoTime();
            assertThat(exchange("GET /readyz HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 503");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500));
        }
        finally {
            for (Socket socket : stalled) {
                socket.close();
            }
        }
    }

    /**
     * 256 idle connections, each reopened as soon as the server closes it (evicted or past its second): every probe is
     * answered at once.
     */
    @Test
    void twoHundredFiftySixIdleConnectionsDoNotStallAProbe()
            throws Exception
    {
        try (ConnectionFlood flood = ConnectionFlood.open(server.port(), 256, ConnectionFlood.Shape.IDLE)) {
            Thread.sleep(500);
            List<Long> millis = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                long start = System.nanoTime();
                assertThat(exchange("GET /readyz HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 503");
                millis.add((System.nanoTime() - start) / 1_000_000);
            }
            java.util.Collections.sort(millis);
            System.out.println("30 probes under 256 idle connections: median " + millis.get(15) + " ms, max " + millis.get(29) + " ms");
            // The kubelet's probe timeout is 1 s by default: the slowest must stay well inside it.
            assertThat(millis.get(29)).as("the slowest probe, ms").isLessThan(500L);
        }
    }

    /** More idle connections than the server keeps open: the oldest make room, and probes are answered. */
    @Test
    void moreIdleConnectionsThanItKeepsEvictTheOldest()
            throws Exception
    {
        try (ConnectionFlood flood = ConnectionFlood.open(server.port(), HealthServer.MAX_CLIENTS + 256, ConnectionFlood.Shape.IDLE)) {
            Thread.sleep(500);
            for (int i = 0; i < 10; i++) {
                long start = System.nanoTime();
                assertThat(exchange("GET /healthz HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 200 OK");
                assertThat((System.nanoTime() - start) / 1_000_000).as("ms").isLessThan(500L);
            }
        }
    }

    /**
     * A probe whose head comes late (its client was slow to write after connecting) is not the one evicted while
     * connections that sent part of a head and not the rest are open: those go first, oldest first.
     */
    @Test
    void aProbeWhoseHeadIsLateIsNotEvictedWhileConnectionsThatSentPartOfAHeadAreOpen()
            throws IOException
    {
        List<Socket> partial = new ArrayList<>();
        try (Socket probe = connect()) {
            long start = System.nanoTime();
            for (int i = 0; i < HealthServer.MAX_CLIENTS + 64; i++) {
                Socket socket = connect();
                partial.add(socket);
                socket.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            probe.getOutputStream().write("GET /healthz HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            Duration late = Duration.ofNanos(System.nanoTime() - start);

            assertThat(readAll(probe.getInputStream())).as("the probe's answer, its head sent %d ms after it connected", late.toMillis())
                    .startsWith("HTTP/1.1 200 OK\r\n");
            assertThat(partial.getFirst().getInputStream().read()).as("the first to send part of a head is closed").isEqualTo(-1);
        }
        finally {
            for (Socket socket : partial) {
                socket.close();
            }
        }
    }

    @Test
    void pipelinedRequestsGetOneAnswerAndTheConnectionIsClosed()
            throws IOException
    {
        String answer = exchange("GET /healthz HTTP/1.1\r\n\r\n".repeat(3));

        assertThat(answer).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\nok\n");
        assertThat(answer.split("HTTP/1.1 ", -1)).as("answers").hasSize(2);
    }

    @Test
    void aClientThatShutsItsSendingHalfBeforeItsHeadIsWholeIsClosedAtOnce()
            throws IOException
    {
        try (Socket socket = connect()) {
            socket.getOutputStream().write("GET /heal".getBytes(StandardCharsets.US_ASCII));
            socket.shutdownOutput();
            long start = System.nanoTime();

            assertThat(readAll(socket.getInputStream())).as("no answer").isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("closed before its deadline").isLessThan(Duration.ofSeconds(HealthServer.REQUEST_SECONDS));
        }
    }

    /** Whatever goes wrong while answering one request, an {@link Error} included, ends that connection and no more. */
    @Test
    void anErrorWhileAnsweringOneRequestClosesThatConnectionAndTheServerGoesOn()
            throws IOException
    {
        AtomicBoolean thrown = new AtomicBoolean();
        status.addDetail(() -> {
            if (thrown.compareAndSet(false, true)) {
                throw new OutOfMemoryError("Java heap space");
            }
            return "";
        });

        assertThat(exchange("GET /readyz HTTP/1.1\r\n\r\n")).as("the request whose answer failed").isEmpty();
        assertThat(thrown).isTrue();
        assertThat(exchange("GET /healthz HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 200 OK\r\n");
        assertThat(exchange("GET /readyz HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 503 Service Unavailable\r\n");
    }

    @Test
    void aMetricsListenerServesMetricsAloneAndTheHealthListenerLoopbackByDefault()
            throws IOException
    {
        assertThat(server.address().isLoopbackAddress()).as("the default listener").isTrue();
        HealthServer scraper = new HealthServer(java.net.InetAddress.getLoopbackAddress(), 0, status, new AgentMetrics(), Duration.ofSeconds(30), true);
        scraper.start();
        try {
            assertThat(exchange(scraper.port(), "GET /metrics HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 200 OK\r\n").contains("cnichain_");
            assertThat(exchange(scraper.port(), "GET /readyz HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 404 Not Found\r\n").endsWith("only /metrics here\n");
            assertThat(exchange(scraper.port(), "GET /healthz HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 404 Not Found\r\n");
        }
        finally {
            scraper.stop();
        }
    }

    @Test
    void stopFreesThePort()
    {
        int port = server.port();
        server.stop();

        assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
    }

    private Socket connect()
            throws IOException
    {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 2000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    private String exchange(String request)
            throws IOException
    {
        return exchange(server.port(), request);
    }

    private static String exchange(int port, String request)
            throws IOException
    {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return readAll(socket.getInputStream());
        }
    }

    private static String readAll(InputStream in)
            throws IOException
    {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
}
