package io.cnichain.distribution.image;

import io.cnichain.testkit.PluginList;
import io.cnichain.testkit.Await;
import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.json.CniJson;
import io.cnichain.agent.shutdown.StandInCluster;
import io.cnichain.distribution.kubernetes.AgentResources;
import io.cnichain.distribution.runtime.Commands;
import io.cnichain.distribution.runtime.Layout;
import io.cnichain.distribution.runtime.RealRuntime;
import io.cnichain.distribution.runtime.RuntimeNode;
import io.cnichain.distribution.runtime.Sandbox;
import io.cnichain.distribution.runtime.Steps;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The image itself: one archive with both tags, nothing in it but the Java runtime, its shared libraries, the
 * agent and busybox, every command of the agent working on the linked runtime (so no module it loads was left
 * out), and the agent as the container's PID 1, within the DaemonSet's memory, stopping cleanly on SIGTERM.
 */
@RealRuntime
class ImageIT
{
    // As podman counts it, with the AOT cache the image carries for the agent's start-up; the test prints today's size.
    private static final long MAX_IMAGE_BYTES = 80L * 1000 * 1000;
    private static final Set<String> BIN = Set.of("bin/busybox", "bin/sh", "bin/kill", "bin/sleep");
    private static final Pattern SHARED_LIBRARY = Pattern.compile("(lib|lib64|usr/lib|usr/lib64)(/[\\w.+-]+)*/[\\w.+-]+\\.so(\\.\\d+)*");
    /** The C.UTF-8 locale the launcher runs the JVM under (its categories, one file each). */
    private static final Pattern LOCALE = Pattern.compile("usr/lib/locale/C\\.utf8/LC_[A-Z_]+(/[\\w.]+)?");
    private static final long CLOCK_TICKS = 100;
    private static final int REWRITES = 10;

    private Sandbox sandbox;
    private RuntimeNode node;
    private String image;

    @BeforeEach
    void setUp(Sandbox sandbox)
    {
        this.sandbox = sandbox;
        node = sandbox.node("image");
        image = ImageUnderTest.load(sandbox, node);
    }

    @AfterEach
    void tearDown()
    {
        node.close();
    }

    @Test
    void archiveHoldsOneImageWithTheVersionAndLatestAndTheAgentAsEntrypoint()
    {
        JsonNode manifest = CniJson.parse(Commands.ok("tar", "-xOf", ImageUnderTest.TAR.toString(), "manifest.json").out().getBytes(StandardCharsets.UTF_8));
        assertThat(manifest).hasSize(1);
        List<String> tags = new ArrayList<>();
        manifest.get(0).get("RepoTags").forEach(tag -> tags.add(tag.asText()));
        assertThat(tags).containsExactlyInAnyOrder("docker.io/library/cni-chain:" + ImageUnderTest.VERSION, "docker.io/library/cni-chain:latest");

        JsonNode config = CniJson.parse(node.podman().podman("image", "inspect", image).ok().out().getBytes(StandardCharsets.UTF_8)).get(0).get("Config");
        assertThat(config.get("Entrypoint")).hasToString("[\"/opt/cni-chain/bin/cni-chain\"]");
        assertThat(config.get("Cmd")).hasToString("[\"run\",\"--config\",\"/opt/cni-chain/conf/cni-chain.yaml\"]");
        assertThat(config.get("User").asText()).isEqualTo("0:0");
        assertThat(config.get("Env").toString()).contains("JAVA_HOME=/opt/java");
        long size = Long.parseLong(node.podman().podman("image", "inspect", "--format", "{{.Size}}", image).ok().out().trim());
        Steps.say("image " + image + ": " + size / 1000 + " kB uncompressed, tags " + tags);
        assertThat(size).as("uncompressed image size").isLessThan(MAX_IMAGE_BYTES);
    }

