package io.cnichain.distribution.runtime;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * podman with its CNI backend reading one node's conf and bin dirs, and the sandbox's storage. It runs the
 * networks through the real CNI library, reading the directory again on every command, as a node's runtime does.
 */
public final class Podman
{
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    private final Sandbox sandbox;
    private final Path containersConf;

    Podman(Sandbox sandbox, Path containersConf)
    {
        this.sandbox = sandbox;
        this.containersConf = containersConf;
    }

    public Commands.Result podman(String... args)
    {
        List<String> command = new ArrayList<>(List.of("podman"));
        command.addAll(List.of(args));
        return Commands.run(command, sandbox.containersEnv(containersConf), Optional.empty(), TIMEOUT);
    }

    /**
     * Starts a container on a network and leaves it running.
     *
     * @return its full id, the {@code CNI_CONTAINERID} its plugins get
     */
    public String start(String network, String name)
    {
        Commands.Result run = podman("run", "--detach", "--pull=never", "--name", name, "--network", network, sandbox.image(), "sleep", "600").ok();
        return run.out().trim();
    }

    /** The container's eth0 address with its prefix, as the container itself sees it. */
    public String address(String container)
    {
        Commands.Result ip = podman("exec", container, "ip", "-4", "-o", "addr", "show", "dev", "eth0").ok();
        return Network.ipv4(ip.out()).orElseThrow(() -> new AssertionError("no IPv4 address on eth0:\n" + ip));
    }

    /** Removes a container; its network is torn down (CNI DEL) on the way. */
    public void remove(String container)
    {
        podman("rm", "--force", "--time", "0", container).ok();
    }

    /**
     * Runs a container to completion on a network ({@code podman run --rm}) that prints its eth0 address.
     *
     * @return the address with its prefix
     */
    public String runOnce(String network)
    {
        Commands.Result run = podman("run", "--rm", "--pull=never", "--network", network, sandbox.image(), "ip", "-4", "-o", "addr", "show", "dev", "eth0");
        assertThat(run.code()).as(run.toString()).isZero();
        return Network.ipv4(run.out()).orElseThrow(() -> new AssertionError("no IPv4 address on eth0:\n" + run));
    }

    /** The networks podman finds in the conf dir. */
    public List<String> networks()
    {
        return podman("network", "ls", "--format", "{{.Name}}").ok().out().lines().map(String::trim).toList();
    }

    public void removeAll()
    {
        podman("rm", "--all", "--force", "--time", "0").ok();
    }
}
