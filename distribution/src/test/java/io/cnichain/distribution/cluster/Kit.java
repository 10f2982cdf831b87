package io.cnichain.distribution.cluster;

import io.cnichain.distribution.runtime.Commands;
import io.cnichain.distribution.runtime.Commands.Result;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The test kit's single-node Kubernetes (its README: a real kube-apiserver, controller-manager, scheduler and kubelet
 * v1.32 with containerd 2.1), started in a work directory of its own and taken down, with everything it made on the
 * host, by {@link #close()}. One per machine: its ports, bridge and pod subnet are fixed.
 */
final class Kit
        implements AutoCloseable
{
    private final Path script;
    private final Path work;
    private final Map<String, String> env;

    private Kit(Path script, Path work, Map<String, String> env)
    {
        this.script = requireNonNull(script, "script is null");
        this.work = requireNonNull(work, "work is null");
        this.env = Map.copyOf(env);
    }

    /**
     * @param script the kit's command ({@code kit}, beside its {@code bin.tar.xz})
     * @return a running cluster in a new work directory under /tmp (the kit needs a short path)
     */
    static Kit up(Path script)
    {
        Path work;
        try {
            work = Files.createTempDirectory(Path.of("/tmp"), "cck-");
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Say.step("kit up " + work);
        run(script, Duration.ofMinutes(5), "up", work.toString());
        Map<String, String> env = new LinkedHashMap<>();
        for (String line : run(script, Duration.ofSeconds(30), "env", work.toString()).out().split("\n")) {
            if (line.startsWith("export ")) {
                int equals = line.indexOf('=');
                env.put(line.substring("export ".length(), equals), line.substring(equals + 1));
            }
        }
        return new Kit(script, work, env);
    }

    Path work()
    {
        return work;
    }

    Path kubeconfig()
    {
        return Path.of(get("KUBECONFIG"));
    }

    /** The conf dir containerd reads (the lexically first config). */
    Path confDir()
    {
        return Path.of(get("KIT_CNI_CONF_DIR"));
    }

    Path binDir()
    {
        return Path.of(get("KIT_CNI_BIN_DIR"));
    }

    /** The primary's conflist, as {@code kit up} wrote it. */
    Path primary()
    {
        return Path.of(get("KIT_CNI_PRIMARY"));
    }

    /** A copy of the primary's bytes, to compare with and to restore. */
    Path pristinePrimary()
    {
        return Path.of(get("KIT_CNI_PRIMARY_PRISTINE"));
    }

    String node()
    {
        return get("KIT_NODE");
    }

    String nodeIp()
    {
        return get("KIT_NODE_IP");
    }

    String pauseImage()
    {
        return get("KIT_PAUSE_IMAGE");
    }

    /** Imports a docker or OCI archive into the runtime's image store, where pods find it without a pull. */
    void importImage(Path archive)
    {
        run(script, Duration.ofMinutes(2), "import", work.toString(), archive.toString());
    }

    /** The API server killed (SIGKILL), as a crash or a node's loss takes it; the rest of the cluster goes on. */
    void stopApiServer()
            throws IOException
    {
        String pid = Files.readString(work.resolve("run/pids/kube-apiserver.pid")).strip();
        Say.step("kill -9 kube-apiserver (" + pid + ")");
        Commands.run("kill", "-9", pid).ok();
    }

    /** {@code kit up} again: it starts what is not running, here the API server, and waits for it. */
    void startApiServer()
    {
        Say.step("kit up (the API server again)");
        run(script, Duration.ofMinutes(3), "up", work.toString());
    }

    /** {@code kit down --wipe}: every process, mount, bridge, iptables rule and sysctl the kit made is gone after it. */
    @Override
    public void close()
    {
        Say.step("kit down " + work + " --wipe");
        run(script, Duration.ofMinutes(3), "down", work.toString(), "--wipe");
        Commands.run("rm", "-rf", "--one-file-system", work.toString()).ok();
    }

    private String get(String name)
    {
        return Optional.ofNullable(env.get(name)).orElseThrow(() -> new IllegalStateException("kit env printed no " + name + ": " + env));
    }

    private static Result run(Path script, Duration timeout, String... args)
    {
        List<String> command = new java.util.ArrayList<>(List.of(script.toString()));
        command.addAll(List.of(args));
        return Commands.run(command, Map.of(), Optional.empty(), timeout).ok();
    }
}
