package io.cnichain.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * A temp node: a host root with a conf dir and a bin dir, the plugin's binary in an "image" dir, a service account,
 * and a primary configuration (Calico's). The primary is either a plain file or reached through a chain of two links
 * in the conf dir ({@code 10-calico.conflist -> 10-calico.conflist-link -> 10-calico.conflist-current}), and the
 * conf dir may hold thousands of other entries, as the scale figures need.
 */
final class Node
        implements AutoCloseable
{
    static final String PRIMARY_NAME = "10-calico.conflist";
    static final String CHAIN_TARGET = "10-calico.conflist-current";
    static final String PRIMARY = """
            {
              "name": "k8s-pod-network",
              "cniVersion": "1.0.0",
              "plugins": [
                {"type": "calico", "datastore_type": "kubernetes", "ipam": {"type": "calico-ipam"}},
                {"type": "portmap", "snat": true, "capabilities": {"portMappings": true}}
              ]
            }
            """;
    private static final long PATCH_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    final Path root;
    final Path host;
    final Path conf;
    final Path bin;
    final Path image;
    final Path serviceAccount;
    /** The file the primary rewrites: the conf dir's entry, or the end of the link chain. */
    final Path primaryFile;

    private Node(Path root, boolean chain)
    {
        this.root = root;
        this.host = root.resolve("host");
        this.conf = host.resolve("etc/cni/net.d");
        this.bin = host.resolve("opt/cni/bin");
        this.image = root.resolve("image");
        this.serviceAccount = root.resolve("sa");
        this.primaryFile = conf.resolve(chain ? CHAIN_TARGET : PRIMARY_NAME);
    }

    /**
     * @param chain  whether the primary is reached through a chain of two links
     * @param others how many other entries the conf dir holds (files, hidden files, directories; none a configuration)
     */
    static Node create(boolean chain, int others)
            throws IOException
    {
        return create(chain, others, 0);
    }

    /** @param binaryMib the plugin binary's size in MiB: a script's two lines, then filler; 0 for the two lines alone */
    static Node create(boolean chain, int others, int binaryMib)
            throws IOException
    {
        Node node = new Node(Files.createTempDirectory("cni-chain-bench-"), chain);
        Files.createDirectories(node.conf);
        Files.createDirectories(node.bin);
        Files.createDirectories(node.image);
        Files.writeString(node.image.resolve("linkerd-cni"), binaryMib > 0 ? "#!/bin/sh\ncat\nexit 0\n" : "#!/bin/sh\ncat\n");
        if (binaryMib > 0) {
            byte[] filler = new byte[1 << 20];
            java.util.SplittableRandom random = new java.util.SplittableRandom(binaryMib);
            try (var out = Files.newOutputStream(node.image.resolve("linkerd-cni"), java.nio.file.StandardOpenOption.APPEND)) {
                for (int i = 0; i < binaryMib; i++) {
                    random.nextBytes(filler);
                    out.write(filler);
                }
            }
        }
        Files.setPosixFilePermissions(node.image.resolve("linkerd-cni"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createDirectories(node.serviceAccount);
        Files.writeString(node.serviceAccount.resolve("token"), "bench-token");
        Files.writeString(node.serviceAccount.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n");
        for (int i = 0; i < others; i++) {
            // What accumulates in real conf dirs: backups, notes, hidden state, directories; none loadable.
            switch (i % 10) {
                case 0 -> Files.createDirectory(node.conf.resolve(String.format("dir-%05d", i)));
                case 1, 2 -> Files.writeString(node.conf.resolve(String.format(".state-%05d", i)), "{\"n\": " + i + "}\n");
                case 3 -> Files.writeString(node.conf.resolve(String.format("%05d-old.conflist.bak", i)), PRIMARY);
                default -> Files.writeString(node.conf.resolve(String.format("note-%05d.txt", i)), "entry " + i + "\n");
            }
        }
        Files.writeString(node.primaryFile, PRIMARY);
        if (chain) {
            Files.createSymbolicLink(node.conf.resolve("10-calico.conflist-link"), Path.of(CHAIN_TARGET));
            Files.createSymbolicLink(node.conf.resolve(PRIMARY_NAME), Path.of("10-calico.conflist-link"));
        }
        return node;
    }

    /** How many entries the conf dir holds now. */
    int entries()
            throws IOException
    {
        try (Stream<Path> list = Files.list(conf)) {
            return (int) list.count();
        }
    }

    /** The primary rewrites its file as primaries do: a hidden temp file in the same directory, renamed over it. */
    long rewritePrimary()
            throws IOException
    {
        Path temp = primaryFile.resolveSibling("." + primaryFile.getFileName() + ".primary");
        Files.writeString(temp, PRIMARY);
        long start = System.nanoTime();
        Files.move(temp, primaryFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return start;
    }

    boolean patched()
    {
        try {
            return Files.readString(primaryFile).contains("\"linkerd-cni\"");
        }
        catch (IOException e) {
            return false;
        }
    }

    /**
     * Reads the primary's file every 0.1 ms until our entry is in it.
     *
     * @param start when the change was made ({@link System#nanoTime()})
     * @param log   the program's log, shown when it never comes
     * @return milliseconds from start to the patched file
     */
    double awaitPatched(long start, Program.Running log)
            throws IOException
    {
        while (!patched()) {
            if (System.nanoTime() - start > PATCH_TIMEOUT_NANOS) {
                throw new IllegalStateException(primaryFile + " not patched after 30 s; log " + log.log() + ":\n" + tail(log.log()));
            }
            // A short park, not a spin: the program measured needs the machine's cores more than we need nanoseconds.
            LockSupport.parkNanos(100_000);
        }
        return (System.nanoTime() - start) / 1e6;
    }

    /** Starts reading the primary's file every 0.1 ms, on a thread of its own, until our entry is in it. */
    PatchWatch watchPatched()
    {
        PatchWatch watch = new PatchWatch();
        watch.start();
        return watch;
    }

    /** A thread that notes when the primary's file was first seen patched. */
    final class PatchWatch
            extends Thread
    {
        private volatile long seenAt;
        private volatile boolean seen;
        private volatile boolean cancelled;

        private PatchWatch()
        {
            super("patch-watch");
            setDaemon(true);
        }

        @Override
        public void run()
        {
            while (!cancelled && !patched()) {
                LockSupport.parkNanos(100_000);
            }
            seenAt = System.nanoTime();
            seen = !cancelled;
        }

        /**
         * @param start when the program was started ({@link System#nanoTime()}), for the timeout
         * @param log   the program's log, shown when the file is never patched
         * @return when the file was first seen patched ({@link System#nanoTime()})
         */
        long await(long start, Program.Running log)
                throws IOException, InterruptedException
        {
            join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(start + PATCH_TIMEOUT_NANOS - System.nanoTime())));
            if (!seen) {
                cancelled = true;
                throw new IllegalStateException(primaryFile + " not patched after 30 s; log " + log.log() + ":\n" + tail(log.log()));
            }
            return seenAt;
        }
    }

    static String tail(Path log)
            throws IOException
    {
        if (!Files.exists(log)) {
            return "(no log)";
        }
        var lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    @Override
    public void close()
            throws IOException
    {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : walk.sorted(Collections.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
