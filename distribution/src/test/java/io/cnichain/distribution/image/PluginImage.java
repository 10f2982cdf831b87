package io.cnichain.distribution.image;

import io.cnichain.distribution.runtime.Commands;
import io.cnichain.distribution.runtime.RuntimeNode;
import io.cnichain.distribution.runtime.RuntimeRequirements;
import io.cnichain.distribution.runtime.Sandbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A stand-in for Linkerd's {@code cni-plugin} image: {@code /opt/cni/bin/linkerd-cni} (the real-runtime suite's
 * stand-in, recording its calls in the node's log) and a static busybox for {@code cp}, built from scratch with
 * buildah into the sandbox's storage. The DaemonSet's init container copies the binary out of it.
 */
final class PluginImage
{
    /** The binary's path in Linkerd's image. */
    static final String BINARY = "/opt/cni/bin/linkerd-cni";

    private PluginImage() {}

    /**
     * @return the image's name
     */
    static String build(Sandbox sandbox, RuntimeNode node)
    {
        String image = "localhost/linkerd-cni-standin:" + sandbox.runId() + "-" + node.label();
        Path rootfs = node.root().resolve("plugin-image");
        try {
            Files.createDirectories(rootfs.resolve("bin"));
            Files.createDirectories(rootfs.resolve("opt/cni/bin"));
            Files.copy(RuntimeRequirements.BUSYBOX, rootfs.resolve("bin/busybox"));
            for (String applet : List.of("sh", "cp")) {
                Files.createSymbolicLink(rootfs.resolve("bin").resolve(applet), Path.of("busybox"));
            }
            Files.copy(node.imageBinDir().resolve(RuntimeNode.PLUGIN), rootfs.resolve(BINARY.substring(1)));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String builder = "ccimg-" + sandbox.runId() + "-" + node.label();
        buildah(sandbox, node, "from", "--name", builder, "scratch");
        buildah(sandbox, node, "copy", builder, rootfs + "/", "/");
        buildah(sandbox, node, "config", "--env", "PATH=/bin:/opt/cni/bin", builder);
        buildah(sandbox, node, "commit", "--rm", "-q", builder, image);
        return image;
    }

    private static void buildah(Sandbox sandbox, RuntimeNode node, String... args)
    {
        List<String> command = new ArrayList<>(List.of("buildah"));
        command.addAll(List.of(args));
        Commands.run(command, sandbox.containersEnv(node.containersConf()), Optional.empty(), Duration.ofSeconds(120)).ok();
    }
}
