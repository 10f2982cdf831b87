package io.cnichain.core.engine;

import io.cnichain.core.fs.Sha256;

import java.nio.file.Path;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What a pass did to one configuration file.
 *
 * @param path    the file as the runtime sees it (may be a link)
 * @param result  what happened
 * @param detail  one line saying why
 * @param written the host paths written, with what we wrote (for recognising our own echo)
 * @param retryable for {@link Result#FAILED}: the filesystem refused a write (no space, read-only, permission denied,
 *                  immutable), which may succeed later without any change to the file, so it is worth trying again
 */
public record FileOutcome(Path path, Result result, String detail, List<Written> written, boolean retryable)
{
    public FileOutcome
    {
        requireNonNull(path, "path is null");
        requireNonNull(result, "result is null");
        requireNonNull(detail, "detail is null");
        written = List.copyOf(written);
    }

    /** An outcome that is not a refused write. */
    public FileOutcome(Path path, Result result, String detail, List<Written> written)
    {
        this(path, result, detail, written, false);
    }

    public boolean failed()
    {
        return result == Result.FAILED;
    }

    /** What happened to a file. */
    public enum Result
    {
        /** Our entry was written into it. */
        PATCHED,
        /** A single-plugin file was converted to a list holding our entry (or restored on uninstall). */
        CONVERTED,
        /** Our entry was removed from it. */
        REMOVED,
        /** Nothing to do. */
        UNCHANGED,
        /**
         * Left alone on uninstall: the file cannot be parsed, but it does not name our plugin either, so nothing of
         * ours can be in it.
         */
        SKIPPED,
        /** The file cannot be acted on yet (it does not parse, or is incomplete): left alone, try again later. */
        WAITING,
        /** The file cannot be patched; left alone. */
        FAILED,
    }

    /**
     * A file we wrote, by its length and digest: enough to know our own write when it comes back as an event, without
     * keeping the bytes of every file the agent writes (an adapter may name dozens, each up to maxConfigBytes).
     *
     * @param hostPath its host path
     * @param length   how many bytes we wrote
     * @param sha256   their digest, in hex
     */
    public record Written(Path hostPath, int length, String sha256)
    {
        public Written
        {
            requireNonNull(hostPath, "hostPath is null");
            requireNonNull(sha256, "sha256 is null");
        }

        public static Written of(Path hostPath, byte[] content)
        {
            return new Written(hostPath, content.length, Sha256.hex(content));
        }

        /** @return whether these are the bytes written; digested only when the length matches */
        public boolean sameContent(byte[] bytes)
        {
            return bytes.length == length && Sha256.hex(bytes).equals(sha256);
        }

        // Written out: a record's own are linked at their first call, and called slowly by the agent's C1-only JIT.
        @Override
        public boolean equals(Object other)
        {
            return other instanceof Written written && hostPath.equals(written.hostPath) && length == written.length && sha256.equals(written.sha256);
        }

        @Override
        public int hashCode()
        {
            return 31 * hostPath.hashCode() + sha256.hashCode();
        }

        @Override
        public String toString()
        {
            return "Written[" + hostPath + ", " + length + " bytes]";
        }
    }
}