    @Test
    void holdsTheRuntimeItsLibrariesTheAgentAndBusyboxOnly()
    {
        JsonNode manifest = CniJson.parse(Commands.ok("tar", "-xOf", ImageUnderTest.TAR.toString(), "manifest.json").out().getBytes(StandardCharsets.UTF_8));
        assertThat(manifest.get(0).get("Layers")).as("one layer").hasSize(1);
        String layer = manifest.get(0).get("Layers").get(0).asText();
        List<String> entries = Commands.ok("sh", "-c", "tar -xOf \"$0\" \"$1\" | tar -t", ImageUnderTest.TAR.toString(), layer).out().lines()
                .map(line -> line.replaceFirst("^\\./", "").replaceFirst("/$", "")).filter(line -> !line.isEmpty() && !line.equals(".")).toList();
        Set<String> elsewhere = new TreeSet<>();
        for (String entry : entries) {
            boolean directory = entries.stream().anyMatch(other -> other.startsWith(entry + "/"));
            if (!directory && !entry.startsWith("opt/java/") && !entry.startsWith("opt/cni-chain/")) {
                elsewhere.add(entry);
            }
        }
        assertThat(elsewhere).as("files outside /opt/java and /opt/cni-chain").allSatisfy(entry ->
                assertThat(BIN.contains(entry) || SHARED_LIBRARY.matcher(entry).matches() || LOCALE.matcher(entry).matches() || entry.equals("tmp"))
                        .as(entry).isTrue());
        assertThat(elsewhere).containsAll(BIN);
        assertThat(entries).contains("opt/cni-chain/bin/cni-chain", "opt/cni-chain/conf/cni-chain.yaml", "opt/java/bin/java", "opt/cni-chain/plugins");
        assertThat(entries).filteredOn(entry -> entry.startsWith("opt/cni-chain/plugins/")).as("no plugin jar").isEmpty();
        assertThat(entries).filteredOn(entry -> entry.startsWith("opt/java/bin/")).as("the runtime's commands").containsExactly("opt/java/bin/java");

        List<String> modules = run("--entrypoint", "/opt/java/bin/java", image, "--list-modules").ok().out().lines()
                .map(line -> line.replaceFirst("@.*", "")).toList();
        assertThat(modules).as("the modules jlink linked").containsExactlyInAnyOrder("java.base", "java.net.http", "jdk.crypto.ec", "jdk.unsupported");
        // The JVM names files in the encoding of its locale: without C.UTF-8 in the image, that would be ASCII.
        Commands.Result settings = run("--entrypoint", "/opt/java/bin/java", "--env", "LC_ALL=C.UTF-8", image, "-XshowSettings:properties", "-version").ok();
        assertThat(settings.err()).as("the runtime under the launcher's locale").contains("sun.jnu.encoding = UTF-8");
        Steps.say("image holds " + entries.size() + " entries; outside /opt: " + elsewhere + "; modules " + modules);
    }

    @Test
    void everyCommandRunsOnTheLinkedRuntimeWithAReadOnlyRoot()
            throws IOException
    {
        assertThat(run(image, "--version").ok().out()).contains("cni-chain " + ImageUnderTest.VERSION);

        Path examplePlugins = Path.of(System.getProperty("cnichain.examplePlugins", "target/example-plugins")).toAbsolutePath();
        Commands.Result adapters = run("--volume", examplePlugins + ":/opt/cni-chain/plugins:ro", image, "adapters").ok();
        assertThat(adapters.out()).as("a plugin jar loaded through pf4j").contains("aws-vpc-cni", "plugin jar /opt/cni-chain/plugins/");

        Layout.PLAIN_CONFLIST.lay(node);
        Commands.Result detect = run("--volume", node.confDir() + ":/host/etc/cni/net.d:ro", image, "detect", "--output", "json");
        // A bare container has no plugin binary to install (the init container supplies it): a problem, so exit 1.
        assertThat(detect.code()).as(detect.toString()).isEqualTo(1);
        assertThat(CniJson.parse(detect.out().getBytes(StandardCharsets.UTF_8)).path("chosen").asText()).isEqualTo("generic-symlink");
        assertThat(CniJson.parse(detect.out().getBytes(StandardCharsets.UTF_8)).path("problems").toString())
                .contains("the linkerd-cni binary is not installed");

        Commands.Result demo = run(image, "demo", "--platform", "oci");
        assertThat(demo.code()).as(demo.toString()).isZero();
        assertThat(demo.out()).contains("every link kept");
    }

