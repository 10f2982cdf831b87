package io.cnichain.core.engine;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What a pass did to one configuration file.
 *
 * @param path    the file as the runtime sees it (may be a link)
 * @param result  what happened
 * @param detail  one line saying why
 * @param written the host paths written, with the bytes we wrote (for recognising our own echo)
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
     * A file we wrote.
     *
     * @param hostPath its host path
     * @param content  the bytes written (a configuration: a few kilobytes at most), to know our own write when it comes
     *                 back as an event
     */
    public record Written(Path hostPath, byte[] content)
    {
        public Written
        {
            requireNonNull(hostPath, "hostPath is null");
            content = content.clone();
        }

        @Override
        public byte[] content()
        {
            return content.clone();
        }

        /** @return whether these are the bytes written */
        public boolean sameContent(byte[] bytes)
        {
            return Arrays.equals(content, bytes);
        }

        @Override
        public boolean equals(Object other)
        {
            return other instanceof Written written && hostPath.equals(written.hostPath) && Arrays.equals(content, written.content);
        }

        @Override
        public int hashCode()
        {
            return 31 * hostPath.hashCode() + Arrays.hashCode(content);
        }

        @Override
        public String toString()
        {
            return "Written[" + hostPath + ", " + content.length + " bytes]";
        }
    }
}
