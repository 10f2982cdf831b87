package io.cnichain.bench;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The agent's resident memory in the configuration the chart deploys, in each of the chart's modes, against the same
 * agent making no call to the API server: its configuration from a projected volume as the kubelet writes one
 * ({@code ..data} links), the plugin's binary to copy and its kubeconfig to write, the in-cluster environment and a
 * TLS API server ({@link StandInApi}), and the chart's probes ({@code /readyz} every 5 s, {@code /healthz} every 10 s,
 * 2 s each). The modes run side by side, each on its own node, idle for the idle time once patched; every figure is the
 * median over the runs. Beside the agent's own resident memory at the end, the peak of the agent and its children
 * together (its calls to the API server run in child processes; the sum of their Pss), sampled every 20 ms from its
 * start: what the container's memory limit must hold.
 *
 * <pre>java -jar bench/target/cni-chain-bench.jar --only daemonset</pre>
 */
final class DaemonSetMemory
{
    /** The chart's modes as the agent's process sees them; "no API" is the same agent with nothing to ask. */
    enum Mode
    {
        NO_API("no API calls"),
        PLAIN("the chart's default: the plugin's token"),
        STARTUP_TAINT("nodeTaint: the plugin's token, the fence's dry run, the taint lifted");

        final String description;

        Mode(String description)
        {
            this.description = description;
        }
    }

    private DaemonSetMemory() {}

