package io.cnichain.distribution.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The host's network objects the tests make, and removing them again: namespaces, links, CNI caches, mounts. */
public final class Network
{
    /** Where libcni caches each attachment's result (podman uses the default). */
    static final Path CNI_RESULT_CACHE = Path.of("/var/lib/cni/results");

    private static final Pattern INET = Pattern.compile("inet (\\d+\\.\\d+\\.\\d+\\.\\d+)/(\\d+)");

    private Network() {}

    public static Path addNamespace(String name)
    {
        Commands.ok("ip", "netns", "add", name);
        return Path.of("/var/run/netns", name);
    }

    public static void deleteNamespace(String name)
    {
        if (Files.exists(Path.of("/var/run/netns", name))) {
            Commands.ok("ip", "netns", "delete", name);
        }
    }

    public static boolean linkExists(String name)
    {
        return Commands.run("ip", "link", "show", "dev", name).code() == 0;
    }

    public static void deleteLink(String name)
    {
        if (linkExists(name)) {
            Commands.ok("ip", "link", "delete", "dev", name);
        }
    }

    /** The IPv4 address and prefix of an interface, as {@code ip -4 -o addr} prints it (also inside a container). */
    public static Optional<String> ipv4(String ipOutput)
    {
        Matcher matcher = INET.matcher(ipOutput);
        return matcher.find() ? Optional.of(matcher.group(1) + "/" + matcher.group(2)) : Optional.empty();
    }

    public static void deleteNamespaces(String prefix)
    {
        for (String line : Commands.ok("ip", "netns", "list").out().lines().toList()) {
            String name = line.split("\\s+")[0];
            if (name.startsWith(prefix)) {
                deleteNamespace(name);
            }
        }
    }

    public static void deleteLinks(String prefix)
    {
        for (String line : Commands.ok("ip", "-o", "link", "show").out().lines().toList()) {
            // "12: ccab12301: <BROADCAST,...>" or "13: veth1@if2: ..."
            String[] fields = line.split(":\\s+", 3);
            if (fields.length > 1) {
                String name = fields[1].split("@")[0];
                if (name.startsWith(prefix)) {
                    deleteLink(name);
                }
            }
        }
    }

    public static void deleteCachedResults(String networkPrefix)
    {
        if (!Files.isDirectory(CNI_RESULT_CACHE)) {
            return;
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(CNI_RESULT_CACHE, networkPrefix + "*")) {
            for (Path file : stream) {
                Files.deleteIfExists(file);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Unmounts whatever podman or runc left mounted below a directory, deepest first. */
    public static void unmountUnder(Path dir)
    {
        List<String> mountPoints = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String mountPoint = unescape(line.split(" ")[4]);
                if (Path.of(mountPoint).startsWith(dir)) {
                    mountPoints.add(mountPoint);
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        mountPoints.sort(Comparator.comparingInt(String::length).reversed());
        for (String mountPoint : mountPoints) {
            Commands.run("umount", "-l", mountPoint);
        }
    }

    private static String unescape(String field)
    {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < field.length(); i++) {
            if (field.charAt(i) == '\\' && i + 3 < field.length()) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            }
            else {
                out.append(field.charAt(i));
            }
        }
        return out.toString();
    }
}
