import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Measures the agent against the budgets of DESIGN.md section 8, through the real launcher:
 *
 * - start-up: from starting bin/cni-chain run to the first patched file (a primary already present);
 * - reaction: from a primary's rename onto its file to our patched file, 30 trials on one agent;
 * - memory: resident set size after start-up and after the trials (and the peak);
 * - idle wake-ups: context switches of all the agent's threads over 10 s with nothing happening.
 *
 * Prints numbers; asserts nothing. Run after `mvn -q -DskipTests package`:
 *
 *     java bench/AgentBenchmark.java [distribution/target/cni-chain] [trials]
 *
 * The reaction is measured from outside the agent: this program renames the file, then reads it every 0.1 ms
 * until our entry appears, so the figure includes inotify delivery, the agent's pass, fsync and rename.
 */
public class AgentBenchmark
{
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

    public static void main(String[] args)
            throws Exception
    {
        Path home = Path.of(args.length > 0 ? args[0] : "distribution/target/cni-chain").toAbsolutePath();
        int trials = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        if (!Files.isExecutable(home.resolve("bin/cni-chain"))) {
            throw new IllegalStateException(home + "/bin/cni-chain not found: run `mvn -q -DskipTests package` first");
        }
        System.out.printf("cni-chain agent benchmark (%d cores, %s)%n", Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));

        List<Double> startups = new ArrayList<>();
        for (int run = 0; run < 7; run++) {
            Node node = Node.create();
            node.write(PRIMARY);
            long start = System.nanoTime();
            Process agent = node.start(home, 0);
            try {
                node.awaitPatched(start);
                startups.add((System.nanoTime() - start) / 1e6);
            }
            finally {
                stop(agent);
                node.delete();
            }
        }
        Collections.sort(startups);
        System.out.printf("start-up to first patched file: median %.0f ms, min %.0f, max %.0f (7 runs)%n",
                percentile(startups, 50), startups.get(0), startups.get(startups.size() - 1));

        Node node = Node.create();
        node.write(PRIMARY);
        int port = freePort();
        Process agent = node.start(home, port);
        try {
            measure(node, agent, port, trials);
        }
        finally {
            stop(agent);
            node.delete();
        }
    }

    static void measure(Node node, Process agent, int port, int trials)
            throws Exception
    {
        node.awaitPatched(System.nanoTime());
        Thread.sleep(500);
        long rssStart = rssKib(agent.pid(), "VmRSS");

        List<Double> reactions = new ArrayList<>();
        for (int i = 0; i < trials; i++) {
            // One rewrite a second: a primary that rewrites its file, not a writer fighting over it.
            Thread.sleep(1000);
            Path temp = node.conf.resolve(".10-calico.conflist.primary");
            Files.writeString(temp, PRIMARY);
            long start = System.nanoTime();
            Files.move(temp, node.conf.resolve("10-calico.conflist"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            reactions.add(node.awaitPatched(start));
        }
        Collections.sort(reactions);
        System.out.printf("reaction, rename to patched file: median %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms (%d trials)%n",
                percentile(reactions, 50), percentile(reactions, 95), percentile(reactions, 99), reactions.get(reactions.size() - 1), trials);
        System.out.println("  all trials (ms): " + reactions.stream().map(r -> String.format(Locale.ROOT, "%.1f", r)).toList());

        Thread.sleep(1000);
        long idleBefore = contextSwitches(agent.pid());
        Thread.sleep(10_000);
        long idleAfter = contextSwitches(agent.pid());
        System.out.printf("idle: %.1f wake-ups per second over 10 s (all threads, voluntary + involuntary context switches)%n", (idleAfter - idleBefore) / 10.0);

        System.out.printf("memory: RSS %d MiB after start-up, %d MiB after the trials, peak %d MiB%n",
                rssStart / 1024, rssKib(agent.pid(), "VmRSS") / 1024, rssKib(agent.pid(), "VmHWM") / 1024);
        String metrics = new String(new ProcessBuilder("curl", "-s", "http://127.0.0.1:" + port + "/metrics").start().getInputStream().readAllBytes());
        metrics.lines().filter(l -> l.startsWith("cnichain_reaction_latency_seconds") && !l.contains("le=\"5.0\"")).forEach(l -> System.out.println("  agent's own histogram: " + l));
    }

    static double percentile(List<Double> sorted, int p)
    {
        int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    static long rssKib(long pid, String field)
            throws IOException
    {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        return -1;
    }

    static long contextSwitches(long pid)
            throws IOException
    {
        long total = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                            total += Long.parseLong(line.replaceAll("\\D", ""));
                        }
                    }
                }
                catch (IOException gone) {
                    // a thread ended meanwhile
                }
            }
        }
        return total;
    }

    static void stop(Process agent)
            throws InterruptedException
    {
        agent.destroy();
        if (!agent.waitFor(30, TimeUnit.SECONDS)) {
            agent.destroyForcibly();
        }
    }

    static int freePort()
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** A temp node root with a conf dir, a bin dir, an image with the plugin binary and a service account. */
    static final class Node
    {
        final Path root;
        final Path conf;

        Node(Path root)
        {
            this.root = root;
            this.conf = root.resolve("host/etc/cni/net.d");
        }

        static Node create()
                throws IOException
        {
            Node node = new Node(Files.createTempDirectory("cni-chain-bench-"));
            Files.createDirectories(node.conf);
            Files.createDirectories(node.root.resolve("host/opt/cni/bin"));
            Path image = Files.createDirectories(node.root.resolve("image"));
            Files.writeString(image.resolve("linkerd-cni"), "#!/bin/sh\ncat\n");
            Files.setPosixFilePermissions(image.resolve("linkerd-cni"), PosixFilePermissions.fromString("rwxr-xr-x"));
            Path sa = Files.createDirectories(node.root.resolve("sa"));
            Files.writeString(sa.resolve("token"), "bench-token");
            Files.writeString(sa.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n");
            return node;
        }

        void write(String content)
                throws IOException
        {
            Files.writeString(conf.resolve("10-calico.conflist"), content);
        }

        Process start(Path home, int port)
                throws IOException
        {
            ProcessBuilder builder = new ProcessBuilder(home.resolve("bin/cni-chain").toString(), "run",
                    "--host-root", root.resolve("host").toString(), "--service-account-dir", root.resolve("sa").toString(),
                    "--health-port", String.valueOf(port), "--log-level", "warn")
                    .redirectErrorStream(true).redirectOutput(root.resolve("agent.log").toFile());
            builder.environment().putAll(Map.of("CONTAINER_CNI_BIN_DIR", root.resolve("image").toString(),
                    "KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", "443"));
            return builder.start();
        }

        /** Reads the file in a tight loop until our entry is in it; returns the milliseconds since start. */
        double awaitPatched(long start)
                throws IOException
        {
            Path file = conf.resolve("10-calico.conflist");
            while (true) {
                String content;
                try {
                    content = Files.readString(file);
                }
                catch (IOException mid) {
                    continue;
                }
                if (content.contains("\"linkerd-cni\"")) {
                    return (System.nanoTime() - start) / 1e6;
                }
                if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(30)) {
                    throw new IllegalStateException("not patched after 30 s; agent log:\n" + Files.readString(root.resolve("agent.log")));
                }
                // A short park, not a spin: the agent needs the machine's cores more than we need nanoseconds.
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            }
        }

        void delete()
                throws IOException
        {
            try (Stream<Path> walk = Files.walk(root)) {
                for (Path path : walk.sorted(Collections.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }
}
