package io.cnichain.testkit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Checks {@link NeedsRoot}'s requirements once per class: a loud skip, or with {@code CI=true} a failure. */
public final class NeedsRootExtension
        implements BeforeAllCallback
{
    @Override
    public void beforeAll(ExtensionContext context)
    {
        NeedsRoot needs = context.getRequiredTestClass().getAnnotation(NeedsRoot.class);
        List<String> missing = new ArrayList<>();
        if (!isRoot()) {
            missing.add("root");
        }
        for (String command : needs == null ? new String[0] : needs.commands()) {
            if (which(command).isEmpty()) {
                missing.add("the command " + command);
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        String what = context.getRequiredTestClass().getSimpleName() + " needs " + String.join(", ", missing);
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new IllegalStateException("CI=true, so this is a failure, not a skip: " + what + " (scripts/test, as .ci/run, runs every suite as root)");
        }
        String rule = "!".repeat(100);
        System.err.println(rule);
        System.err.println("SKIPPING " + what.toUpperCase(java.util.Locale.ROOT) + ": NOTHING IN IT IS PROVEN IN THIS RUN");
        System.err.println("  (run as root; with CI=true this is a failure, not a skip)");
        System.err.println(rule);
        Assumptions.abort(what);
    }

    /** @return whether this process runs as root */
    public static boolean isRoot()
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

    /** @return where a command is, if anywhere */
    public static java.util.Optional<Path> which(String command)
    {
        return Stream.concat(Stream.of(System.getenv().getOrDefault("PATH", "").split(":")),
                        Stream.of("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"))
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, command))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** @return the mount points of this machine, from {@code /proc/self/mounts} */
    public static java.util.Set<String> mountPoints()
    {
        try {
            java.util.Set<String> points = new java.util.HashSet<>();
            for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
                // Spaces and other characters in a mount point are octal escapes there.
                String point = line.split(" ")[1];
                points.add(point.replace("\\040", " "));
            }
            return points;
        }
        catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Runs a command; fails the test when it fails. */
    public static String run(String... command)
    {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not finish within 60 s: " + out);
            }
            if (process.exitValue() != 0) {
                throw new AssertionError(String.join(" ", command) + " failed: " + out);
            }
            return out;
        }
        catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
