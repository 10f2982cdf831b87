package io.cnichain.distribution.cluster;

import io.cnichain.distribution.runtime.Commands;
import io.cnichain.distribution.runtime.RuntimeRequirements;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A stand-in for Linkerd's {@code cni-plugin} image, built with buildah and imported into the kit: what the real image
 * holds at the paths the charts use. {@code /opt/cni/bin/linkerd-cni} is the suite's recording plugin
 * ({@code cluster/linkerd-cni}); {@code /usr/bin/linkerd2-cni-install}, the entrypoint (as in the Go installer's image), is Linkerd's own Go
 * installer built from its public source; a static busybox gives {@code cp} (cni-chain's init container) and
 * {@code sh}, {@code kill}, {@code sleep} (linkerd2-cni's preStop hook).
 */
final class StandInImages
{
    /** The plugin image's name and tag in the kit. */
    static final String PLUGIN_IMAGE = "kit.local/cni-plugin";
    static final String PLUGIN_TAG = "standin";
    static final String INSTALLER = "/usr/bin/linkerd2-cni-install";

    private StandInImages() {}

    /**
     * @param linkerd the directory holding Linkerd's installers ({@code linkerd-cni-install})
     * @param log     where the plugin records its calls, on the host
     */
    static void build(Kit kit, Path linkerd, Path log)
            throws IOException
    {
        Path work = Files.createTempDirectory("cc-image-");
        try {
            Path rootfs = work.resolve("rootfs");
            Files.createDirectories(rootfs.resolve("bin"));
            Files.createDirectories(rootfs.resolve("opt/cni/bin"));
            Files.createDirectories(rootfs.resolve("usr/bin"));
            Files.createDirectories(rootfs.resolve("tmp"));
            Files.copy(RuntimeRequirements.BUSYBOX, rootfs.resolve("bin/busybox"));
            for (String applet : List.of("sh", "cp", "kill", "sleep")) {
                Files.createSymbolicLink(rootfs.resolve("bin").resolve(applet), Path.of("busybox"));
            }
            String plugin = resource("cluster/linkerd-cni")
                    .replace("@LOG_DIR@", log.toString())
                    .replace("@KUBECTL@", which("kubectl"))
                    .replace("@JQ@", which("jq"));
            Path binary = rootfs.resolve("opt/cni/bin/linkerd-cni");
            Files.writeString(binary, plugin);
            Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.copy(linkerd.resolve("linkerd-cni-install"), rootfs.resolve(INSTALLER.substring(1)));
            Files.setPosixFilePermissions(rootfs.resolve(INSTALLER.substring(1)), PosixFilePermissions.fromString("rwxr-xr-x"));

            List<String> storage = List.of("--root", work.resolve("store").toString(), "--runroot", work.resolve("run").toString(),
                    "--storage-driver", "vfs");
            String name = PLUGIN_IMAGE + ":" + PLUGIN_TAG;
            String builder = buildah(storage, "from", "scratch").strip();
            buildah(storage, "copy", builder, rootfs + "/", "/");
            buildah(storage, "config", "--env", "PATH=/bin:/opt/cni/bin", "--entrypoint", "[\"" + INSTALLER + "\"]", builder);
            buildah(storage, "commit", "--rm", "-q", builder, name);
            Path archive = work.resolve("cni-plugin.tar");
            buildah(storage, "push", "-q", name, "docker-archive:" + archive + ":" + name);
            kit.importImage(archive);
        }
        finally {
            Commands.run("rm", "-rf", "--one-file-system", work.toString());
        }
    }

    private static String buildah(List<String> storage, String... args)
    {
        List<String> command = new ArrayList<>(List.of("buildah"));
        command.addAll(storage);
        command.addAll(List.of(args));
        return Commands.run(command, Map.of(), Optional.empty(), Duration.ofMinutes(2)).ok().out();
    }

    private static String which(String command)
    {
        return RuntimeRequirements.which(command).orElseThrow(() -> new IllegalStateException("no " + command + " on PATH")).toString();
    }

    static String resource(String name)
    {
        try (var in = StandInImages.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("no test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
