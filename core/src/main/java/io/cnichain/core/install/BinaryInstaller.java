package io.cnichain.core.install;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.core.fs.FileMode;
import io.cnichain.core.host.HostPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Copies the chained plugin's binaries from the image into the host's CNI binary directory: every regular
 * file of the source directory, each written atomically with its mode (never writable by others; a rename never
 * hits "text file busy" the way an in-place copy over a running binary does), skipped when the host already has
 * the same bytes and mode. Beside them it keeps a record of what it copied ({@value #RECORD}: a hidden file, which no
 * runtime runs and no runtime loads as a configuration), so that uninstall can remove exactly those binaries even
 * where the image's source directory is gone, as when uninstall runs on a host.
 */
public final class BinaryInstaller
{
    /** The record of the binaries install copied: one line per binary, its SHA-256 and its name. */
    public static final String RECORD = ".cni-chain.installed";
    private static final String RECORD_HEADER = "# written by cni-chain install: the binaries it copied here (sha256, name); uninstall removes those that still match\n";
    private static final Logger log = LoggerFactory.getLogger(BinaryInstaller.class);
    /** No binary install copies is larger: a larger file at a recorded name is not the one it copied, and is not hashed. */
    private static final long MAX_BINARY_BYTES = 512L * 1024 * 1024;

    private final HostPaths host;
    private final Path sourceDir;
    private final Path binDir;
    private final AtomicFileWriter writer;
    private final List<String> leftBehind = new ArrayList<>();
    private final String ownBinary;
    /** Host binaries of a source's name that install left alone, said once. */
    private final Set<String> notOurs = new HashSet<>();
    /** The host's own binaries the last install left out, until {@link #recordCopies()} writes the record without them. */
    private Optional<Set<String>> unrecorded = Optional.empty();
    /** Binaries this process copied: ours, whether or not a record names them yet (a pass may end before its record). */
    private final Set<String> copied = new HashSet<>();
    private final BinDirFiles.SourceDigests digests = new BinDirFiles.SourceDigests();

    /**
     * @param host      the host mount
     * @param sourceDir the binaries to install, as the agent sees them
     * @param binDir    host path of the CNI binary directory
     * @param writer    the writer
     */
    public BinaryInstaller(HostPaths host, Path sourceDir, Path binDir, AtomicFileWriter writer)
    {
        this(host, sourceDir, binDir, writer, "linkerd-cni");
    }

    /**
     * @param ownBinary the plugin's own binary (the entry's {@code type}): replaced even where install did not put it,
     *                  as when cni-chain takes over from Linkerd's installer; any other host binary of a source's name
     *                  is the host's, and stays
     */
    public BinaryInstaller(HostPaths host, Path sourceDir, Path binDir, AtomicFileWriter writer, String ownBinary)
    {
        this.ownBinary = requireNonNull(ownBinary, "ownBinary is null");
        this.host = requireNonNull(host, "host is null");
        this.sourceDir = requireNonNull(sourceDir, "sourceDir is null");
        this.binDir = requireNonNull(binDir, "binDir is null");
        this.writer = requireNonNull(writer, "writer is null");
    }

    /**
     * Copies what differs; the record of the copies is written by {@link #recordCopies()}, after the files that name the
     * plugin are patched, since its digests need not hold the first patch back.
     *
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
        List<String> whys = new ArrayList<>();
        Set<String> recorded = recordedNames(target);
        recorded.addAll(copied);
        Set<String> skipped = new HashSet<>();
        for (Path source : sources()) {
            Path name = source.getFileName();
            Path destination = target.resolve(name);
            try {
                if (Files.exists(destination, LinkOption.NOFOLLOW_LINKS) && !recorded.contains(name.toString()) && !name.toString().equals(ownBinary)) {
                    // The host's own (a bridge the image also carries): neither replaced nor, later, removed.
                    skipped.add(name.toString());
                    if (notOurs.add(name.toString())) {
                        log.warn("{} is the host's, not installed by cni-chain: left as it is (the image's {} is not copied over it)",
                                binDir.resolve(name), name);
                    }
                    continue;
                }
                Set<PosixFilePermission> mode = installedMode(source);
                String why;
                if (!Files.isRegularFile(destination, LinkOption.NOFOLLOW_LINKS)) {
                    why = "was missing";
                }
                else if (!BinDirFiles.sameBytes(source, destination)) {
                    why = "differed from the image's";
                }
                else if (!Files.getPosixFilePermissions(destination, LinkOption.NOFOLLOW_LINKS).equals(mode)) {
                    why = "had another mode";
                }
                else {
                    continue;
                }
                writer.copy(destination, binDir.resolve(name), source, FileMode.exactly(mode));
                copied.add(name.toString());
                written.add(binDir.resolve(name));
                whys.add(name + " " + why);
            }
            catch (IOException e) {
                throw new CniChainException(ErrorCode.IO, source, "failed to copy to " + binDir + ": " + e.getMessage(), e);
            }
        }
        if (!written.isEmpty()) {
            log.info("Wrote {} CNI binaries to {}: {}", shortName, binDir, String.join(", ", whys));
        }
        unrecorded = Optional.of(skipped);
        return written;
    }

    /**
     * @return the names of the binaries {@link #uninstall()} may remove: the plugin's own, those the source holds (unless
     *         it is the bin dir itself), those the record of an earlier install holds
     */
    public Set<String> namesUninstallMayRemove()
    {
        Set<String> names = new java.util.TreeSet<>();
        uninstallSources().forEach(source -> names.add(source.getFileName().toString()));
        names.addAll(recordedNames(host.toContainer(binDir)));
        if (ownBinary != null) {
            names.add(ownBinary);
        }
        return names;
    }

    /** @return the names the record of an earlier install holds; none when it cannot be read (then only the plugin's own is ours) */
    private static Set<String> recordedNames(Path target)
    {
        try {
            return new HashSet<>(BinDirFiles.readRecord(target).keySet());
        }
        catch (IOException e) {
            return new HashSet<>();
        }
    }

    /**
     * Writes the record of the last {@link #install}'s binaries: what the source holds, but the host's own. Written
     * (atomically) only when it changes; nothing to do when no install is unrecorded, and an empty source leaves an
     * earlier record as it is.
     */
    public void recordCopies()
    {
        if (unrecorded.isEmpty()) {
            return;
        }
        List<Path> sources = sources();
        if (sources.isEmpty()) {
            unrecorded = Optional.empty();
            return;
        }
        StringBuilder record = new StringBuilder(RECORD_HEADER);
        for (Path source : sources) {
            if (unrecorded.get().contains(source.getFileName().toString())) {
                continue;
            }
            try {
                record.append(digests.of(source)).append("  ").append(source.getFileName()).append('\n');
            }
            catch (IOException e) {
                throw new CniChainException(ErrorCode.IO, source, "cannot be read: " + e.getMessage(), e);
            }
        }
        byte[] bytes = record.toString().getBytes(StandardCharsets.UTF_8);
        Path file = host.toContainer(binDir).resolve(RECORD);
        try {
            if (!BinDirFiles.holds(file, bytes)) {
                writer.write(file, binDir.resolve(RECORD), bytes, FileMode.exactly(PosixFilePermissions.fromString("rw-r--r--")),
                        Optional.empty());
            }
        }
        catch (IOException e) {
            throw new CniChainException(ErrorCode.IO, binDir.resolve(RECORD), "cannot be written: " + e.getMessage(), e);
        }
        unrecorded = Optional.empty();
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
     * still has the same bytes, and files of the record whose bytes still have the recorded SHA-256 (the source may be
     * gone, or be the bin dir itself, as when uninstall runs on a host with the defaults). A binary someone replaced is
     * theirs now and stays. The record goes last.
     *
     * @return the host paths removed
     */
    public List<Path> uninstall()
    {
        leftBehind.clear();
        Path target = host.toContainer(binDir);
        List<Path> removed = new ArrayList<>();
        Set<String> handled = new HashSet<>();
        Set<String> recorded = recordedNames(target);
        for (Path source : uninstallSources()) {
            Path destination = target.resolve(source.getFileName());
            if (!recorded.contains(source.getFileName().toString()) && !source.getFileName().toString().equals(ownBinary)) {
                // Never installed here: if such a file exists, it is the host's, whatever its bytes.
                handled.add(source.getFileName().toString());
                continue;
            }
            try {
                if (BinDirFiles.sameBytes(source, destination)) {
                    handled.add(source.getFileName().toString());
                    writer.delete(destination, binDir.resolve(source.getFileName()));
                    removed.add(binDir.resolve(source.getFileName()));
                }
                // Otherwise the record decides below: the source may be a newer image's, the copy the one install made.
            }
            catch (IOException e) {
                throw new CniChainException(ErrorCode.IO, binDir.resolve(source.getFileName()), "cannot be removed: " + e.getMessage(), e);
            }
        }
        Path record = target.resolve(RECORD);
        if (!Files.isRegularFile(record, LinkOption.NOFOLLOW_LINKS)) {
            return removed;
        }
        try {
            for (Map.Entry<String, String> entry : BinDirFiles.readRecord(target).entrySet()) {
                String name = entry.getKey();
                Path destination = target.resolve(name);
                if (!handled.add(name) || !Files.isRegularFile(destination, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                if (Files.size(destination) <= MAX_BINARY_BYTES && BinDirFiles.sha256(destination, LinkOption.NOFOLLOW_LINKS).equals(entry.getValue())) {
                    writer.delete(destination, binDir.resolve(name));
                    removed.add(binDir.resolve(name));
                }
                else {
                    leftBehind.add(binDir.resolve(name) + ": left in place: its bytes changed since install copied it (" + binDir.resolve(RECORD)
                            + " has its SHA-256), so it is someone else's now");
                }
            }
            writer.delete(record, binDir.resolve(RECORD));
        }
        catch (IOException e) {
            throw new CniChainException(ErrorCode.IO, binDir.resolve(RECORD), "cannot be read or removed: " + e.getMessage(), e);
        }
        return removed;
    }

    /**
     * Uninstall removes only what it can tell install copied: a binary with the same bytes as its source, or with the
     * SHA-256 the record holds. A recorded binary whose bytes changed stays, and this says so. Without a source (or
     * with the bin dir itself as the source) and without a record that names it, it cannot tell whether the plugin's
     * binary is ours or another installer's: the binary stays, and this says why and what to do.
     *
     * @param type the chained plugin's type, its binary's name
     * @return why the plugin's binary was left in place, when it was for that reason
     */
    public Optional<String> leftForWantOfSource(String type)
    {
        if (!leftBehind.isEmpty()) {
            return Optional.of(String.join("; ", leftBehind));
        }
        boolean same = sameDirectory();
        if (!same && !sources().isEmpty()) {
            return Optional.empty();
        }
        Path binary = host.toContainer(binDir).resolve(type);
        if (!Files.isRegularFile(binary, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        if (same) {
            return Optional.of(binDir.resolve(type) + ": left in place: the binary source " + sourceDir + " (CONTAINER_CNI_BIN_DIR) is the CNI bin dir "
                    + "itself, so no install copied it from there, and no record of an install (" + binDir.resolve(RECORD) + ") names it as cni-chain's; "
                    + "remove the file by hand if cni-chain put it there");
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

    /**
     * The source's binaries, for uninstall: none when the source is the bin dir itself (its files are the host's, each
     * the same as itself), so that only the record decides.
     */
    private List<Path> uninstallSources()
    {
        return sameDirectory() ? List.of() : sources();
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