    @Test
    void theClassDataArchiveServesTheImagesRuntimeAndClassPath()
    {
        // -Xshare:on refuses to start rather than run without the archive, as -Xshare:auto (the launcher's) silently would.
        Commands.Result version = run("--env", "CNI_CHAIN_JAVA_OPTS=-Xshare:on", image, "--version");
        assertThat(version.code()).as(version.toString()).isZero();
        assertThat(version.out()).contains("cni-chain " + ImageUnderTest.VERSION);
    }

    @Test
    void agentIsPidOneWithinTheDaemonSetsMemoryAndStopsCleanlyOnSigterm()
            throws IOException, InterruptedException
    {
        Layout.Primary primary = Layout.PLAIN_CONFLIST.lay(node);
        Path pluginBin = AgentContainer.copyPluginBinary(node, PluginImage.build(sandbox, node));
        AgentContainer agent = AgentContainer.start(node, image, pluginBin, AgentContainer.nodeEnv(node), List.of("CHOWN"));
        Duration ready = agent.awaitReady(Duration.ofSeconds(60));
        Path proc = Path.of("/proc", Long.toString(agent.pid()));
        assertThat(Files.readSymbolicLink(proc.resolve("exe"))).hasToString("/opt/java/bin/java");
        assertThat(status(proc, "NSpid")).as("PID 1 in the container").endsWith("\t1");
        long startCpu = cpuMillis(proc);
        long startRss = kilobytes(status(proc, "VmRSS"));

        // As a primary does on restarts: a complete new file renamed over the old one, re-patched every time. Paced
        // apart by more than the 250 ms within which an undone write counts towards a fight (and a back-off).
        for (int i = 0; i < REWRITES; i++) {
            Thread.sleep(300);
            Path temp = primary.installedFile().resolveSibling(".rewrite" + i);
            Files.writeString(temp, primary.originalText());
            Files.move(temp, primary.installedFile(), StandardCopyOption.ATOMIC_MOVE);
            awaitPatched(agent, primary.installedFile());
        }
        long peakRss = kilobytes(status(proc, "VmHWM"));
        long limit = AgentResources.memoryLimitBytes() / 1024;
        Steps.say("agent in the image: ready after " + ready.toMillis() + " ms, " + startCpu + " ms of CPU to get there, " + startRss / 1024
                + " MiB resident; after " + REWRITES + " re-patches " + cpuMillis(proc) + " ms of CPU, peak " + peakRss / 1024 + " MiB (DaemonSet: request "
                + AgentResources.memoryRequestBytes() / 1024 / 1024 + " MiB, limit " + limit / 1024 + " MiB)");
        assertThat(peakRss).as("peak resident KiB below the DaemonSet's memory limit").isLessThan(limit);

        agent.stop(30);
        assertThat(agent.awaitExit()).as(agent.logs()).isZero();
        assertThat(RuntimeNode.json(primary.installedFile())).isEqualTo(primary.original());
        assertThat(node.installedPlugin()).doesNotExist();
        assertThat(node.kubeconfig()).doesNotExist();
    }

