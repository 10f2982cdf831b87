package io.cnichain.agent.kube;

import io.cnichain.agent.time.Clock;
import io.cnichain.core.Printable;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP/1.1 request and its whole answer, on a TLS connection of its own: every read waits at most what is left of
 * the deadline, so that the answer ends by it however slowly it comes, and what is read is bounded.
 */
final class HttpsExchange
{
    /** The largest answer read: a Node with hundreds of images is a few hundred KiB. */
    static final int MAX_ANSWER_BYTES = 4 * 1024 * 1024;
    static final int MAX_HEAD_BYTES = 64 * 1024;

    record Response(int status, byte[] body, Optional<String> retryAfter) {}

    private final SSLSocket socket;
    private final InputStream in;
    private final long end;
    private final Clock clock;
    private final String call;
    private int headBytes;

    private HttpsExchange(SSLSocket socket, long end, Clock clock, String call)
            throws IOException
    {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.end = end;
        this.clock = clock;
        this.call = call;
    }

    /** @param call for errors ({@code GET https://...}) */
    static Response exchange(SSLContext tls, String host, int port, byte[] request, long end, Clock clock, String call)
            throws IOException, ApiCallException
    {
        SSLSocket socket = null;
        try {
            socket = (SSLSocket) tls.getSocketFactory().createSocket();
            socket.connect(new InetSocketAddress(InetAddress.getByName(host), port), remainingMillis(end, clock, call));
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            if (!Character.isDigit(host.charAt(0)) && !host.contains(":")) {
                parameters.setServerNames(List.of(new SNIHostName(host)));
            }
            socket.setSSLParameters(parameters);
            socket.setSoTimeout(remainingMillis(end, clock, call));
            socket.startHandshake();
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            return new HttpsExchange(socket, end, clock, call).read();
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

    private Response read()
            throws IOException, ApiCallException
    {
        String statusLine = line();
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.") || !parts[1].matches("[0-9]{3}")) {
            throw new ApiCallException("response", call + ": not an HTTP answer: " + Printable.quoted(KubeApiClient.shortened(statusLine)));
        }
        int status = Integer.parseInt(parts[1]);
        long length = -1;
        boolean chunked = false;
        Optional<String> retryAfter = Optional.empty();
        for (String header = line(); !header.isEmpty(); header = line()) {
            int colon = header.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = header.substring(colon + 1).trim();
            switch (name) {
                case "content-length" -> length = parseLength(value, call);
                case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                case "retry-after" -> retryAfter = Optional.of(value);
                default -> {
                    // not needed
                }
            }
        }
        byte[] body;
        if (chunked) {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (long size = chunkSize(line(), call); size > 0; size = chunkSize(line(), call)) {
                if (all.size() + size > MAX_ANSWER_BYTES) {
                    throw tooLarge(call);
                }
                all.write(bytes((int) size));
                line();
            }
            body = all.toByteArray();
        }
        else if (length >= 0) {
            if (length > MAX_ANSWER_BYTES) {
                throw tooLarge(call);
            }
            body = bytes((int) length);
        }
        else {
            body = rest();
        }
        return new Response(status, body, retryAfter);
    }

    private static long parseLength(String value, String call)
            throws ApiCallException
    {
        if (!value.matches("[0-9]{1,18}")) {
            throw new ApiCallException("response", call + ": a Content-Length that is not a number: " + Printable.quoted(KubeApiClient.shortened(value)));
        }
        return Long.parseLong(value);
    }

    private static long chunkSize(String line, String call)
            throws ApiCallException
    {
        String size = line.split(";", 2)[0].trim();
        if (!size.matches("[0-9a-fA-F]{1,8}")) {
            throw new ApiCallException("response", call + ": a chunk size that is not one: " + Printable.quoted(KubeApiClient.shortened(line)));
        }
        return Long.parseLong(size, 16);
    }

    private static ApiCallException tooLarge(String call)
    {
        return new ApiCallException("too large", call + ": the answer is larger than " + MAX_ANSWER_BYTES / (1024 * 1024) + " MiB; not read");
    }

    private String line()
            throws IOException, ApiCallException
    {
        StringBuilder line = new StringBuilder();
        while (true) {
            socket.setSoTimeout(remainingMillis(end, clock, call));
            int b = in.read();
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

    private byte[] bytes(int n)
            throws IOException, ApiCallException
    {
        byte[] out = new byte[n];
        int done = 0;
        while (done < n) {
            socket.setSoTimeout(remainingMillis(end, clock, call));
            int read = in.read(out, done, n - done);
            if (read < 0) {
                throw new ApiCallException("connection", call + ": the answer ended early");
            }
            done += read;
        }
        return out;
    }

    private byte[] rest()
            throws IOException, ApiCallException
    {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        while (true) {
            socket.setSoTimeout(remainingMillis(end, clock, call));
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

    /** The time left before the deadline, as a socket timeout (which 0 would make endless). */
    private static int remainingMillis(long end, Clock clock, String call)
            throws ApiCallException
    {
        long left = TimeUnit.NANOSECONDS.toMillis(end - clock.nanoTime());
        if (left <= 0) {
            throw new ApiCallException("timeout", call + ": no whole answer by its deadline");
        }
        return (int) Math.min(left, Integer.MAX_VALUE);
    }
}
