package io.cnichain.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The kubelet's HTTP probes of the chart's DaemonSet: readiness {@code GET /readyz} every 5 s, liveness
 * {@code GET /healthz} every 10 s, each with a 2 s timeout, to {@code 127.0.0.1}. Copied from the kubelet's prober
 * ({@code pkg/probe/http/http.go}): a new connection per probe (keep-alives off), the head Go's client writes for it
 * (user agent {@code kube-probe/MAJOR.MINOR}, any type accepted, {@code Connection: close}), and one timeout for the
 * whole exchange, connect included; a status from 200 to 399 is a success. Left out: redirects, TLS, the random delay
 * of the first probe, and the cap on the body read (the agent's bodies are small).
 */
public final class KubeletProber
        implements AutoCloseable
{
    public static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final int port;
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2, task -> {
        Thread thread = new Thread(task, "kubelet-prober");
        thread.setDaemon(true);
        return thread;
    });
    private final List<Result> results = new ArrayList<>();

    private KubeletProber(int port)
    {
        this.port = port;
    }

    /** Probes as the chart's DaemonSet says, the first of each at once. */
    public static KubeletProber start(int port)
    {
        KubeletProber prober = new KubeletProber(port);
        prober.timer.scheduleAtFixedRate(() -> prober.record(probe(port, "/readyz")), 0, 5, TimeUnit.SECONDS);
        prober.timer.scheduleAtFixedRate(() -> prober.record(probe(port, "/healthz")), 0, 10, TimeUnit.SECONDS);
        return prober;
    }

    /** @return every probe made so far */
    public synchronized List<Result> results()
    {
        return List.copyOf(results);
    }

    private synchronized void record(Result result)
    {
        results.add(result);
    }

    /**
     * One probe's outcome.
     *
     * @param status the status code, or 0 when there was none within the timeout (refused, reset, timed out)
     * @param why    what happened when there was no status
     */
    public record Result(String path, int status, Duration took, String why)
    {
        public boolean success()
        {
            return status >= 200 && status < 400 && took.compareTo(TIMEOUT) <= 0;
        }
    }

    /** One probe, now. */
    public static Result probe(int port, String path)
    {
        long start = System.nanoTime();
        try {
            int status = exchange(port, path, start + TIMEOUT.toNanos());
            return new Result(path, status, Duration.ofNanos(System.nanoTime() - start), "");
        }
        catch (IOException e) {
            return new Result(path, 0, Duration.ofNanos(System.nanoTime() - start), e.toString());
        }
    }

    private static int exchange(int port, String path, long deadlineNanos)
            throws IOException
    {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), remainingMillis(deadlineNanos));
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUser-Agent: kube-probe/1.33\r\n"
                    + "Accept: */*\r\nConnection: close\r\nAccept-Encoding: gzip\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            StringBuilder answer = new StringBuilder();
            byte[] buffer = new byte[4096];
            while (true) {
                socket.setSoTimeout(remainingMillis(deadlineNanos));
                int read = in.read(buffer);
                if (read < 0) {
                    break;
                }
                answer.append(new String(buffer, 0, read, StandardCharsets.ISO_8859_1));
            }
            if (!answer.toString().matches("(?s)HTTP/1\\.1 [0-9]{3} .*\r\n\r\n.*")) {
                throw new IOException("not an HTTP answer: '" + answer + "'");
            }
            return Integer.parseInt(answer.substring(9, 12));
        }
    }

    private static int remainingMillis(long deadlineNanos)
            throws SocketTimeoutException
    {
        long millis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        if (millis <= 0) {
            throw new SocketTimeoutException("no answer within " + TIMEOUT.toMillis() + " ms");
        }
        return (int) millis;
    }

    @Override
    public void close()
            throws InterruptedException
    {
        timer.shutdownNow();
        timer.awaitTermination(TIMEOUT.toSeconds() + 1, TimeUnit.SECONDS);
    }
}
