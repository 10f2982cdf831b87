package io.cnichain.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Connections to a local port that send nothing, each opened again as soon as the server closes it: the load that
 * used to stall the health endpoints (a client, a scanner or a misconfigured scraper holding connections open).
 */
public final class IdleConnections
        implements AutoCloseable
{
    private static final int THREADS = 4;

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();

    private IdleConnections(int port, int count)
    {
        for (int t = 0; t < THREADS; t++) {
            int share = count / THREADS + (t < count % THREADS ? 1 : 0);
            Thread thread = new Thread(() -> hold(port, share), "idle-connections-" + t);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
    }

    /**
     * @param port  the port on 127.0.0.1
     * @param count how many to keep open
     */
    public static IdleConnections open(int port, int count)
    {
        return new IdleConnections(port, count);
    }

    private void hold(int port, int count)
    {
        List<Socket> open = new ArrayList<>();
        try {
            while (running.get()) {
                open.removeIf(IdleConnections::closedByServer);
                while (running.get() && open.size() < count) {
                    Socket socket = new Socket();
                    socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
                    open.add(socket);
                }
            }
        }
        catch (IOException e) {
            // the server is gone: nothing more to hold open
        }
        finally {
            open.forEach(IdleConnections::closeQuietly);
        }
    }

    private static boolean closedByServer(Socket socket)
    {
        try {
            socket.setSoTimeout(1);
            boolean closed = socket.getInputStream().read() < 0;
            if (closed) {
                socket.close();
            }
            return closed;
        }
        catch (SocketTimeoutException stillOpen) {
            return false;
        }
        catch (IOException e) {
            closeQuietly(socket);
            return true;
        }
    }

    private static void closeQuietly(Socket socket)
    {
        try {
            socket.close();
        }
        catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close()
            throws InterruptedException
    {
        running.set(false);
        for (Thread thread : threads) {
            thread.join(5000);
        }
    }
}
