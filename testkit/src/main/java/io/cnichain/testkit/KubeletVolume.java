package io.cnichain.testkit;

import io.cnichain.core.fs.FileMode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A pod volume as the kubelet lays it out on the node, for tests that stand in for the kubelet: a ConfigMap, a Secret
 * or a projected volume (the service-account token, the CA, the namespace), and the emptyDir.
 *
 * <p>Laid out after the kubelet's atomic writer ({@code pkg/volume/util/atomic_writer.go} in kubernetes/kubernetes,
 * whose {@code Write} documents the steps, and the ConfigMap and projected volume documentation):
 * <ul>
 *   <li>the files are written in a new directory named after the time in UTC,
 *       {@code ..2026_12_03_07_00_00.<random digits>} (Go's {@code MkdirTemp} with the prefix
 *       {@code ..2006_01_02_15_04_05.}), mode 0755;</li>
 *   <li>each file with the volume's mode ({@code defaultMode}, 0644 unless the pod says otherwise);</li>
 *   <li>a link {@code ..data_tmp -> <that directory>} is made and renamed over {@code ..data} (the one atomic step);</li>
 *   <li>each file the pod sees is a link {@code <name> -> ..data/<name>}, made once, when the name first appears; names
 *       no longer in the payload lose their link;</li>
 *   <li>the previous timestamped directory is deleted, with its files.</li>
 * </ul>
 * An update (a ConfigMap edited, the token rotated) runs the same steps: the file's path never changes, what it leads
 * to does, and the old content is gone once the swap is done.
 *
 * <p>An emptyDir is a plain directory of mode 0777 ({@code pkg/volume/emptydir}: {@code perm os.FileMode = 0777}).
 *
 * <p>Not laid out, and so not tested by what uses this:
 * <ul>
 *   <li>the mount itself: in the kubelet's world the volume is bind-mounted, read-only for ConfigMaps, Secrets and
 *       projected volumes, into the container's own mount namespace (the image suite's podman does mount it; the
 *       launcher tests read it in place);</li>
 *   <li>the tmpfs a Secret or projected volume lives on, ownership, {@code fsGroup} and SELinux relabelling;</li>
 *   <li>{@code subPath} mounts (a file bind-mounted alone, never updated) and {@code items} with paths in
 *       subdirectories (the link is then to the first directory, {@code dir -> ..data/dir});</li>
 *   <li>when an update arrives: the kubelet's sync period and its cache add up to about a minute; here it is at once;</li>
 *   <li>the token's content (a signed JWT with an audience and an expiry, refreshed at 80% of its lifetime): here any
 *       text the test chooses.</li>
 * </ul>
 */
public final class KubeletVolume
{
    /** The mode of a ConfigMap's or projected volume's files when the pod sets no {@code defaultMode} (420). */
    public static final Set<PosixFilePermission> DEFAULT_MODE = PosixFilePermissions.fromString("rw-r--r--");

    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("'..'yyyy_MM_dd_HH_mm_ss'.'");

    private final Path directory;
    private final Set<PosixFilePermission> mode;

    private KubeletVolume(Path directory, Set<PosixFilePermission> mode)
    {
        this.directory = directory;
        this.mode = Set.copyOf(mode);
    }

    /**
     * Projects a volume with text files of the default mode; a volume already there is updated.
     *
     * @param directory the volume's directory (made when missing)
     * @param files     the files, by name
     */
    public static KubeletVolume project(Path directory, Map<String, String> files)
    {
        return project(directory, files, DEFAULT_MODE);
    }

