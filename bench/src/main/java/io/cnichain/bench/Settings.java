package io.cnichain.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What to run and how much.
 *
 * @param dist         the built distribution directory (bin/cni-chain)
 * @param javaHome     the runtime for the agent and the floor
 * @param image        the image tar to run under podman instead of the launcher, when given
 * @param runs         how many times every measurement is taken; figures are medians over runs
 * @param starts       start-ups per program per run
 * @param trials       reaction trials per program per run (at least 100, for a p99 that is not the largest)
 * @param idleSeconds  how long both programs idle
 * @param stormFiles   hidden temp files of the storm
 * @param scaleEntries entries of the large conf dir
 * @param scaleTrials  reaction trials on each scale node
 * @param results      the result file (JSON)
 * @param only         "reaction", "idle", "startup", "periodic" or "scale": only those trials, no targets (to try a change); empty for everything
 * @param jvmOptions   JVM options added to the launcher's, for the agent and the floor alike (to try one)
 * @param binaryMib    the plugin binary's size in MiB at the start-ups; 0 for a two-line script
 */
record Settings(Path dist, Path javaHome, Optional<Path> image, int runs, int starts, int trials, int idleSeconds, int stormFiles,
                int scaleEntries, int scaleTrials, Path results, Optional<String> only, List<String> jvmOptions,
                int binaryMib)
{
    boolean only(String part)
    {
        return only.isPresent() && only.get().equals(part);
    }

    static final String USAGE = """
            usage: java -jar bench/target/cni-chain-bench.jar [options]
              --dist DIR        the distribution (default distribution/target/cni-chain)
              --java DIR        JAVA_HOME for the agent and the floor (default: the one running this)
              --image TAR       run the image (podman load -i TAR) instead of bin/cni-chain; needs root and podman
              --runs N          whole runs; every figure is the median over runs (default 3)
              --starts N        start-ups per program per run (default 10)
              --trials N        reaction trials per program per run (default 100)
              --idle SECONDS    idle time (default 60)
              --storm N         hidden files of the storm (default 10000)
              --scale N         entries of the large conf dir (default 5000)
              --scale-trials N  reaction trials per scale node (default 50)
              --quick           1 run, 3 starts, 20 trials, 10 s idle, 10 scale trials: to try the benchmark, not for figures
              --only reaction   only the reaction trials (no start-ups, idle, storm, scale or targets)
              --only startup    only the start-ups (no reaction, idle, storm, scale or targets)
              --only idle       only the reaction trials, then the idle (its memory and CPU): no start-ups, storm or scale
              --only periodic   only the periodic check's cost (the agent with periodicCheckSeconds: 1, for --idle seconds)
              --only scale      only the link-chain nodes of 10 and --scale entries (first pass and reaction on each)
              --only daemonset  only the idle memory in the chart's configuration (a projected --config, the in-cluster
                                environment, a TLS API stand-in, the chart's probes), in each of its modes and without
                                API calls, side by side for --idle seconds (not with --image)
              --jvm-option OPT  one JVM option more, for the agent (CNI_CHAIN_JAVA_OPTS) and the floor alike; repeat for
                                more: to try an option before the launcher gets it (not with --image)
              --binary-mib N    the plugin binary the start-ups copy, N MiB of it (default 0: a two-line script;
                                Linkerd's linkerd-cni is a Go program of tens of MiB)
              --out FILE        the result file (default bench/results/DATE-jdkN[-image].json)
            """;

    static Settings parse(String[] args)
    {
        Path dist = Path.of("distribution/target/cni-chain");
        Path javaHome = Path.of(System.getProperty("java.home"));
        Optional<Path> image = Optional.empty();
        int runs = 3, starts = 10, trials = 100, idle = 60, storm = 10_000, scale = 5000, scaleTrials = 50, binaryMib = 0;
        Path out = null;
        Optional<String> only = Optional.empty();
        List<String> jvmOptions = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--dist" -> dist = Path.of(value);
                case "--java" -> javaHome = Path.of(value);
                case "--image" -> image = Optional.of(Path.of(value));
                case "--runs" -> runs = Integer.parseInt(value);
                case "--starts" -> starts = Integer.parseInt(value);
                case "--trials" -> trials = Integer.parseInt(value);
                case "--idle" -> idle = Integer.parseInt(value);
                case "--storm" -> storm = Integer.parseInt(value);
                case "--scale" -> scale = Integer.parseInt(value);
                case "--scale-trials" -> scaleTrials = Integer.parseInt(value);
                case "--out" -> out = Path.of(value);
                case "--binary-mib" -> binaryMib = Integer.parseInt(value);
                case "--jvm-option" -> {
                    if (value == null || !value.startsWith("-") || value.chars().anyMatch(Character::isWhitespace)) {
                        throw new IllegalArgumentException("--jvm-option takes one JVM option without blanks, such as -XX:CompileThresholdScaling=0.5\n" + USAGE);
                    }
                    jvmOptions.add(value);
                }
                case "--only" -> {
                    if (!java.util.List.of("reaction", "idle", "startup", "periodic", "scale", "daemonset").contains(value)) {
                        throw new IllegalArgumentException("--only takes reaction, idle, startup, periodic, scale or daemonset\n" + USAGE);
                    }
                    only = Optional.of(value);
                }
                case "--quick" -> {
                    runs = 1;
                    starts = 3;
                    trials = 20;
                    idle = 10;
                    scaleTrials = 10;
                    i--;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i] + "\n" + USAGE);
            }
            i++;
        }
        if (image.isPresent() && !jvmOptions.isEmpty()) {
            throw new IllegalArgumentException("--jvm-option is for the launcher on this host, not --image: the image's JVM options are its own\n" + USAGE);
        }
        if (out == null) {
            out = Path.of("bench/results", java.time.LocalDate.now() + "-jdk" + JavaRuntime.feature(javaHome) + (image.isPresent() ? "-image" : "") + ".json");
        }
        return new Settings(dist.toAbsolutePath(), javaHome.toAbsolutePath(), image, runs, starts, trials, idle, storm, scale, scaleTrials, out, only, List.copyOf(jvmOptions),
                binaryMib);
    }
}
