package io.cnichain.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * A program run directly on this machine: the agent through {@code bin/cni-chain run} (the default log level, a
 * health port of its own), or the floor with the JVM options the launcher passes (taken from the launcher itself, so
 * the two never drift apart).
 */
final class HostProgram
        implements Program
{
    private final String name;
    private final List<String> command;
    private final boolean agent;
    private final Path javaHome;
    /** The agent's JVM options beyond the launcher's (CNI_CHAIN_JAVA_OPTS); a floor has them in its command. */
    private final List<String> agentJvmOptions;

    private HostProgram(String name, List<String> command, boolean agent, Path javaHome, List<String> agentJvmOptions)
    {
        this.name = name;
        this.command = List.copyOf(command);
        this.agent = agent;
        this.javaHome = javaHome;
        this.agentJvmOptions = List.copyOf(agentJvmOptions);
    }

    /** @param jvmOptions options added to the launcher's (through CNI_CHAIN_JAVA_OPTS, which it puts after its own) */
    static HostProgram agent(Path dist, Path javaHome, List<String> jvmOptions)
    {
        return new HostProgram("cni-chain", List.of(dist.resolve("bin/cni-chain").toString(), "run"), true, javaHome, jvmOptions);
    }

    /** @param jvmOptions options added after the launcher's, as the agent gets them */
    static HostProgram floor(Path dist, Path javaHome, Path benchJar, List<String> jvmOptions)
            throws IOException, InterruptedException
    {
        return floor("floor", Floor.class.getName(), dist, javaHome, benchJar, jvmOptions);
    }

    /** The floor that first links the kernel's calls as the agent does ({@code FloorWithKernelCalls}, Java 22 and later). */
    static HostProgram floorWithKernelCalls(Path dist, Path javaHome, Path benchJar, List<String> jvmOptions)
            throws IOException, InterruptedException
    {
        return floor("floor+kernel-calls", "io.cnichain.bench.FloorWithKernelCalls", dist, javaHome, benchJar, jvmOptions);
    }

    private static HostProgram floor(String name, String mainClass, Path dist, Path javaHome, Path benchJar, List<String> jvmOptions)
            throws IOException, InterruptedException
    {
        List<String> command = new ArrayList<>();
        command.add(javaHome.resolve("bin/java").toString());
        command.addAll(launcherOptions(dist, javaHome));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", benchJar.toString(), mainClass));
        return new HostProgram(name, command, false, javaHome, List.of());
    }

    /**
     * The JVM options the launcher passes, found by running it with a stand-in {@code java} that prints its
     * arguments; options naming the distribution (its home) and those of its class-data archive are the agent's own
     * and left out.
     */
    static List<String> launcherOptions(Path dist, Path javaHome)
            throws IOException, InterruptedException
    {
        List<String> options = new ArrayList<>();
        String home = dist.toRealPath().toString();
        for (String arg : launcherArguments(dist, javaHome)) {
            if (arg.equals("-cp") || arg.equals("-jar")) {
                break;
            }
            // The class-data archive is the agent's own: the floor gets the JDK's default, as any program does.
            if (!isArchiveOption(arg) && !arg.contains(home) && !arg.contains(dist.toString())) {
                options.add(arg);
            }
        }
        return options;
    }

    private static boolean isArchiveOption(String arg)
    {
        return arg.startsWith("-Xshare") || arg.startsWith("-Xlog:cds") || arg.startsWith("-XX:SharedArchiveFile");
    }

    /**
     * The launcher's JVM command line up to the main class, with {@code -Xlog:startuptime -version} in place of the
     * agent: the JVM's own creation, with the agent's class-data archive or (without it) the JDK's default one.
     */
    static List<String> vmCreationCommand(Path dist, Path javaHome, boolean withArchive, List<String> jvmOptions)
            throws IOException, InterruptedException
    {
        List<String> command = new ArrayList<>();
        command.add(javaHome.resolve("bin/java").toString());
        for (String arg : launcherArguments(dist, javaHome)) {
            if (arg.equals("-cp")) {
                command.addAll(jvmOptions);
            }
            if (arg.startsWith("io.cnichain.")) {
                break;
            }
            if (withArchive || !isArchiveOption(arg)) {
                command.add(arg);
            }
        }
        command.addAll(List.of("-Xlog:startuptime", "-version"));
        return command;
    }

    /** Every argument the launcher gives {@code java}, from a stand-in {@code java} that prints them. */
    private static List<String> launcherArguments(Path dist, Path javaHome)
            throws IOException, InterruptedException
    {
        Path fake = Files.createTempDirectory("cni-chain-bench-java-");
        try {
            Path java = Files.createDirectories(fake.resolve("bin")).resolve("java");
            Files.writeString(java, "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n");
            java.toFile().setExecutable(true);
            // The launcher picks some options by the runtime's version, from its release file: the stand-in has the real one's.
            Path release = javaHome.resolve("release");
            if (Files.isReadable(release)) {
                Files.copy(release, fake.resolve("release"));
            }
            ProcessBuilder builder = new ProcessBuilder(dist.resolve("bin/cni-chain").toString(), "run").redirectErrorStream(true);
            builder.environment().put("JAVA_HOME", fake.toString());
            builder.environment().remove("CNI_CHAIN_JAVA_OPTS");
            Process process = builder.start();
            String out;
            try (InputStream in = process.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            process.waitFor();
            return out.lines().toList();
        }
        finally {
            Files.walk(fake).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public String description()
    {
        String environment = agentJvmOptions.isEmpty() ? "" : "CNI_CHAIN_JAVA_OPTS='" + String.join(" ", agentJvmOptions) + "' ";
        return environment + String.join(" ", command) + (agent ? " --host-root NODE --service-account-dir SA --health-port PORT" : " CONF_DIR")
                + " (JAVA_HOME=" + javaHome + ")";
    }

    @Override
    public Running start(Node node, Path log)
            throws IOException
    {
        return start(node, log, List.of());
    }

    /** The agent (only) started with more arguments, such as {@code --config FILE}. */
    Running start(Node node, Path log, List<String> extra)
            throws IOException
    {
        List<String> args = new ArrayList<>(command);
        int port = freePort();
        if (agent) {
            args.addAll(List.of("--host-root", node.host.toString(), "--service-account-dir", node.serviceAccount.toString(),
                    "--health-port", String.valueOf(port)));
            args.addAll(extra);
        }
        else {
            args.add(node.conf.toString());
        }
        ProcessBuilder builder = new ProcessBuilder(args).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().remove("CNI_CHAIN_JAVA_OPTS");
        if (!agentJvmOptions.isEmpty()) {
            builder.environment().put("CNI_CHAIN_JAVA_OPTS", String.join(" ", agentJvmOptions));
        }
        builder.environment().putAll(Map.of("JAVA_HOME", javaHome.toString(), "CONTAINER_CNI_BIN_DIR", node.image.toString(),
                "KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", "443"));
        Process process = builder.start();
        return new HostProcess(process, log, agent ? OptionalInt.of(port) : OptionalInt.empty());
    }

    /** A program started on this host. */
    private record HostProcess(Process process, Path log, OptionalInt healthPort)
            implements Running
    {
        @Override
        public long pid()
        {
            return process.pid();
        }

        @Override
        public int stop()
                throws InterruptedException
        {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor();
                return -1;
            }
            return process.exitValue();
        }
    }

    static int freePort()
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