    /**
     * @param mode the mode of each file ({@code defaultMode})
     */
    public static KubeletVolume project(Path directory, Map<String, String> files, Set<PosixFilePermission> mode)
    {
        try {
            Files.createDirectories(directory);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        KubeletVolume volume = new KubeletVolume(directory, mode);
        volume.update(files);
        return volume;
    }

    /**
     * A ConfigMap volume holding one file, such as the agent's {@code cni-chain.yaml}.
     *
     * @param directory the volume's directory (made when missing; one volume per directory)
     * @return the file as the pod names it (a link through {@code ..data})
     */
    public static Path configMapFile(Path directory, String name, String content)
    {
        return project(directory, Map.of(name, content)).file(name);
    }

    /** @return the volume already projected in {@code directory}, to update it */
    public static KubeletVolume at(Path directory)
    {
        if (!Files.isSymbolicLink(directory.resolve("..data"))) {
            throw new IllegalStateException(directory + " holds no volume the kubelet projected (no ..data link)");
        }
        return new KubeletVolume(directory, DEFAULT_MODE);
    }

    /**
     * A projected service-account volume as the pod's spec in this project asks for it: {@code token}, {@code ca.crt}
     * and {@code namespace}.
     */
    public static KubeletVolume serviceAccount(Path directory, String token, String caCertificate, String namespace)
    {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("token", token);
        files.put("ca.crt", caCertificate);
        files.put("namespace", namespace);
        return project(directory, files);
    }

    /** An emptyDir: a directory anyone may write in. */
    public static Path emptyDir(Path directory)
    {
        try {
            Files.createDirectories(directory);
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
            return directory;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The kubelet's update: a new timestamped directory, {@code ..data} swapped by a rename, the old directory deleted.
     *
     * @param files the whole new payload, by name (a name left out loses its file)
     */
    public KubeletVolume update(Map<String, String> files)
    {
        Map<String, byte[]> next = new LinkedHashMap<>();
        files.forEach((name, text) -> next.put(checked(name), text.getBytes(StandardCharsets.UTF_8)));
        try {
            Path data = directory.resolve("..data");
            Path old = Files.isSymbolicLink(data) ? directory.resolve(Files.readSymbolicLink(data)) : null;
            Set<String> gone = new TreeSet<>(old == null ? Set.of() : names(old));
            gone.removeAll(next.keySet());
            Path fresh = newTimestampDirectory();
            for (Map.Entry<String, byte[]> file : next.entrySet()) {
                Path written = Files.write(fresh.resolve(file.getKey()), file.getValue());
                Files.setPosixFilePermissions(written, mode);
            }
            Path temporary = directory.resolve("..data_tmp");
            Files.createSymbolicLink(temporary, fresh.getFileName());
            Files.move(temporary, data, StandardCopyOption.ATOMIC_MOVE);
            for (String name : next.keySet()) {
                Path visible = directory.resolve(name);
                try {
                    Files.createSymbolicLink(visible, Path.of("..data", name));
                }
                catch (FileAlreadyExistsException e) {
                    // Made by an earlier write: it leads through ..data and needs no change. Anything else there was
                    // put by the test, never by the kubelet.
                    if (!Files.isSymbolicLink(visible) || !Files.readSymbolicLink(visible).equals(Path.of("..data", name))) {
                        throw new IllegalStateException(visible + " is not the kubelet's link to ..data/" + name + "; a test replaced it");
                    }
                }
            }
            for (String name : gone) {
                Files.deleteIfExists(directory.resolve(name));
            }
            if (old != null) {
                deleteTree(old);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /**
     * An update of one file, the others as they are (a token rotated, one key of a ConfigMap edited).
     */
    public KubeletVolume update(String name, String text)
    {
        Map<String, String> files = new LinkedHashMap<>();
        try {
            for (String existing : names(dataDirectory())) {
                // The one replaced is not read: a test may have made it something no read returns from (a FIFO).
                if (!existing.equals(name)) {
                    files.put(existing, Files.readString(dataDirectory().resolve(existing)));
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        files.put(checked(name), text);
        return update(files);
    }

    /** @return the volume's directory, as mounted into the pod */
    public Path directory()
    {
        return directory;
    }

    /** @return the path the pod names a file by: the link {@code <volume>/<name>} */
    public Path file(String name)
    {
        return directory.resolve(checked(name));
    }

    /** @return the timestamped directory {@code ..data} leads to now */
    public Path dataDirectory()
    {
        try {
            return directory.resolve(Files.readSymbolicLink(directory.resolve("..data")));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path newTimestampDirectory()
            throws IOException
    {
        Path made = Files.createTempDirectory(directory, ZonedDateTime.now(ZoneOffset.UTC).format(TIMESTAMP));
        Files.setPosixFilePermissions(made, PosixFilePermissions.fromString("rwxr-xr-x"));
        return made;
    }

    /** The atomic writer refuses names that start with {@code ..} (reserved for its own) and paths. */
    private static String checked(String name)
    {
        if (name.isEmpty() || name.startsWith("..") || name.contains("/")) {
            throw new IllegalArgumentException("not a name the kubelet projects here: " + name);
        }
        return name;
    }

    private static Set<String> names(Path dataDirectory)
            throws IOException
    {
        Set<String> names = new TreeSet<>();
        try (var entries = Files.list(dataDirectory)) {
            entries.forEach(entry -> names.add(entry.getFileName().toString()));
        }
        return names;
    }

    private static void deleteTree(Path root)
            throws IOException
    {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (var walk = Files.walk(root)) {
            for (Path path : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
