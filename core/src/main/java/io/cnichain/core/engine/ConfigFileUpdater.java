package io.cnichain.core.engine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.discovery.CniConfigParser;
import io.cnichain.core.discovery.ConfigNames;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.core.fs.FileMode;
import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.core.host.HostPaths;
import io.cnichain.core.patch.ConfigFilePatcher;
import io.cnichain.core.patch.PatchPlan;
import io.cnichain.spi.CniConfig;
import io.cnichain.spi.ConfigTarget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.LinkOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * Reads one configuration file, plans the change with the {@link ConfigFilePatcher} and carries it out with
 * the {@link AtomicFileWriter}. The plan is made from the bytes just read, and the write is abandoned if the
 * file changed meanwhile, so we never write from anything but the file as it is. The file's path was resolved
 * link-free from the host root: it is written only where that path still leads without following a link.
 */
final class ConfigFileUpdater
{
    private static final Logger log = LoggerFactory.getLogger(ConfigFileUpdater.class);
    private static final FileMode NEW_CONFIG_MODE = FileMode.keepExistingOr(PosixFilePermissions.fromString("rw-r--r--"));

    private final HostPaths host;
    private final BoundedFileReader reader;
    private final AtomicFileWriter writer;

    ConfigFileUpdater(HostPaths host, BoundedFileReader reader, AtomicFileWriter writer)
    {
        this.host = requireNonNull(host, "host is null");
        this.reader = requireNonNull(reader, "reader is null");
        this.writer = requireNonNull(writer, "writer is null");
    }

    /**
     * @param snapshot the pass's look at the node: a file it already read and parsed is patched from those bytes, not
     *                 read and parsed again
     * @param putBack  why our entry is written again, when the caller knows it had been there: said instead of "Created"
     */
    FileOutcome install(ConfigTarget target, ObjectNode entry, Selection selection, NodeSnapshot snapshot, Optional<String> putBack)
    {
        Path file = target.resolvedFile();
        if (!target.path().equals(file)) {
            // Said by the caller, once: the loop's passes come here again and again.
            log.debug("File {} resolves to {}", target.path(), file);
        }
        String loadName = loadName(target.path(), file);
        String targetName = file.getFileName().toString();
        // A single-plugin file is converted: a new .conflist, then the original deleted, with no check of the original's
        // bytes just before; it is read afresh, so the time in which a rewrite of it could be lost stays as short as it was.
        Optional<NodeSnapshot.Loaded> known = snapshot.loadedAlready(loadName, file);
        if (known.isPresent() && (known.get().bytes().isEmpty() || known.get().config().isEmpty()
                || known.get().config().get().summary().format() == CniConfig.Format.SINGLE)) {
            known = Optional.empty();
        }
        byte[] bytes;
        CniConfigParser.LoadedConfig loaded;
        if (known.isPresent()) {
            bytes = known.get().bytes().orElseThrow();
            loaded = known.get().config().orElseThrow();
        }
        else {
            try {
                bytes = reader.read(host.toContainer(file), file);
            }
            catch (CniChainException e) {
                return new FileOutcome(target.path(), e.code() == ErrorCode.IO ? FileOutcome.Result.WAITING : FileOutcome.Result.FAILED, e.getMessage(),
                        List.of());
            }
            try {
                loaded = CniConfigParser.parse(loadName, bytes);
            }
            catch (CniConfigParser.InvalidConfigException e) {
                return new FileOutcome(target.path(), FileOutcome.Result.WAITING, file + ": " + e.getMessage() + "; not patched", List.of());
            }
        }
        Optional<String> incomplete;
        try {
            incomplete = selection.incompleteReason(target, loaded.summary());
        }
        catch (RuntimeException e) {
            // A failing adapter (see GuardedAdapter) stops this file, not the pass.
            return new FileOutcome(target.path(), FileOutcome.Result.FAILED, "adapter " + selection.chosen().name() + ": " + e.getMessage() + "; not patched",
                    List.of());
        }
        if (incomplete.isPresent()) {
            return new FileOutcome(target.path(), FileOutcome.Result.WAITING, file + ": not complete yet: " + incomplete.get(), List.of());
        }
        PatchPlan plan = ConfigFilePatcher.planInstall(loaded, loadName, targetName, entry);
        return carryOut(target.path(), file, bytes, plan, entry.get("type").asText(), true, putBack);
    }

    FileOutcome uninstall(Path path, Path target, String type)
    {
        return uninstall(path, target, type, Optional.empty());
    }

