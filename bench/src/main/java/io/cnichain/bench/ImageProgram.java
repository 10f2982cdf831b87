package io.cnichain.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The agent's image under podman, run as a node runs the DaemonSet's container: the host's network, a read-only root
 * with {@code /tmp} on a tmpfs, the node's conf and bin dirs under {@code /host}, the service account where
 * Kubernetes mounts it, the plugin's binary (the init container's emptyDir) at {@code /opt/cni/bin}. podman keeps its
 * storage in a temp dir of its own (vfs, runc, cgroupfs: no daemon, nothing of the machine's). Measured from outside:
 * the JVM is the container's process, seen in /proc like any other.
 */
final class ImageProgram
        implements Program
{
    private static final AtomicInteger CONTAINERS = new AtomicInteger();

    private final Path storage;
    private final String image;

    private ImageProgram(Path storage, String image)
    {
        this.storage = storage;
        this.image = image;
    }

    static Program load(Path tar)
            throws IOException, InterruptedException
    {
        // Short: podman refuses a runroot longer than 50 characters.
        Path storage = Files.createTempDirectory(Path.of("/tmp"), "ccb-");
        ImageProgram program = new ImageProgram(storage, "");
        String out = program.podman("load", "--input", tar.toAbsolutePath().toString());
        String image = out.lines().filter(l -> l.startsWith("Loaded image")).map(l -> l.substring(l.lastIndexOf(' ') + 1).strip())
                .findFirst().orElseThrow(() -> new IllegalStateException("podman load named no image:\n" + out));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                program.podman("rm", "--all", "--force", "--time", "0");
                program.podman("rmi", "--all", "--force");
            }
            catch (IOException | InterruptedException | IllegalStateException e) {
                // best effort: the storage goes with the temp dir
            }
        }));
        return new ImageProgram(storage, image);
    }

    @Override
    public String name()
    {
        return "cni-chain";
    }

    @Override
    public String description()
    {
        return "podman run --network host --read-only " + image + " run --config /opt/cni-chain/conf/cni-chain.yaml --health-port PORT";
    }

    @Override
    public Running start(Node node, Path log)
            throws IOException
    {
        String name = "cni-chain-bench-" + ProcessHandle.current().pid() + "-" + CONTAINERS.incrementAndGet();
        List<String> args = new ArrayList<>(List.of("create", "--name", name, "--pull", "never", "--network", "host", "--read-only",
                "--read-only-tmpfs=false", "--tmpfs", "/tmp:rw,size=16m", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096",
                "--volume", node.conf + ":/host/etc/cni/net.d", "--volume", node.bin + ":/host/opt/cni/bin",
                "--volume", node.serviceAccount + ":/var/run/secrets/kubernetes.io/serviceaccount:ro",
                "--volume", node.image + ":/opt/cni/bin:ro",
                "--env", "KUBERNETES_SERVICE_HOST=10.96.0.1", "--env", "KUBERNETES_SERVICE_PORT=443",
                image, "run", "--config", "/opt/cni-chain/conf/cni-chain.yaml", "--health-port", String.valueOf(HostProgram.freePort())));
        try {
            podman(args.toArray(String[]::new));
            podman("start", name);
            long pid = Long.parseLong(podman("inspect", "--format", "{{.State.Pid}}", name).strip());
            return new Container(name, pid, log);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private final class Container
            implements Running
    {
        private final String name;
        private final long pid;
        private final Path log;

        Container(String name, long pid, Path log)
        {
            this.name = name;
            this.pid = pid;
            this.log = log;
        }

        @Override
        public long pid()
        {
            return pid;
        }

        @Override
        public Path log()
                throws IOException
        {
            try {
                Files.writeString(log, podman("logs", name));
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            return log;
        }

        @Override
        public OptionalLong processStartNanos()
                throws IOException
        {
            // The container's first process: not podman's work before it.
            return OptionalLong.of(startNanos(Path.of("/proc", String.valueOf(pid), "stat")));
        }

        @Override
        public OptionalLong jvmStartNanos()
                throws IOException
        {
            // The java launcher starts the JVM's main thread right after the exec: the first thread besides the process's own.
            long first = Long.MAX_VALUE;
            try (var tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
                for (Path task : tasks.toList()) {
                    if (!task.getFileName().toString().equals(String.valueOf(pid))) {
                        first = Math.min(first, startNanos(task.resolve("stat")));
                    }
                }
            }
            return first == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(first);
        }

        /** A process's or thread's start, from clock ticks since boot (10 ms) to {@link System#nanoTime()}'s clock. */
        private static long startNanos(Path stat)
                throws IOException
        {
            String text = Files.readString(stat);
            String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
            double started = Long.parseLong(fields[19]) / Proc.TICKS_PER_SECOND;
            double now = Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
            return System.nanoTime() - (long) ((now - started) * 1e9);
        }

        @Override
        public int stop()
                throws IOException, InterruptedException
        {
            podman("stop", "--time", "30", name);
            int exit = Integer.parseInt(podman("inspect", "--format", "{{.State.ExitCode}}", name).strip());
            log();
            podman("rm", "--force", "--time", "0", name);
            return exit;
        }
    }

    private String podman(String... args)
            throws IOException, InterruptedException
    {
        List<String> command = new ArrayList<>(List.of("podman", "--root", storage.resolve("root").toString(), "--runroot",
                storage.resolve("run").toString(), "--storage-driver", "vfs", "--runtime", "runc", "--cgroup-manager", "cgroupfs"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + new String(out, StandardCharsets.UTF_8));
        }
        return new String(out, StandardCharsets.UTF_8);
    }
}