    /**
     * The DaemonSet's environment (the downward API's variables, the start-up taint enabled) against the stand-in API
     * server (no real one can run here), reached over the host's network: the agent removes the taint, then on SIGTERM
     * asks whether this is an uninstall, keeps everything, and stays within the DaemonSet's memory all along, counting
     * every process of the container.
     */
    @Test
    void removesTheTaintAndKeepsThePluginOnSigtermWithinTheDaemonSetsMemory()
            throws Exception
    {
        Layout.Primary primary = Layout.PLAIN_CONFLIST.lay(node);
        Path pluginBin = AgentContainer.copyPluginBinary(node, PluginImage.build(sandbox, node));
        try (StandInCluster cluster = StandInCluster.start(node.serviceAccountDir())) {
            cluster.server().changeNode(apiNode -> apiNode.with("spec").putArray("taints").addObject().put("key", "cni-chain.io/not-ready")
                    .put("value", "true").put("effect", "NoSchedule"));
            Map<String, String> env = new LinkedHashMap<>(AgentContainer.nodeEnv(node));
            env.putAll(cluster.environment());
            env.put("NODE_TAINT_ENABLED", "true");
            AgentContainer agent = AgentContainer.start(node, image, pluginBin, env, List.of("CHOWN"));
            long pid = agent.pid();
            MemorySampler memory = MemorySampler.start(pid);
            agent.awaitReady(Duration.ofSeconds(60));
            Await.until(Duration.ofSeconds(60), () -> cluster.server().node().path("spec").path("taints").isEmpty(),
                    () -> "the taint was not removed:\n" + agent.logs());
            Thread.sleep(500);
            long afterTaint = kilobytes(status(Path.of("/proc", Long.toString(pid)), "VmRSS"));
            agent.stop(30);
            assertThat(agent.awaitExit()).as(agent.logs()).isZero();
            MemorySampler.Peaks peaks = memory.stop();
            long limit = AgentResources.memoryLimitBytes() / 1024;
            Steps.say("agent in the image with the start-up taint and the decision on SIGTERM: " + afterTaint / 1024 + " MiB resident after the taint's "
                    + "removal, the agent's peak " + peaks.agentKib() / 1024 + " MiB, the container's peak (every process's Pss) " + peaks.totalKib() / 1024
                    + " MiB, " + peaks.processes() + " process(es) at most (limit " + limit / 1024 + " MiB)");
            assertThat(agent.logs()).contains("SIGTERM: leaving our CNI entries, kubeconfig and binaries in place: DaemonSet cni-chain/cni-chain exists");
            assertThat(peaks.totalKib()).as("peak KiB of every process of the container (Pss), below the DaemonSet's memory limit").isLessThan(limit);
            assertThat(RuntimeNode.pluginTypes(RuntimeNode.json(primary.installedFile()))).endsWith(RuntimeNode.PLUGIN);
            assertThat(node.installedPlugin()).exists();
            assertThat(node.kubeconfig()).exists();
        }
    }

    private Commands.Result run(String... args)
    {
        List<String> command = new ArrayList<>(List.of("run", "--rm", "--pull", "never", "--network", "none", "--read-only", "--read-only-tmpfs=false",
                "--tmpfs", "/tmp:rw,size=16m", "--cap-drop", "all", "--security-opt", "no-new-privileges"));
        command.addAll(List.of(args));
        return node.podman().podman(command.toArray(String[]::new));
    }

    private static void awaitPatched(AgentContainer agent, Path file)
    {
        Await.until(Duration.ofSeconds(20), () -> PluginList.patched(file), () -> file + " not patched again:\n" + agent.logs());
    }

    private static String status(Path proc, String field)
            throws IOException
    {
        return Files.readAllLines(proc.resolve("status")).stream().filter(line -> line.startsWith(field + ":")).findFirst()
                .orElseThrow(() -> new AssertionError("no " + field + " in " + proc.resolve("status")));
    }

    private static long kilobytes(String statusLine)
    {
        return Long.parseLong(statusLine.replaceAll("[^0-9]", ""));
    }

    /** utime + stime of the process, in milliseconds. */
    private static long cpuMillis(Path proc)
            throws IOException
    {
        String stat = Files.readString(proc.resolve("stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 1000 / CLOCK_TICKS;
    }
}