    /** @param ourName our entry's {@code name}, if it has one: a plugin of our type without it is the primary's */
    FileOutcome uninstall(Path path, Path target, String type, Optional<String> ourName)
    {
        String loadName = loadName(path, target);
        byte[] bytes;
        try {
            bytes = reader.read(host.toContainer(target), target);
        }
        catch (CniChainException e) {
            // Too large or unreadable: the runtime may still load it. It matters only if it may run our plugin.
            if (!Mentions.mayMention(host.toContainer(target), type)) {
                return new FileOutcome(path, FileOutcome.Result.SKIPPED, e.getMessage() + "; it does not mention " + type + ", so nothing of ours runs from it",
                        List.of());
            }
            return new FileOutcome(path, FileOutcome.Result.FAILED, e.getMessage() + "; it may run " + type, List.of());
        }
        PatchPlan plan = ConfigFilePatcher.planUninstall(loadName, target.getFileName().toString(), bytes, type, ourName);
        if (!(plan instanceof PatchPlan.Unchanged) && !(plan instanceof PatchPlan.Refused)) {
            log.info("Removing {} config from {}", type, path.equals(target) ? path : path + " (" + target + ")");
        }
        return carryOut(path, target, bytes, plan, type, false, Optional.empty());
    }

    private FileOutcome beyondOurLimit(Path path, Path target, int length)
    {
        return new FileOutcome(path, FileOutcome.Result.FAILED, target + ": " + beyondOurLimit(length, reader.limit()).orElseThrow() + "; left untouched",
                List.of());
    }

    /** A file we could not read back, to see our entry or to remove it, is never written ({@code detect} says so too). */
    static Optional<String> beyondOurLimit(int length, long limit)
    {
        return length > limit ? Optional.of("with our entry it would be " + length + " bytes, more than the " + limit + " (maxConfigBytes) we read back")
                : Optional.empty();
    }

