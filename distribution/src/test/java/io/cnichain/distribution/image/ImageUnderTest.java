package io.cnichain.distribution.image;

import io.cnichain.distribution.runtime.Commands;
import io.cnichain.distribution.runtime.RuntimeNode;
import io.cnichain.distribution.runtime.Sandbox;
import io.cnichain.distribution.runtime.Steps;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The image the build made ({@code target/cni-chain-image.tar}), loaded once per test run into the real-runtime
 * suite's podman storage, which the suite removes at the end.
 */
final class ImageUnderTest
{
    static final Path TAR = Path.of(System.getProperty("cnichain.image.tar", "target/cni-chain-image.tar")).toAbsolutePath();
    static final String VERSION = System.getProperty("cnichain.version", "0.1.0");
    /** As the archive names it; {@code cni-chain:VERSION} in a manifest is the same image. */
    static final String REFERENCE = "docker.io/library/cni-chain:" + VERSION;

    private static final Map<String, String> LOADED = new HashMap<>();

    private ImageUnderTest() {}

    /**
     * Loads the archive into the sandbox's storage, once.
     *
     * @return the image reference to run
     */
    static synchronized String load(Sandbox sandbox, RuntimeNode node)
    {
        return LOADED.computeIfAbsent(sandbox.runId(), id -> {
            if (!Files.isRegularFile(TAR)) {
                throw new AssertionError(TAR + " is missing although buildah and podman are here: build it with mvn -Pimage package");
            }
            long started = System.nanoTime();
            Commands.Result load = node.podman().podman("load", "--quiet", "--input", TAR.toString()).ok();
            Steps.say("loaded " + TAR.getFileName() + " in " + (System.nanoTime() - started) / 1_000_000 + " ms: " + load.out().trim().replace('\n', ' '));
            return REFERENCE;
        });
    }
}
