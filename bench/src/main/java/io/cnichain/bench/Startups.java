package io.cnichain.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Start-up to the first patched file, a primary already present, each program started in turn on a fresh node; the
 * agent's cleanup on SIGTERM checked after each start; and the JVM's own creation.
 */
final class Startups
{
    private final Settings settings;
    private final Path logs;
    private final Figures figures;

    Startups(Settings settings, Path logs, Figures figures)
    {
        this.settings = settings;
        this.logs = logs;
        this.figures = figures;
    }

    void measure(List<Program> programs, List<Program> startupOnly)
            throws Exception
    {
        Map<Program, List<Double>> times = new LinkedHashMap<>();
        Map<Program, List<Double>> outside = new LinkedHashMap<>();
        Map<Program, List<Double>> fromJvm = new LinkedHashMap<>();
        List<Program> starting = new ArrayList<>(programs);
        starting.addAll(startupOnly);
        for (int i = 0; i < settings.starts(); i++) {
            for (Program program : starting) {
                try (Node node = Node.create(false, 0, settings.binaryMib())) {
                    Path log = logs.resolve(program.name() + "-start-" + i + ".log");
                    long start = System.nanoTime();
                    // Watched from before the start: podman returns only after its container is running, and the
                    // agent may have patched the file by then.
                    Node.PatchWatch watch = node.watchPatched();
                    Program.Running running = program.start(node, log);
                    long patchedAt = watch.await(start, running);
                    double total = (patchedAt - start) / 1e6;
                    OptionalLong processStart = running.processStartNanos();
                    times.computeIfAbsent(program, p -> new ArrayList<>()).add(
                            processStart.isPresent() ? (patchedAt - processStart.getAsLong()) / 1e6 : total);
                    if (processStart.isPresent()) {
                        outside.computeIfAbsent(program, p -> new ArrayList<>()).add(total);
                    }
                    OptionalLong jvmStart = running.jvmStartNanos();
                    if (jvmStart.isPresent()) {
                        fromJvm.computeIfAbsent(program, p -> new ArrayList<>()).add((patchedAt - jvmStart.getAsLong()) / 1e6);
                    }
                    Run.stop(figures, program, running, node);
                }
            }
        }
        times.forEach((program, list) -> {
            put(program, "startup_ms", Stats.median(list));
            put(program, "startup_min_ms", Stats.min(list));
            put(program, "startup_max_ms", Stats.max(list));
        });
        outside.forEach((program, list) -> put(program, "startup_with_podman_ms", Stats.median(list)));
        if (settings.image().isEmpty()) {
            vmCreation(programs);
        }
        fromJvm.forEach((program, list) -> put(program, "startup_from_jvm_ms", Stats.median(list)));
    }

    /**
     * The JVM's own creation ({@code -Xlog:startuptime}'s "Create VM"), the launcher's options and class path, with the
     * agent's class-data archive (its AOT cache) and with the JDK's default one, as the floor starts: what the
     * archive costs before the first line of ours runs.
     */
    private void vmCreation(List<Program> programs)
            throws Exception
    {
        List<Double> withArchive = new ArrayList<>();
        List<Double> withDefault = new ArrayList<>();
        for (int i = 0; i < settings.starts(); i++) {
            withArchive.add(createVmMillis(HostProgram.vmCreationCommand(settings.dist(), settings.javaHome(), true, settings.jvmOptions())));
            withDefault.add(createVmMillis(HostProgram.vmCreationCommand(settings.dist(), settings.javaHome(), false, settings.jvmOptions())));
        }
        put(programs.get(0), "vm_creation_ms", Stats.median(withArchive));
        put(programs.get(1), "vm_creation_ms", Stats.median(withDefault));
    }

    private static double createVmMillis(List<String> command)
            throws IOException, InterruptedException
    {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        process.waitFor();
        java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("Create VM, ([0-9.]+) secs").matcher(out);
        if (!matcher.find()) {
            throw new IllegalStateException("no \"Create VM\" line from " + String.join(" ", command) + ":\n" + out);
        }
        return Double.parseDouble(matcher.group(1)) * 1000;
    }

    private void put(Program program, String figure, double value)
    {
        figures.put(program.name(), figure, value);
    }
}