    private FileOutcome carryOut(Path path, Path target, byte[] original, PatchPlan plan, String type, boolean installing, Optional<String> putBack)
    {
        try {
            if (plan instanceof PatchPlan.Unchanged unchanged) {
                log.debug("{} {}", target, unchanged.reason());
                return new FileOutcome(path, FileOutcome.Result.UNCHANGED, target + " " + unchanged.reason(), List.of());
            }
            if (plan instanceof PatchPlan.Refused refused) {
                // On uninstall a file the runtime does not load is no one's concern: nothing in it runs, whatever it names.
                // But our own limits (the count of JSON values, the depth) say nothing of what libcni loads: a file
                // refused for them that names our plugin may run it, and its binary must stay.
                if (!installing && refused.cause() == PatchPlan.Refused.Cause.BEYOND_OUR_LIMITS && Mentions.mayMention(host.toContainer(target), type)) {
                    return new FileOutcome(path, FileOutcome.Result.FAILED, target + ": " + refused.reason() + "; it names " + type
                            + " and the runtime may load it, so it is left untouched and the binary stays", List.of());
                }
                boolean failed = installing || refused.cause() == PatchPlan.Refused.Cause.CANNOT_EDIT;
                return new FileOutcome(path, failed ? FileOutcome.Result.FAILED : FileOutcome.Result.SKIPPED,
                        target + ": " + refused.reason() + "; left untouched"
                                + (!installing && !failed ? " (the runtime does not load it either)" : ""), List.of());
            }
            if (plan instanceof PatchPlan.Rewrite edited) {
                // The original's bytes outside the edit, as they were (a byte that is not UTF-8 included).
                PatchPlan.Rewrite rewrite = new PatchPlan.Rewrite(io.cnichain.core.patch.OriginalBytes.keep(original, edited.content()));
                if (rewrite.content().length > reader.limit()) {
                    return beyondOurLimit(path, target, rewrite.content().length);
                }
                writer.writeBelow(host.root(), host.toContainer(target), target, rewrite.content(), NEW_CONFIG_MODE, Optional.of(original));
                if (installing && putBack.isPresent()) {
                    log.info("Put our entry back in {}: {}", target, putBack.get());
                }
                else if (installing) {
                    log.info("Created CNI config {}", target);
                }
                return new FileOutcome(path, installing ? FileOutcome.Result.PATCHED : FileOutcome.Result.REMOVED,
                        installing ? "Created CNI config " + target : "removed our entry from " + target,
                        List.of(FileOutcome.Written.of(target, rewrite.content())));
            }
            PatchPlan.Replace replace = (PatchPlan.Replace) plan;
            Path replacement = target.resolveSibling(replace.newName());
            Optional<String> between = installing ? sortsBetween(target, replacement) : Optional.empty();
            if (between.isPresent()) {
                // The list's name sorts later than the .conf's: the runtime would load that file instead, another network.
                return new FileOutcome(path, FileOutcome.Result.FAILED, "converting " + target + " to " + replacement.getFileName() + " would hand the "
                        + "runtime " + target.resolveSibling(between.get()) + ", which sorts between them, so neither file is touched (rename or remove it)",
                        List.of());
            }
            if (replace.content().length > reader.limit()) {
                return beyondOurLimit(path, target, replace.content().length);
            }
            if (installing) {
                log.info("Renaming {} extension to .conflist", target);
            }
            else {
                log.info("Restoring {} from {}", replacement, target);
            }
            // The replacement takes the original's mode and owner; it is complete on disk before the original goes, so the
            // runtime never sees a moment without a configuration.
            PosixFileAttributes attributes = Files.readAttributes(host.toContainer(target), PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            Optional<byte[]> ours = ownEarlierConversion(host.toContainer(replacement), target.getFileName().toString());
            if (ours.isEmpty() && Files.exists(host.toContainer(replacement), LinkOption.NOFOLLOW_LINKS)) {
                // Another network's file, or the operator's: never ours to replace, nor (on uninstall) to delete.
                return new FileOutcome(path, FileOutcome.Result.FAILED, replacement + " already exists and cni-chain did not write it; "
                        + (installing ? "converting " + target + " would replace it" : "restoring " + replacement + " would replace it")
                        + ", so neither file is touched (rename or remove one of them)", List.of());
            }
            if (ours.isPresent()) {
                // Ours from a conversion that stopped before the original was deleted: finish it.
                writer.writeBelow(host.root(), host.toContainer(replacement), replacement, replace.content(), FileMode.sameAs(attributes), ours);
            }
            else {
                writer.createBelow(host.root(), host.toContainer(replacement), replacement, replace.content(), FileMode.sameAs(attributes));
            }
            List<FileOutcome.Written> written = List.of(FileOutcome.Written.of(replacement, replace.content()));
            try {
                writer.deleteBelow(host.root(), host.toContainer(target), target);
            }
            catch (CniChainException e) {
                // The original cannot go (immutable): the runtime still loads it, and our new file waits beside it. Say
                // that file is ours, so that its echo is not taken for a change, which would start this again at once.
                return new FileOutcome(path, FileOutcome.Result.FAILED, e.getMessage(), written, e.code() == ErrorCode.IO);
            }
            if (installing) {
                log.info("Removing unwanted .conf file {}", target);
                log.info("Created CNI config {}", replacement);
            }
            return new FileOutcome(path, FileOutcome.Result.CONVERTED,
                    installing ? "converted " + target + " to " + replacement : "restored " + replacement + " from " + target, written);
        }
        catch (CniChainException e) {
            if (e.code() == ErrorCode.CONCURRENT_CHANGE) {
                return new FileOutcome(path, FileOutcome.Result.WAITING, e.getMessage(), List.of());
            }
            // The writer's own failure (no space, read-only, permission denied, immutable) may clear without any change
            // to the file: worth trying again.
            return new FileOutcome(path, FileOutcome.Result.FAILED, e.getMessage(), List.of(), e.code() == ErrorCode.IO);
        }
        catch (IOException e) {
            return new FileOutcome(path, FileOutcome.Result.FAILED, target + ": cannot be read: " + e.getMessage(), List.of());
        }
    }

    /**
     * @return the bytes of {@code candidate} when it is a list we converted from {@code originalName} (it names it in
     *         {@link io.cnichain.core.patch.Patcher#CONVERTED_FROM}), and empty when it is absent or anyone else's
     */
    private Optional<byte[]> ownEarlierConversion(Path candidate, String originalName)
    {
        if (!originalName.endsWith(".conf") && !originalName.endsWith(".json")) {
            return Optional.empty();
        }
        try {
            byte[] bytes = reader.read(candidate, candidate);
            CniConfigParser.LoadedConfig loaded = CniConfigParser.parse(candidate.getFileName().toString(), bytes);
            Optional<io.cnichain.core.json.JsonValue> from = loaded.root().get(io.cnichain.core.patch.Patcher.CONVERTED_FROM);
            if (from.isPresent() && from.get() instanceof io.cnichain.core.json.JsonValue.JString name && name.value().equals(originalName)) {
                return Optional.of(bytes);
            }
            return Optional.empty();
        }
        catch (CniChainException | CniConfigParser.InvalidConfigException e) {
            return Optional.empty();
        }
    }

    /** @return the first name the runtime may load that sorts after {@code from} and before {@code to}, in their directory, by bytes as libcni sorts */
    private Optional<String> sortsBetween(Path from, Path to)
            throws IOException
    {
        byte[] low = from.getFileName().toString().getBytes(StandardCharsets.UTF_8);
        byte[] high = to.getFileName().toString().getBytes(StandardCharsets.UTF_8);
        try (Stream<Path> entries = Files.list(host.toContainer(from).getParent())) {
            return entries.filter(entry -> !Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS))
                    .map(entry -> entry.getFileName().toString())
                    .filter(ConfigNames::isRuntimeLoadable)
                    .filter(name -> Arrays.compareUnsigned(name.getBytes(StandardCharsets.UTF_8), low) > 0
                            && Arrays.compareUnsigned(name.getBytes(StandardCharsets.UTF_8), high) < 0)
                    .min(Comparator.comparing(name -> name.getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned));
        }
    }

    /** The runtime loads a link under the link's name, which decides the format; anything else under its own. */
    static String loadName(Path path, Path target)
    {
        String name = path.getFileName().toString();
        return ConfigNames.isRuntimeLoadable(name) ? name : ConfigNames.backedUpName(name).orElse(target.getFileName().toString());
    }
}
