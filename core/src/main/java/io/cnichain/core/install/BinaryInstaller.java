package io.cnichain.core.install;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.core.host.HostPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Copies the chained plugin's binaries from the image into the host's CNI binary directory: every regular
 * file of the source directory, each written atomically with its mode (never writable by others; a rename never
 * hits "text file busy" the way an in-place copy over a running binary does), skipped when the host already has
 * the same bytes and mode.
 */
public final class BinaryInstaller
{
    private static final Logger log = LoggerFactory.getLogger(BinaryInstaller.class);

    private final HostPaths host;
    private final Path sourceDir;
    private final Path binDir;
    private final AtomicFileWriter writer;

    /**
     * @param host      the host mount
     * @param sourceDir the binaries to install, as the agent sees them
     * @param binDir    host path of the CNI binary directory
     * @param writer    the writer
     */
    public BinaryInstaller(HostPaths host, Path sourceDir, Path binDir, AtomicFileWriter writer)
    {
        this.host = requireNonNull(host, "host is null");
        this.sourceDir = requireNonNull(sourceDir, "sourceDir is null");
        this.binDir = requireNonNull(binDir, "binDir is null");
        this.writer = requireNonNull(writer, "writer is null");
    }

    /**
     * @param shortName the plugin's short name for the log line ("linkerd")
     * @return the host paths written (empty when everything was already in place)
     */
    public List<Path> install(String shortName)
    {
        Path target = host.toContainer(binDir);
        if (sameDirectory()) {
            log.info("Binary source {} is the CNI bin dir itself; nothing to copy", sourceDir);
            return List.of();
        }
        if (!Files.isDirectory(target)) {
            throw new CniChainException(ErrorCode.IO, binDir, "the CNI bin dir does not exist on the host");
        }
        if (!Files.isWritable(target)) {
            throw new CniChainException(ErrorCode.IO, binDir, "is non-writeable, failure");
        }
        writer.removeStaleTemps(target);
        List<Path> written = new ArrayList<>();
        for (Path source : sources()) {
            Path name = source.getFileName();
            Path destination = target.resolve(name);
            try {
                byte[] bytes = Files.readAllBytes(source);
                Set<PosixFilePermission> mode = installedMode(source);
                if (Files.isRegularFile(destination) && Arrays.equals(bytes, Files.readAllBytes(destination))
                        && Files.getPosixFilePermissions(destination).equals(mode)) {
                    continue;
                }
                writer.write(destination, binDir.resolve(name), bytes, AtomicFileWriter.FileMode.exactly(mode), Optional.empty());
                written.add(binDir.resolve(name));
            }
            catch (IOException e) {
                throw new CniChainException(ErrorCode.IO, source, "failed to copy to " + binDir + ": " + e.getMessage(), e);
            }
        }
        if (!written.isEmpty()) {
            log.info("Wrote {} CNI binaries to {}", shortName, binDir);
        }
        return written;
    }

    /**
     * The source's mode, less write for others: every runtime on the node runs the binary as root for every pod, so
     * one anyone could rewrite would hand root to anyone. The bytes are the image's, only their write bit for others
     * is a packaging mistake; dropping it (rather than refusing the binary) keeps the node working and safe.
     */
    private static Set<PosixFilePermission> installedMode(Path source)
            throws IOException
    {
        Set<PosixFilePermission> mode = EnumSet.noneOf(PosixFilePermission.class);
        mode.addAll(Files.getPosixFilePermissions(source));
        if (mode.remove(PosixFilePermission.OTHERS_WRITE)) {
            log.warn("{} is writable by anyone; installing it without that permission", source);
        }
        return mode;
    }

    /**
     * Removes the binaries this installer put in place: files of the source directory whose copy on the host
     * still has the same bytes. A binary someone replaced is theirs now and stays.
     *
     * @return the host paths removed
     */
    public List<Path> uninstall()
    {
        if (sameDirectory()) {
            return List.of();
        }
        Path target = host.toContainer(binDir);
        List<Path> removed = new ArrayList<>();
        for (Path source : sources()) {
            Path destination = target.resolve(source.getFileName());
            try {
                if (Files.isRegularFile(destination) && Arrays.equals(Files.readAllBytes(source), Files.readAllBytes(destination))) {
                    writer.delete(destination, binDir.resolve(source.getFileName()));
                    removed.add(binDir.resolve(source.getFileName()));
                }
            }
            catch (IOException e) {
                throw new CniChainException(ErrorCode.IO, binDir.resolve(source.getFileName()), "cannot be removed: " + e.getMessage(), e);
            }
        }
        return removed;
    }

    /**
     * Uninstall removes only what it can tell install copied: a binary with the same bytes as its source. Without a
     * source (the image's directory is missing or empty, as when uninstall runs on a host) it cannot tell whether the
     * plugin's binary is ours or another installer's: the binary stays, and this says why and what to do.
     *
     * @param type the chained plugin's type, its binary's name
     * @return why the plugin's binary was left in place, when it was for that reason
     */
    public Optional<String> leftForWantOfSource(String type)
    {
        if (sameDirectory() || !sources().isEmpty()) {
            return Optional.empty();
        }
        Path binary = host.toContainer(binDir).resolve(type);
        if (!Files.isRegularFile(binary, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        return Optional.of(binDir.resolve(type) + ": left in place: uninstall removes a binary only when it has the bytes of the one install "
                + "copied from " + sourceDir + " (CONTAINER_CNI_BIN_DIR), which " + (Files.isDirectory(sourceDir) ? "is empty" : "does not exist")
                + "; run uninstall with CONTAINER_CNI_BIN_DIR naming the directory install copied from, or remove the file by hand if install put it there");
    }

    /**
     * @return the names of the binaries in the source directory
     */
    public List<String> sourceNames()
    {
        List<String> names = new ArrayList<>();
        for (Path source : sources()) {
            names.add(source.getFileName().toString());
        }
        return names;
    }

    private List<Path> sources()
    {
        if (!Files.isDirectory(sourceDir)) {
            return List.of();
        }
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(sourceDir)) {
            for (Path path : stream) {
                if (Files.isRegularFile(path) && !path.getFileName().toString().startsWith(".")) {
                    files.add(path);
                }
            }
        }
        catch (IOException e) {
            throw new CniChainException(ErrorCode.IO, sourceDir, "cannot be listed: " + e.getMessage(), e);
        }
        files.sort(null);
        return files;
    }

    private boolean sameDirectory()
    {
        try {
            Path target = host.toContainer(binDir);
            return Files.isDirectory(sourceDir) && Files.isDirectory(target) && Files.isSameFile(sourceDir, target);
        }
        catch (IOException e) {
            return false;
        }
    }
}
