package io.cnichain.core.discovery;

import io.cnichain.core.fs.linux.FileSystemCalls;
import io.cnichain.core.fs.linux.PathNames;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ParseResult;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** What sorts before the runtime's file and keeps it from certainly being the one loaded: files we cannot read, files that fail. */
final class BeforeEffective
{
    private BeforeEffective() {}

    /**
     * Runtime-loadable entries before the effective configuration (or anywhere, when there is none) that the runtime
     * may load although we cannot tell what they hold: a regular file too large to read whole, or one that cannot be
     * read. Such a file may be the runtime's, without our entry.
     *
     * @return one line per such entry
     */
    static List<String> unknown(NodeSnapshot snapshot, List<FileSystemCalls.EntryName> unnameable)
    {
        List<String> problems = new ArrayList<>();
        Optional<ConfigEntry> effective = snapshot.effectiveConfig();
        for (ConfigEntry entry : snapshot.entries()) {
            if (effective.isPresent() && entry.name().equals(effective.get().name())) {
                break;
            }
            if (entry.runtimeLoadable() && unknown(snapshot, entry)) {
                problems.add(entry.path() + (effective.isPresent() ? " sorts before the effective configuration" : " is in the conf dir")
                        + " and cannot be read whole (" + snapshot.parse(entry).error().orElse("") + "): the runtime may load it, and we cannot tell whether "
                        + "it carries our entry; make it smaller than maxConfigBytes or readable, or remove it");
            }
        }
        byte[] effectiveName = effective.isPresent() ? effective.get().name().getBytes(java.nio.charset.StandardCharsets.UTF_8) : null;
        for (FileSystemCalls.EntryName name : unnameable) {
            String printable = PathNames.printable(name.bytes());
            // By bytes, as the runtime sorts; a name the fallback saw only decoded may sort anywhere.
            boolean before = effectiveName == null || !name.exact() || java.util.Arrays.compareUnsigned(name.bytes(), effectiveName) < 0;
            if (ConfigNames.isRuntimeLoadable(printable) && before) {
                // Named by text, not as a path: the JVM cannot make a path of it.
                problems.add(snapshot.layout().confDir() + "/" + printable.replace('/', '?') + " has a name the agent cannot open (its bytes are not valid "
                        + PathNames.ENCODING + ")" + (effective.isPresent() ? " and sorts before the effective configuration" : "")
                        + ": the runtime may load it, and we cannot tell whether it carries our entry; rename it");
            }
        }
        return problems;
    }

    /** Too large to read whole, or a regular file we could not read: the runtime may still load it. */
    private static boolean unknown(NodeSnapshot snapshot, ConfigEntry entry)
    {
        ParseResult result = snapshot.parse(entry);
        if (!(result instanceof ParseResult.Failed failed)) {
            return false;
        }
        if (failed.reason() == ParseResult.Reason.TOO_LARGE) {
            return true;
        }
        // A link that leads nowhere, a FIFO or a directory is something no runtime loads; a regular file may be.
        return failed.reason() == ParseResult.Reason.UNREADABLE && entry.resolvedFile().isPresent()
                && Files.isRegularFile(snapshot.layout().host().toContainer(entry.resolvedFile().get()), java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Runtime-loadable entries that sort before the effective configuration (or anywhere, when there is none)
     * and that the runtime cannot load. containerd stops at the first such file; CRI-O skips it. Files the runtime
     * may load after all are not among them: those we cannot read whole ({@link #unknown}) and those
     * an older libcni loads.
     *
     * @return one line per broken entry
     */
    static List<String> broken(NodeSnapshot snapshot)
    {
        List<String> problems = new ArrayList<>();
        Optional<ConfigEntry> effective = snapshot.effectiveConfig();
        for (ConfigEntry entry : snapshot.entries()) {
            if (effective.isPresent() && entry.name().equals(effective.get().name())) {
                break;
            }
            Optional<String> dropInFailure = entry.runtimeLoadable() ? snapshot.dropIns(entry).failure() : Optional.empty();
            if (dropInFailure.isPresent() && snapshot.parse(entry).isValid()) {
                problems.add(entry.path() + (effective.isPresent() ? " sorts before the effective configuration and" : "") + " cannot be loaded by "
                        + LibcniGeneration.V1_3.description() + ": " + dropInFailure.get());
                continue;
            }
            if (entry.runtimeLoadable() && !unknown(snapshot, entry) && !snapshot.loadsUnder(entry, LibcniGeneration.V1_1)) {
                ParseResult result = snapshot.parse(entry);
                if (!result.isValid()) {
                    String error = result.error().orElseThrow();
                    String reason = error.startsWith(entry.path() + ": ") ? error.substring(entry.path().toString().length() + 2) : error;
                    problems.add(entry.path() + (effective.isPresent() ? " sorts before the effective configuration and" : "")
                            + " cannot be loaded (" + reason + "); containerd fails on it, CRI-O skips it");
                }
            }
        }
        return problems;
    }
}
