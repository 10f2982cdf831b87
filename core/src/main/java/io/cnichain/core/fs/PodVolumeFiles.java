package io.cnichain.core.fs;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.fs.linux.FileSystemCalls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Reads the agent's own files, the ones a pod volume gives it: its configuration (a ConfigMap), the service-account
 * token and CA (a projected volume), a Secret. The kubelet writes such a volume with its atomic writer: every file is
 * a link {@code name -> ..data/name}, and {@code ..data} a link to a timestamped directory that an update replaces
 * (new directory, {@code ..data} renamed over, old directory deleted). So these files are opened following links,
 * but only links that stay inside the file's own directory (the volume): a link that leaves it is refused, naming
 * the file and where it leads.
 *
 * <p>The file reached is then read as every file is ({@link FileSystemCalls#readRegularFile}): without blocking (a
 * FIFO is refused, not waited on) and never more than a limit. An update that deletes the directory between the
 * lookup and the read is met by looking again.
 *
 * <p>The host's CNI files keep their own, stricter rules ({@link SymlinkResolver}, {@link BoundedFileReader}).
 */
public final class PodVolumeFiles
{
    /** Linux's own limit on links in one lookup (MAXSYMLINKS). */
    static final int MAX_LINKS = 40;
    /** Lookups when an update deletes what the previous one found. */
    private static final int ATTEMPTS = 3;

    private PodVolumeFiles() {}

    /**
     * @param file  the file, as named in the configuration or on the command line
     * @param limit the most bytes to read
     * @return its bytes
     * @throws CniChainException {@link ErrorCode#IO} when it is missing, unreadable, not a regular file or leads out of
     *                           its directory; {@link ErrorCode#TOO_LARGE} over the limit
     */
    public static byte[] read(Path file, long limit)
    {
        for (int attempt = 1; ; attempt++) {
            Path target = resolve(file);
            try {
                byte[] bytes = FileSystemCalls.get().readRegularFile(target, limit);
                if (bytes.length > limit) {
                    throw new CniChainException(ErrorCode.TOO_LARGE, file, "is larger than the " + limit + "-byte limit; not read");
                }
                return bytes;
            }
            catch (NoSuchFileException e) {
                if (attempt == ATTEMPTS || target.equals(file.toAbsolutePath().normalize())) {
                    throw new CniChainException(ErrorCode.IO, file, "does not exist" + via(file, target));
                }
            }
            catch (FileSystemCalls.NotRegularFile e) {
                throw new CniChainException(ErrorCode.IO, file, "is " + e.kind() + ", not a regular file" + via(file, target));
            }
            catch (java.nio.file.AccessDeniedException e) {
                throw new CniChainException(ErrorCode.IO, file, "cannot be read: permission denied" + via(file, target));
            }
            catch (IOException e) {
                throw new CniChainException(ErrorCode.IO, file, "cannot be read: " + e.getMessage(), e);
            }
        }
    }

    /**
     * Follows the links of {@code file}, component by component, from its directory on; each must stay inside it.
     *
     * @return the path with no link left below the directory
     */
    static Path resolve(Path file)
    {
        Path absolute = file.toAbsolutePath().normalize();
        Path volume = absolute.getParent();
        if (volume == null) {
            throw new CniChainException(ErrorCode.IO, file, "is not a file");
        }
        Deque<Path> left = new ArrayDeque<>();
        left.add(absolute.getFileName());
        Path current = volume;
        int links = 0;
        while (!left.isEmpty()) {
            Path name = left.poll();
            if (name.toString().equals(".")) {
                continue;
            }
            if (name.toString().equals("..")) {
                current = current.getParent();
                if (current == null || !current.startsWith(volume)) {
                    throw outside(file, volume);
                }
                continue;
            }
            Path next = current.resolve(name);
            if (!Files.isSymbolicLink(next)) {
                current = next;
                continue;
            }
            if (++links > MAX_LINKS) {
                throw new CniChainException(ErrorCode.IO, file, "has more than " + MAX_LINKS + " links on the way (a loop?); not read");
            }
            Path target;
            try {
                target = Files.readSymbolicLink(next);
            }
            catch (IOException e) {
                // Replaced between the two calls: look at it again.
                left.push(name);
                continue;
            }
            if (target.isAbsolute()) {
                Path normalized = target.normalize();
                if (!normalized.startsWith(volume)) {
                    throw new CniChainException(ErrorCode.IO, file, "leads through " + next + " to " + target + ", outside " + volume
                            + "; only links that stay in the file's own directory (as the kubelet writes a volume) are followed");
                }
                current = volume;
                target = volume.relativize(normalized);
            }
            for (int i = target.getNameCount() - 1; i >= 0; i--) {
                left.push(target.getName(i));
            }
        }
        return current;
    }

    private static CniChainException outside(Path file, Path volume)
    {
        return new CniChainException(ErrorCode.IO, file, "leads outside " + volume
                + "; only links that stay in the file's own directory (as the kubelet writes a volume) are followed");
    }

    private static String via(Path file, Path target)
    {
        return target.equals(file.toAbsolutePath().normalize()) ? "" : " (reached through links at " + target + ")";
    }
}
