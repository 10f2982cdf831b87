package io.cnichain.agent.kube;

import io.cnichain.agent.taint.TestCertificates;
import io.cnichain.testkit.KubeletVolume;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An API server (or the load balancer before it) that closes a kept-alive connection as the next request arrives on
 * it, without answering: what a server closing idle connections looks like to the client that reused one just then.
 * Played deterministically by a TLS server that answers the first request on a connection and closes it on the
 * second. The call is sent again on a new connection and succeeds.
 */
class KubeApiClientClosedConnectionTest
{
    @TempDir
    Path dir;

    @Test
    void aRequestOnAConnectionClosedUnderItIsSentAgainOnANewOne()
            throws Exception
    {
        TestCertificates certificates = TestCertificates.shared();
        Path serviceAccount = dir.resolve("serviceaccount");
        KubeletVolume.serviceAccount(serviceAccount, "token\n", Files.readString(certificates.caPem()), "cni-chain");
        AtomicInteger connections = new AtomicInteger();
        List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        try (SSLServerSocket server = (SSLServerSocket) certificates.server().getServerSocketFactory().createServerSocket(0, 50,
                InetAddress.getLoopbackAddress())) {
            Thread serving = new Thread(() -> serve(server, connections, seen), "closing-server");
            serving.setDaemon(true);
            serving.start();
            KubeApiClient client = new KubeApiClient("127.0.0.1", Integer.toString(server.getLocalPort()), serviceAccount.resolve("token"),
                    serviceAccount.resolve("ca.crt"), Duration.ofSeconds(5), Duration.ofSeconds(5));
            KubeApiClient.Hint hint = new KubeApiClient.Hint("", "");

            assertThat(client.get("/api/v1/nodes/node-1", hint).path("metadata").path("name").asText()).isEqualTo("node-1");
            // The same connection, reused: closed under the request. Sent again on a new one.
            assertThat(client.jsonPatch("/api/v1/nodes/node-1", "[{\"op\":\"test\",\"path\":\"/metadata/name\",\"value\":\"node-1\"}]", hint))
                    .isEqualTo(200);
            assertThat(seen).containsExactly("GET /api/v1/nodes/node-1", "PATCH /api/v1/nodes/node-1", "PATCH /api/v1/nodes/node-1");
            assertThat(connections.get()).isEqualTo(2);
        }
    }

    /** Each connection: the first request answered with keep-alive; the second read, then the connection closed. */
    private static void serve(SSLServerSocket server, AtomicInteger connections, List<String> seen)
    {
        while (!server.isClosed()) {
            try (SSLSocket socket = (SSLSocket) server.accept()) {
                connections.incrementAndGet();
                BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
                OutputStream out = socket.getOutputStream();
                for (int request = 1; ; request++) {
                    String line = in.readLine();
                    if (line == null) {
                        break;
                    }
                    seen.add(line.substring(0, line.lastIndexOf(' ')));
                    int length = 0;
                    for (String header = in.readLine(); header != null && !header.isEmpty(); header = in.readLine()) {
                        if (header.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                            length = Integer.parseInt(header.substring(header.indexOf(':') + 1).trim());
                        }
                    }
                    for (int i = 0; i < length; i++) {
                        in.read();
                    }
                    if (request == 2) {
                        break;
                    }
                    byte[] body = "{\"metadata\":{\"name\":\"node-1\"}}".getBytes(StandardCharsets.UTF_8);
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
                    out.write(body);
                    out.flush();
                }
            }
            catch (IOException e) {
                // the test ended, or the client went away
            }
        }
    }
}
