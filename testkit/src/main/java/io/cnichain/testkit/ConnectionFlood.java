package io.cnichain.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Connections to a local port of the shapes a scanner, a broken client or a hostile process on the node opens to a
 * health port, each opened again as soon as the server closes it (or it closes itself): a flood of a steady number of
 * connections, made as fast as the server lets them go. Each thread drives its share with a selector, so thousands of
 * connections cost the test no thread each.
 */
public final class ConnectionFlood
        implements AutoCloseable
{
    /** What one connection sends once connected; then it reads (and drops) whatever comes, until the server closes it. */
    public enum Shape
    {
        /** Nothing at all. */
        IDLE(""),
        /** A probe's head without its end. */
        PARTIAL_HEAD("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: kube-probe/1.31\r\n"),
        /** Bytes that are no HTTP and hold no line end. */
        JUNK("\u0016\u0003\u0001\u0002\u0000\u0001\u0000 not a request " + "\u00ff".repeat(64)),
        /** Twenty whole requests in one write. */
        PIPELINED("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".repeat(20)),
        /** A head of 20 KiB. */
        LARGE_HEAD("GET /healthz HTTP/1.1\r\nX-Padding: " + "x".repeat(20 * 1024) + "\r\n\r\n"),
        /** The start of a head, then the sending half shut. */
        HALF_CLOSED("GET /heal"),
        /** The start of a head, then the connection closed: its place in the flood is taken by a new one at once. */
        ABANDONED("GET /rea");

        private final byte[] bytes;

        Shape(String text)
        {
            this.bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        }
    }

    private static final long PAUSE_AFTER_REFUSAL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** As many as the cores of the machines the suites run on: more would test how the scheduler shares them out. */
    private static final int THREADS = 2;

    private final InetSocketAddress target;
    private final List<Shape> shapes;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong opened = new AtomicLong();
    private volatile boolean running = true;

    private ConnectionFlood(int port, int count, List<Shape> shapes)
    {
        this.target = new InetSocketAddress("127.0.0.1", port);
        this.shapes = List.copyOf(shapes);
        for (int t = 0; t < THREADS; t++) {
            Worker worker = new Worker(count / THREADS + (t < count % THREADS ? 1 : 0));
            Thread thread = new Thread(worker::run, "connection-flood-" + t);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
    }

    /**
     * @param port   the port on 127.0.0.1
     * @param count  how many connections to keep open or opening at a time, shared out among the shapes in turn
     * @param shapes what they send
     */
    public static ConnectionFlood open(int port, int count, Shape... shapes)
    {
        if (shapes.length == 0) {
            throw new IllegalArgumentException("no shape");
        }
        return new ConnectionFlood(port, count, List.of(shapes));
    }

    /** @return how many connections it has opened so far */
    public long opened()
    {
        return opened.get();
    }

    /** One thread's share of the connections. */
    private final class Worker
    {
        private final int count;
        private final ByteBuffer drain = ByteBuffer.allocate(64 * 1024);
        private int open;

        Worker(int count)
        {
            this.count = count;
        }

        void run()
        {
            try (Selector selector = Selector.open()) {
                long next = 0;
                while (running) {
                    boolean refused = false;
                    while (running && open < count) {
                        refused |= !connect(selector, shapes.get((int) (next++ % shapes.size())));
                    }
                    if (refused) {
                        // Nothing listens: trying again at once would only burn the CPU the server under test needs.
                        LockSupport.parkNanos(PAUSE_AFTER_REFUSAL_NANOS);
                    }
                    selector.select(this::step, 10);
                }
                for (SelectionKey key : selector.keys()) {
                    closeQuietly((SocketChannel) key.channel());
                }
            }
            catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        /** @return false when the connection was refused at once */
        private boolean connect(Selector selector, Shape shape)
        {
            SocketChannel channel = null;
            try {
                channel = SocketChannel.open();
                channel.configureBlocking(false);
                ByteBuffer out = ByteBuffer.wrap(shape.bytes);
                if (channel.connect(target)) {
                    channel.register(selector, SelectionKey.OP_WRITE, new Connection(shape, out));
                }
                else {
                    channel.register(selector, SelectionKey.OP_CONNECT, new Connection(shape, out));
                }
                opened.incrementAndGet();
                open++;
                return true;
            }
            catch (IOException e) {
                if (channel != null) {
                    closeQuietly(channel);
                }
                return false;
            }
        }

        private void step(SelectionKey key)
        {
            SocketChannel channel = (SocketChannel) key.channel();
            Connection connection = (Connection) key.attachment();
            try {
                if (key.isConnectable()) {
                    channel.finishConnect();
                    key.interestOps(SelectionKey.OP_WRITE);
                }
                else if (key.isWritable()) {
                    channel.write(connection.out);
                    if (!connection.out.hasRemaining()) {
                        if (connection.shape == Shape.ABANDONED) {
                            done(channel);
                            return;
                        }
                        if (connection.shape == Shape.HALF_CLOSED) {
                            channel.shutdownOutput();
                        }
                        key.interestOps(SelectionKey.OP_READ);
                    }
                }
                else if (key.isReadable()) {
                    drain.clear();
                    if (channel.read(drain) < 0) {
                        done(channel);
                    }
                }
            }
            catch (IOException e) {
                // Refused, reset, or closed while the flood was still writing: the server let it go.
                done(channel);
            }
        }

        private void done(SocketChannel channel)
        {
            closeQuietly(channel);
            open--;
        }
    }

    private static void closeQuietly(SocketChannel channel)
    {
        try {
            channel.close();
        }
        catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close()
            throws InterruptedException
    {
        running = false;
        for (Thread thread : threads) {
            thread.join(10_000);
        }
    }

    private record Connection(Shape shape, ByteBuffer out) {}
}