    static void measure(Settings settings)
            throws Exception
    {
        Path work = Files.createTempDirectory("cni-chain-bench-daemonset-");
        Map<Mode, List<Double>> rss = new LinkedHashMap<>();
        Map<Mode, List<Double>> peaks = new LinkedHashMap<>();
        try (StandInApi api = StandInApi.start(settings.javaHome(), work)) {
            for (int run = 1; run <= settings.runs(); run++) {
                System.out.printf("run %d of %d (load average %s)%n", run, settings.runs(), Machine.loadAverage());
                List<Agent> agents = new ArrayList<>();
                try {
                    for (Mode mode : Mode.values()) {
                        agents.add(Agent.start(settings, mode, api, Files.createDirectories(work.resolve("run-" + run + "-" + mode))));
                    }
                    for (Agent agent : agents) {
                        agent.awaitPatched();
                    }
                    System.out.printf("  idle for %d s, probed as the chart probes%n", settings.idleSeconds());
                    Thread.sleep(settings.idleSeconds() * 1000L);
                    if (System.getenv("CNI_CHAIN_BENCH_NMT") != null) {
                        for (Agent agent : agents) {
                            Process jcmd = new ProcessBuilder(settings.javaHome().resolve("bin/jcmd").toString(), Long.toString(agent.process.toHandle()
                                    .descendants().findFirst().map(ProcessHandle::pid).orElse(agent.process.pid())), "VM.native_memory", "summary")
                                    .redirectErrorStream(true).start();
                            System.out.println("  " + agent.mode + ":\n" + new String(jcmd.getInputStream().readAllBytes()).lines()
                                    .filter(l -> l.contains("committed=") && l.startsWith("-") || l.startsWith("Total")).map(l -> "    " + l.strip())
                                    .collect(java.util.stream.Collectors.joining("\n")));
                        }
                    }
                    for (Agent agent : agents) {
                        double mib = Proc.rssMib(agent.process.pid(), "VmRSS");
                        rss.computeIfAbsent(agent.mode, m -> new ArrayList<>()).add(mib);
                        peaks.computeIfAbsent(agent.mode, m -> new ArrayList<>()).add(agent.peakMib.get());
                        System.out.printf("  %-14s %6.1f MiB resident, %6.1f MiB peak Pss with its children, %d probes failed%n", agent.mode, mib,
                                agent.peakMib.get(), agent.failedProbes.get());
                    }
                }
                finally {
                    for (Agent agent : agents) {
                        agent.stop();
                    }
                }
            }
            System.out.printf("%nidle resident memory in the chart's configuration, median of %d run(s), %d s idle (stand-in API server: %d requests)%n",
                    settings.runs(), settings.idleSeconds(), api.requests());
            System.out.println("| mode | RSS MiB, idle | above no API | peak Pss MiB, with its children |");
            System.out.println("|---|---|---|---|");
            double base = median(rss.get(Mode.NO_API));
            for (Map.Entry<Mode, List<Double>> entry : rss.entrySet()) {
                double median = median(entry.getValue());
                System.out.printf("| %s (%s) | %.1f | %+.1f | %.1f |%n", entry.getKey(), entry.getKey().description, median, median - base,
                        median(peaks.get(entry.getKey())));
            }
        }
        finally {
            Files.walk(work).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static double median(List<Double> values)
    {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** One agent through the launcher, on a node of its own, with the chart's configuration and environment for its mode. */
    private record Agent(Mode mode, Process process, Node node, Path log, AtomicInteger failedProbes, AtomicBoolean probing,
            java.util.concurrent.atomic.AtomicReference<Double> peakMib)
    {
        static Agent start(Settings settings, Mode mode, StandInApi api, Path dir)
                throws IOException
        {
            Node node = Node.create(false, 0);
            int port = HostProgram.freePort();
            if (mode != Mode.NO_API) {
                Files.copy(api.caPem(), node.serviceAccount.resolve("ca.crt"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            Path config = projectedConfig(dir.resolve("config"), """
                    adapter: auto
                    hostRoot: %s
                    confDir: /etc/cni/net.d
                    binDir: /opt/cni/bin
                    sourceBinDir: %s
                    serviceAccountDir: %s
                    healthPort: %d
                    placement: patch
                    cleanupOnShutdown: auto
                    shutdownTimeoutSeconds: 20
                    periodicCheckSeconds: 60
                    logLevel: info
                    logFormat: text
                    nodeTaint:
                      key: cni-chain.io/not-ready
                    """.formatted(node.host, node.image, node.serviceAccount, port));
            ProcessBuilder builder = new ProcessBuilder(settings.dist().resolve("bin/cni-chain").toString(), "run", "--config", config.toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("agent.log").toFile());
            Map<String, String> env = builder.environment();
            env.put("JAVA_HOME", settings.javaHome().toString());
            // Each agent keeps the plugin's token in its own temp dir, as each pod has its own /tmp.
            List<String> options = new ArrayList<>(settings.jvmOptions());
            options.add("-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp")));
            env.put("CNI_CHAIN_JAVA_OPTS", String.join(" ", options));
            env.put("DEST_CNI_NET_DIR", "/etc/cni/net.d");
            env.put("KUBECONFIG_FILE_NAME", "ZZZ-linkerd-cni-kubeconfig");
            if (mode == Mode.NO_API) {
                env.put("KUBERNETES_SERVICE_HOST", "10.96.0.1");
                env.put("KUBERNETES_SERVICE_PORT", "443");
            }
            else {
                env.put("KUBERNETES_SERVICE_HOST", "127.0.0.1");
                env.put("KUBERNETES_SERVICE_PORT", Integer.toString(api.port()));
                env.put("POD_NAME", "cni-chain-" + mode.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
                env.put("POD_NAMESPACE", "cni-chain");
                env.put("NODE_NAME", StandInApi.NODE);
                env.put("CNI_CHAIN_PLUGIN_SERVICE_ACCOUNT", "cni-chain-plugin");
            }
            if (mode == Mode.STARTUP_TAINT) {
                env.put("NODE_TAINT_ENABLED", "true");
            }
            Process process = builder.start();
            AtomicInteger failed = new AtomicInteger();
            AtomicBoolean probing = new AtomicBoolean(true);
            Thread prober = new Thread(() -> probe(port, probing, failed), "prober-" + mode);
            prober.setDaemon(true);
            prober.start();
            java.util.concurrent.atomic.AtomicReference<Double> peak = new java.util.concurrent.atomic.AtomicReference<>(0.0);
            Thread sampler = new Thread(() -> samplePeak(process.toHandle(), probing, peak), "sampler-" + mode);
            sampler.setDaemon(true);
            sampler.start();
            return new Agent(mode, process, node, dir.resolve("agent.log"), failed, probing, peak);
        }

        void awaitPatched()
                throws InterruptedException, IOException
        {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!node.patched()) {
                if (System.nanoTime() > end || !process.isAlive()) {
                    throw new IOException(mode + ": the agent did not patch its node: " + Node.tail(log));
                }
                Thread.sleep(20);
            }
        }

        void stop()
                throws InterruptedException, IOException
        {
            probing.set(false);
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
            node.close();
        }

        /**
         * The largest sum of the Pss of the agent and every process under it, as the container's cgroup counts it: a page
         * both map (the runtime's libraries, its module image, the AOT cache) is charged once.
         */
        private static void samplePeak(ProcessHandle agent, AtomicBoolean running, java.util.concurrent.atomic.AtomicReference<Double> peak)
        {
            while (running.get() && agent.isAlive()) {
                double total = 0;
                for (ProcessHandle process : java.util.stream.Stream.concat(java.util.stream.Stream.of(agent), agent.descendants()).toList()) {
                    try {
                        total += Proc.pssMib(process.pid());
                    }
                    catch (IOException | RuntimeException e) {
                        // gone between the listing and the read
                    }
                }
                double sum = total;
                peak.updateAndGet(before -> Math.max(before, sum));
                try {
                    Thread.sleep(20);
                }
                catch (InterruptedException e) {
                    return;
                }
            }
        }

        /** The chart's probes: /readyz every 5 s and /healthz every 10 s, each with a 2 s timeout. */
        private static void probe(int port, AtomicBoolean probing, AtomicInteger failed)
        {
            for (int tick = 0; probing.get(); tick++) {
                try {
                    Thread.sleep(5000);
                }
                catch (InterruptedException e) {
                    return;
                }
                for (String path : tick % 2 == 1 ? List.of("/readyz", "/healthz") : List.of("/readyz")) {
                    try {
                        HttpURLConnection connection = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
                        connection.setConnectTimeout(2000);
                        connection.setReadTimeout(2000);
                        connection.getResponseCode();
                        connection.disconnect();
                    }
                    catch (IOException e) {
                        failed.incrementAndGet();
                    }
                }
            }
        }

        /** The file as a ConfigMap volume shows it: {@code name -> ..data/name}, {@code ..data -> ..TIMESTAMP}. */
        private static Path projectedConfig(Path volume, String yaml)
                throws IOException
        {
            Path version = Files.createDirectories(volume.resolve("..2026_12_06_00_00_00.000000001"));
            Files.writeString(version.resolve("cni-chain.yaml"), yaml);
            Files.createSymbolicLink(volume.resolve("..data"), version.getFileName());
            Files.createSymbolicLink(volume.resolve("cni-chain.yaml"), Path.of("..data/cni-chain.yaml"));
            return volume.resolve("cni-chain.yaml");
        }
    }
}
