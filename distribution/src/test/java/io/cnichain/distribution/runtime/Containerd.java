package io.cnichain.distribution.runtime;

import io.cnichain.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Debian's containerd as the judge of what the kubelet's runtime loads: a daemon of the suite's own (its root, state
 * and socket in the sandbox, the CRI plugin off), the sandbox's busybox image imported into it, and
 * {@code ctr run --rm --cni}, which sets up a container's network as the CRI plugin does: go-cni over the conf dir in
 * byte order, the first file only, failing on one that does not load, its plugins run with the previous result.
 *
 * <p>{@code ctr} reads the fixed {@code /etc/cni/net.d} and {@code /opt/cni/bin}, so each run happens in a private
 * mount namespace ({@code unshare -m}) where the node's {@code etc/cni} is bound over {@code /etc/cni} (so that a
 * relative link out of the conf dir resolves as on the node) and its bin dir over {@code /opt/cni/bin}, on a tmpfs
 * over {@code /opt}: nothing of the host's is changed. Closing it removes every task and container left (a failed
 * set-up leaves them), stops the daemon and its shims, and unmounts what the snapshotter mounted.
 */
public final class Containerd
        implements AutoCloseable
{
    static final String NAMESPACE = "cnichain";
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(60);

    private final Path dir;
    private final Process daemon;
    private final String image;
    private final AtomicInteger containers = new AtomicInteger();
    private String version = "?";

    private Containerd(Path dir, Process daemon, String image)
    {
        this.dir = dir;
        this.daemon = daemon;
        this.image = image;
    }

    /** Starts the daemon and imports the sandbox's image into it. */
    static Containerd start(Sandbox sandbox)
    {
        Path dir = sandbox.dir().resolve("containerd");
        Process daemon;
        try {
            Files.createDirectories(dir.resolve("root"));
            Files.createDirectories(dir.resolve("state"));
            Files.writeString(dir.resolve("config.toml"), """
                    version = 2
                    root = "%1$s/root"
                    state = "%1$s/state"
                    disabled_plugins = ["io.containerd.grpc.v1.cri"]
                    [grpc]
                      address = "%1$s/containerd.sock"
                    [ttrpc]
                      address = "%1$s/containerd.sock.ttrpc"
                    """.formatted(dir));
            daemon = new ProcessBuilder("containerd", "--config", dir.resolve("config.toml").toString()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("containerd.log").toFile()).start();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Containerd containerd = new Containerd(dir, daemon, sandbox.image());
        try {
            containerd.awaitUp();
            Path tar = dir.resolve("image.tar");
            sandbox.saveImage(tar);
            containerd.ctr("images", "import", "--no-unpack", tar.toString()).ok();
            // The server's version, the last "Version:" line: what its CRI Version call reports, and so the kubelet.
            containerd.version = containerd.ctr("version").ok().out().lines().filter(line -> line.strip().startsWith("Version:")).reduce((a, b) -> b)
                    .orElse("?").strip().replaceFirst("^Version:\\s*", "");
            Steps.say("containerd (" + containerd.version + ", its own root and socket in " + dir + ") imported " + sandbox.image());
        }
        catch (RuntimeException | AssertionError e) {
            containerd.close();
            throw e;
        }
        return containerd;
    }

    /** The daemon's version, as {@code ctr version} gives it for the server ({@code 1.6.20~ds1}). */
    public String version()
    {
        return version;
    }

    private void awaitUp()
    {
        Await.until(Duration.ofSeconds(20), () -> {
            if (!daemon.isAlive()) {
                throw new AssertionError("containerd exited with " + daemon.exitValue() + ":\n" + log());
            }
            return ctr("version").code() == 0;
        }, () -> "containerd did not answer:\n" + log());
    }

    /**
     * Runs a container on the node's network configuration as the runtime would set up a pod's, and removes it.
     *
     * @param node    whose conf dir and bin dir stand for {@code /etc/cni/net.d} and {@code /opt/cni/bin}
     * @param command what the container runs
     * @return how {@code ctr} ended: 0 when the network was set up and the command succeeded
     */
    public Commands.Result run(RuntimeNode node, String... command)
    {
        String id = node.network("ctr" + containers.incrementAndGet());
        String ctr = String.join(" ", List.of("exec", "env", "CONTAINERD_SNAPSHOTTER=native", "ctr", "-a", socket(), "-n", NAMESPACE, "run", "--rm",
                "--cni", image, id));
        String script = "set -e; mount --make-rprivate /; mount --bind \"$1\" /etc/cni; mount -t tmpfs tmpfs /opt; mkdir -p /opt/cni/bin; "
                + "mount --bind \"$2\" /opt/cni/bin; shift 2; " + ctr + " \"$@\"";
        List<String> args = new ArrayList<>(List.of("unshare", "-m", "sh", "-c", script, "sh", node.confDir().getParent().toString(),
                node.binDir().toString()));
        args.addAll(List.of(command));
        try {
            return Commands.run(args, Map.of(), Optional.empty(), RUN_TIMEOUT);
        }
        finally {
            // A set-up that failed leaves the task and its shim behind.
            ctr("task", "rm", "--force", id);
            ctr("containers", "rm", id);
        }
    }

    private Commands.Result ctr(String... args)
    {
        List<String> command = new ArrayList<>(List.of("ctr", "-a", socket(), "-n", NAMESPACE));
        command.addAll(List.of(args));
        return Commands.run(command, Map.of("CONTAINERD_SNAPSHOTTER", "native"), Optional.empty(), Duration.ofSeconds(30));
    }

    private String socket()
    {
        return dir.resolve("containerd.sock").toString();
    }

    private String log()
    {
        try {
            return Files.readString(dir.resolve("containerd.log"));
        }
        catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** The daemon's shims: their command line names our socket. */
    private List<ProcessHandle> shims()
    {
        return ProcessHandle.allProcesses().filter(process -> process.info().commandLine().orElse("").contains(socket()))
                .filter(process -> process.pid() != daemon.pid()).toList();
    }

    @Override
    public void close()
    {
        List<String> problems = new ArrayList<>();
        if (daemon.isAlive()) {
            Sandbox.bestEffort(problems, "tasks", () -> {
                for (String task : ctr("task", "ls", "-q").out().lines().toList()) {
                    ctr("task", "rm", "--force", task);
                }
                for (String container : ctr("containers", "ls", "-q").out().lines().toList()) {
                    ctr("containers", "rm", container);
                }
            });
        }
        daemon.destroy();
        try {
            if (!daemon.waitFor(10, TimeUnit.SECONDS)) {
                daemon.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (ProcessHandle shim : shims()) {
            shim.destroyForcibly();
        }
        Sandbox.bestEffort(problems, "mounts", () -> Network.unmountUnder(dir));
        if (!shims().isEmpty()) {
            problems.add("shims left: " + shims());
        }
        if (!problems.isEmpty()) {
            Steps.say("containerd's cleanup was incomplete:\n  " + String.join("\n  ", problems));
        }
    }

    private static void sleep(long millis)
    {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
