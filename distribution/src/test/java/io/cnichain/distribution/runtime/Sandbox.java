package io.cnichain.distribution.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * What the whole suite shares, made once and torn down once: a run id that makes every name unique (bridges,
 * namespaces, networks, subnets), a directory under the temp dir, podman's storage (vfs) and state in it, and a
 * tiny image built from scratch with a static busybox. Closing it removes everything the suite made, also what a
 * failed test left behind: containers, mounts, files, bridges, namespaces, iptables chains, CNI result caches.
 */
public final class Sandbox
        implements AutoCloseable
{
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
    private static final List<String> IMAGE_APPLETS = List.of("sh", "ip", "sleep", "cat");

    private final String runId;
    private final Path dir;
    private final Path storageConf;
    private final Path baseContainersConf;
    private final String image;
    private final int subnetOctet;
    private final AtomicInteger nodes = new AtomicInteger();
    private final AtomicInteger subnets = new AtomicInteger();
    private final List<RuntimeNode> open = new ArrayList<>();
    private final IptablesJanitor iptables;
    private Containerd containerd;

    private Sandbox(String runId, Path dir, int subnetOctet)
    {
        this.runId = runId;
        this.dir = dir;
        this.subnetOctet = subnetOctet;
        this.storageConf = dir.resolve("storage.conf");
        this.baseContainersConf = dir.resolve("containers.conf");
        this.image = "localhost/cni-chain-runtime-test:" + runId;
        this.iptables = IptablesJanitor.baseline(List.of("ccrt-" + runId, "10." + subnetOctet + "."));
    }

    public static Sandbox create()
    {
        String runId = randomId(5);
        try {
            Path dir = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")).toRealPath().resolve("cnichain-rt-" + runId));
            Sandbox sandbox = new Sandbox(runId, dir, freeSubnetOctet());
            try {
                sandbox.prepare();
            }
            catch (RuntimeException | Error e) {
                sandbox.close();
                throw e;
            }
            return sandbox;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void prepare()
            throws IOException
    {
        Files.createDirectories(dir.resolve("storage"));
        Files.createDirectories(dir.resolve("run"));
        Files.createDirectories(dir.resolve("tmp"));
        Files.createDirectories(dir.resolve("net.d"));
        Files.writeString(storageConf, """
                [storage]
                driver = "vfs"
                graphroot = "%s"
                runroot = "%s"
                """.formatted(dir.resolve("storage"), dir.resolve("run")));
        writeContainersConf(baseContainersConf, dir.resolve("net.d"), RuntimeRequirements.PLUGIN_DIR);
        buildImage();
    }

    /**
     * podman's configuration for one node: the CNI backend reading that node's conf and bin dirs, and the settings
     * podman needs on these machines (runc, cgroupfs, explicit ulimits below the hard limits); its state, locks and
     * events stay in the sandbox.
     */
    public void writeContainersConf(Path file, Path confDir, Path binDir)
            throws IOException
    {
        Files.writeString(file, """
                [containers]
                default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]

                [engine]
                cgroup_manager = "cgroupfs"
                runtime = "runc"
                events_logger = "file"
                events_logfile_path = "%1$s/events.log"
                tmp_dir = "%1$s/tmp"
                static_dir = "%1$s/storage/libpod"
                volume_path = "%1$s/storage/volumes"
                lock_type = "file"

                [network]
                network_backend = "cni"
                cni_plugin_dirs = ["%2$s"]
                network_config_dir = "%3$s"
                """.formatted(dir, binDir, confDir));
    }

    /** The environment podman and buildah need for this sandbox, with a node's containers.conf. */
    public Map<String, String> containersEnv(Path containersConf)
    {
        Map<String, String> env = new HashMap<>();
        env.put("CONTAINERS_CONF", containersConf.toString());
        env.put("CONTAINERS_STORAGE_CONF", storageConf.toString());
        return env;
    }

    private void buildImage()
            throws IOException
    {
        Path rootfs = Files.createDirectories(dir.resolve("rootfs/bin"));
        Files.copy(RuntimeRequirements.BUSYBOX, rootfs.resolve("busybox"));
        for (String applet : IMAGE_APPLETS) {
            Files.createSymbolicLink(rootfs.resolve(applet), Path.of("busybox"));
        }
        Map<String, String> env = containersEnv(baseContainersConf);
        String builder = "ccrt-" + runId + "-build";
        buildah(env, "from", "--name", builder, "scratch");
        buildah(env, "copy", builder, dir.resolve("rootfs") + "/", "/");
        buildah(env, "config", "--env", "PATH=/bin", "--cmd", "/bin/sh", builder);
        buildah(env, "commit", "--rm", "-q", builder, image);
        Steps.say("built image " + image + " (scratch + static busybox) in " + dir.resolve("storage"));
    }

    private static void buildah(Map<String, String> env, String... args)
    {
        List<String> command = new ArrayList<>(List.of("buildah"));
        command.addAll(List.of(args));
        Commands.run(command, env, java.util.Optional.empty(), Commands.DEFAULT_TIMEOUT).ok();
    }

    public String runId()
    {
        return runId;
    }

    public Path dir()
    {
        return dir;
    }

    public String image()
    {
        return image;
    }

    /** Writes the image as a docker archive, for another runtime to import. */
    void saveImage(Path tar)
    {
        Commands.run(List.of("podman", "save", "--quiet", "--format", "docker-archive", "--output", tar.toString(), image),
                containersEnv(baseContainersConf), java.util.Optional.empty(), Commands.DEFAULT_TIMEOUT).ok();
    }

    /** The suite's containerd, started the first time a test asks for it, stopped with the sandbox. */
    public synchronized Containerd containerd()
    {
        if (containerd == null) {
            containerd = Containerd.start(this);
        }
        return containerd;
    }

    /**
     * @param label a short name for the test's layout
     * @return a new node: its own dirs, network names, bridge names and subnets
     */
    public synchronized RuntimeNode node(String label)
    {
        int index = nodes.incrementAndGet();
        RuntimeNode node = RuntimeNode.create(this, index, label);
        open.add(node);
        return node;
    }

    public synchronized void closed(RuntimeNode node)
    {
        open.remove(node);
    }

    /** A /24 no one else on this machine routes, and not podman's default 10.88.0.0/16. */
    public synchronized String subnet()
    {
        int third = subnets.incrementAndGet();
        if (third > 254) {
            throw new IllegalStateException("out of test subnets");
        }
        return "10." + subnetOctet + "." + third + ".0/24";
    }

    public String networkPrefix()
    {
        return "ccrt-" + runId + "-";
    }

    public String bridgePrefix()
    {
        return "cc" + runId;
    }

    @Override
    public synchronized void close()
    {
        List<String> problems = new ArrayList<>();
        for (RuntimeNode node : List.copyOf(open)) {
            bestEffort(problems, "node " + node.label(), node::close);
        }
        if (containerd != null) {
            bestEffort(problems, "containerd", containerd::close);
        }
        Map<String, String> env = containersEnv(baseContainersConf);
        if (Files.exists(storageConf)) {
            bestEffort(problems, "podman rm", () -> Commands.run(List.of("podman", "rm", "--all", "--force", "--time", "0"), env,
                    java.util.Optional.empty(), Commands.DEFAULT_TIMEOUT));
            bestEffort(problems, "buildah rm", () -> Commands.run(List.of("buildah", "rm", "--all"), env, java.util.Optional.empty(),
                    Commands.DEFAULT_TIMEOUT));
        }
        bestEffort(problems, "namespaces", () -> Network.deleteNamespaces(networkPrefix()));
        bestEffort(problems, "bridges", () -> Network.deleteLinks(bridgePrefix()));
        bestEffort(problems, "iptables", iptables::cleanUp);
        bestEffort(problems, "CNI result cache", () -> Network.deleteCachedResults(networkPrefix()));
        bestEffort(problems, "mounts", () -> Network.unmountUnder(dir));
        bestEffort(problems, "files", () -> deleteTree(dir));
        if (!problems.isEmpty()) {
            Steps.say("cleanup of " + dir + " was incomplete:\n  " + String.join("\n  ", problems));
        }
        else {
            Steps.say("sandbox " + runId + " removed: containers, storage, bridges, namespaces, iptables chains");
        }
    }

    public static void bestEffort(List<String> problems, String what, Runnable step)
    {
        try {
            step.run();
        }
        catch (RuntimeException | AssertionError e) {
            problems.add(what + ": " + e.getMessage());
        }
    }

    public static void deleteTree(Path root)
    {
        if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        // An immutable file (a test's chattr +i) cannot be removed: clear the flag everywhere first.
        Commands.run("chattr", "-R", "-f", "-i", root.toString());
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + root, e);
        }
    }

    private static int freeSubnetOctet()
    {
        String routes = Commands.ok("ip", "-4", "route", "show", "table", "all").out();
        SecureRandom random = new SecureRandom();
        for (int attempt = 0; attempt < 50; attempt++) {
            int octet = 200 + random.nextInt(50);
            if (!routes.contains("10." + octet + ".")) {
                return octet;
            }
        }
        throw new IllegalStateException("no free 10.2xx.0.0/16 for test subnets; routes:\n" + routes);
    }

    private static String randomId(int length)
    {
        SecureRandom random = new SecureRandom();
        StringBuilder id = new StringBuilder();
        for (int i = 0; i < length; i++) {
            id.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return id.toString();
    }
}
