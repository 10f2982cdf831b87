package io.cnichain.distribution.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What the real-runtime suite needs on the machine: root, the tools, the real CNI plugins and a static busybox
 * for the test image. The suite installs nothing; {@code scripts/test} installs the packages, as root.
 */
public final class RuntimeRequirements
{
    public static final Path PLUGIN_DIR = Path.of("/usr/lib/cni");
    public static final List<String> PLUGINS = List.of("bridge", "host-local", "portmap", "loopback");
    public static final Path BUSYBOX = Path.of("/bin/busybox");
    public static final String PACKAGES = "containernetworking-plugins podman buildah runc containerd busybox-static jq iproute2 iptables inotify-tools "
            + "e2fsprogs util-linux";

    private static final List<String> COMMANDS = List.of("podman", "buildah", "runc", "conmon", "containerd", "ctr", "unshare", "ip", "iptables", "jq",
            "inotifywait", "chattr", "ldd");

    private RuntimeRequirements() {}

    /**
     * @return one line per missing requirement; empty when the suite can run
     */
    public static List<String> missing()
    {
        List<String> missing = new ArrayList<>();
        if (!isRoot()) {
            missing.add("root (network namespaces, bridges, iptables and podman's CNI backend need it)");
        }
        for (String command : COMMANDS) {
            if (which(command).isEmpty()) {
                missing.add("the command " + command);
            }
        }
        for (String plugin : PLUGINS) {
            if (!Files.isExecutable(PLUGIN_DIR.resolve(plugin))) {
                missing.add("the CNI plugin " + PLUGIN_DIR.resolve(plugin));
            }
        }
        if (!Files.isExecutable(BUSYBOX)) {
            missing.add("a static busybox at " + BUSYBOX);
        }
        else if (which("ldd").isPresent() && !isStatic(BUSYBOX)) {
            missing.add(BUSYBOX + " is linked dynamically; the test image needs busybox-static");
        }
        return missing;
    }

    public static boolean inCi()
    {
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }

    public static java.util.Optional<Path> which(String command)
    {
        Set<String> dirs = new LinkedHashSet<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.addAll(List.of("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"));
        return dirs.stream()
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, command))
                .filter(Files::isExecutable)
                .findFirst();
    }

    private static boolean isRoot()
    {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream()
                    .filter(line -> line.startsWith("Uid:"))
                    .anyMatch(line -> line.split("\\s+")[2].equals("0"));
        }
        catch (IOException e) {
            return false;
        }
    }

    private static boolean isStatic(Path binary)
    {
        Commands.Result ldd = Commands.run("ldd", binary.toString());
        return ldd.code() != 0 && (ldd.out() + ldd.err()).contains("not a dynamic executable");
    }
}
