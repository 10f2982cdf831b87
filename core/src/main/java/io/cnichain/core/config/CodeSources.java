package io.cnichain.core.config;

import io.cnichain.core.host.HostPaths;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where the jars the agent loads and the binaries it copies into the host's bin dir may come from: the image's own
 * directories. A directory on the host's side of the mounts (under the host root, or the conf or bin dir) would let
 * whoever can edit a ConfigMap run code on every node: the adapter jars the agent loads, and every file the bin dir
 * then holds, which the runtime runs as root for every pod. The pod's own volumes that others fill (the directory of
 * the configuration file, a ConfigMap; the service-account directory, a Secret) and the kernel's file systems
 * ({@code /proc/self/root/...} leads anywhere) are refused alike.
 *
 * <p>Paths compare by where they really lead: links and {@code ..} are resolved as far as the path exists, so that a
 * link or {@code /proc/self/root} cannot dress a host path as an image path. Run on a host itself (host root
 * {@code /}) there is no pod boundary to keep: the configuration is then root's own file.
 */
final class CodeSources
{
    private static final List<Path> KERNEL_FILE_SYSTEMS = List.of(Path.of("/proc"), Path.of("/sys"), Path.of("/dev"));

    private CodeSources() {}

    static void refuseCodeFromOutsideTheImage(SettingValues values, Optional<Path> configFile)
    {
        Path hostRoot = values.value(Settings.HOST_ROOT).normalize();
        if (hostRoot.getNameCount() == 0) {
            return;
        }
        HostPaths host = new HostPaths(hostRoot);
        List<Path> forbidden = new ArrayList<>(KERNEL_FILE_SYSTEMS);
        forbidden.add(hostRoot);
        forbidden.add(host.toContainer(values.value(Settings.CONF_DIR)));
        forbidden.add(host.toContainer(values.value(Settings.BIN_DIR)));
        forbidden.add(values.value(Settings.SERVICE_ACCOUNT_DIR));
        configFile.map(file -> file.toAbsolutePath().getParent()).ifPresent(forbidden::add);
        for (Setting<Path> setting : List.of(Settings.PLUGINS_DIR, Settings.SOURCE_BIN_DIR)) {
            SettingValues.Sourced<Path> dir = values.get(setting).orElseThrow();
            Path real = leadsTo(dir.value());
            for (Path side : forbidden) {
                Path realSide = leadsTo(side);
                if (real.startsWith(realSide) || dir.value().normalize().startsWith(side.normalize())) {
                    String shown = real.equals(dir.value()) ? dir.value().toString() : dir.value() + " (really " + real + ")";
                    throw ConfigErrors.bad(dir.source(), setting.yamlKey().orElse(setting.toString()) + " " + shown + " is inside " + side
                            + ", outside the image: code the agent loads or copies into the bin dir (run as root for every pod) "
                            + "comes only from the image's own directories");
                }
            }
        }
    }

    /** The real path of the longest part of {@code path} that exists, with the rest appended as written. */
    static Path leadsTo(Path path)
    {
        Path absolute = path.toAbsolutePath().normalize();
        Path existing = absolute;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return absolute;
        }
        try {
            return existing.toRealPath().resolve(existing.relativize(absolute)).normalize();
        } catch (IOException e) {
            return absolute;
        }
    }
}
