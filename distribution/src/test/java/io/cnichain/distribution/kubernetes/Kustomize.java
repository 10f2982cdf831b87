package io.cnichain.distribution.kubernetes;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code kubectl kustomize DIR}, the real process, as {@code kubectl apply -k DIR} renders before it sends.
 * Without kubectl the tests that need it are skipped with a banner, unless {@code CI=true}: then they fail.
 */
final class Kustomize
{
    /** The manifests: {@code distribution/kubernetes}. */
    static final Path MANIFESTS = Path.of(System.getProperty("cnichain.kubernetes", "kubernetes")).toAbsolutePath();

    private static final AtomicBoolean BANNER = new AtomicBoolean();

    private Kustomize() {}

    /**
     * @param dir a kustomization directory
     * @return the rendered YAML
     */
    static String render(Path dir)
    {
        Path kubectl = kubectl().orElseGet(Kustomize::skipOrFail);
        Path out = null;
        Path err = null;
        try {
            out = Files.createTempFile("kustomize-", ".yaml");
            err = Files.createTempFile("kustomize-", ".err");
            Process process = new ProcessBuilder(List.of(kubectl.toString(), "kustomize", dir.toString()))
                    .redirectOutput(out.toFile()).redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("kubectl kustomize " + dir + " did not finish within 60 s");
            }
            if (process.exitValue() != 0) {
                throw new AssertionError("kubectl kustomize " + dir + " failed (exit " + process.exitValue() + "):\n" + Files.readString(err));
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        finally {
            deleteQuietly(out);
            deleteQuietly(err);
        }
    }

    private static Optional<Path> kubectl()
    {
        for (String dir : (System.getenv().getOrDefault("PATH", "") + ":/usr/local/bin:/usr/bin:/bin").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "kubectl"))) {
                return Optional.of(Path.of(dir, "kubectl"));
            }
        }
        return Optional.empty();
    }

    private static Path skipOrFail()
    {
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new IllegalStateException("CI=true, so this is a failure, not a skip: the manifest tests need kubectl (with its kustomize) on PATH");
        }
        if (BANNER.compareAndSet(false, true)) {
            String rule = "!".repeat(100);
            System.out.println(rule + "\nSKIPPING THE MANIFEST TESTS: no kubectl on PATH, so the Kubernetes manifests are NOT checked in this run\n"
                    + "  (with CI=true this is a failure, not a skip)\n" + rule);
        }
        Assumptions.abort("no kubectl on PATH");
        throw new AssertionError("unreachable");
    }

    private static void deleteQuietly(Path file)
    {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            }
            catch (IOException ignored) {
                // a temp file
            }
        }
    }
}
