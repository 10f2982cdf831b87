package io.cnichain.distribution.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What {@code strace -ff -y} recorded of a process: the calls that make a write durable and atomic (file creation,
 * fsync, rename, unlink), one list per thread, in order, with every descriptor's path ({@code -y}).
 */
final class Strace
{
    /** The calls to record; {@code strace -e trace=} takes this. */
    static final String CALLS = "fsync,fdatasync,rename,renameat,renameat2,openat,unlink,unlinkat";

    private static final String FD = "(?:AT_FDCWD|\\d+)<([^>]*)>";
    private static final Pattern SYNC = Pattern.compile("^(fsync|fdatasync)\\(\\d+<([^>]*)>\\)\\s+= 0");
    private static final Pattern RENAME = Pattern.compile("^rename\\(\"([^\"]+)\", \"([^\"]+)\"\\)\\s+= 0");
    private static final Pattern RENAMEAT = Pattern.compile("^renameat2?\\(" + FD + ", \"([^\"]+)\", " + FD + ", \"([^\"]+)\"(?:, [^)]*)?\\)\\s+= 0");
    private static final Pattern CREATE = Pattern.compile("^openat\\(" + FD + ", \"([^\"]+)\", ([A-Z_|]*O_CREAT[A-Z_|]*), (0\\d+)\\)\\s+= \\d+<([^>]*)>");
    private static final Pattern UNLINK = Pattern.compile("^unlink(?:at)?\\((?:" + FD + ", )?\"([^\"]+)\"(?:, \\d+)?\\)\\s+= 0");

    private Strace() {}

    /** @return the command, run under strace writing one file per thread to {@code prefix.PID} */
    static List<String> command(Path prefix, List<String> command)
    {
        List<String> all = new ArrayList<>(List.of("strace", "-f", "-ff", "-qq", "-y", "-e", "trace=" + CALLS, "-o", prefix.toString()));
        all.addAll(command);
        return all;
    }

    /** @return every thread's calls, in order, thread by thread */
    static List<List<Call>> read(Path prefix)
    {
        try (Stream<Path> files = Files.list(prefix.getParent())) {
            List<List<Call>> threads = new ArrayList<>();
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith(prefix.getFileName() + ".")).sorted().toList()) {
                List<Call> calls = new ArrayList<>();
                for (String line : Files.readAllLines(file)) {
                    parse(line).ifPresent(calls::add);
                }
                threads.add(calls);
            }
            return threads;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static java.util.Optional<Call> parse(String line)
    {
        Matcher m = SYNC.matcher(line);
        if (m.find()) {
            return java.util.Optional.of(new Call(Kind.SYNC, Path.of(m.group(2)), Path.of(m.group(2)), "", line));
        }
        m = RENAME.matcher(line);
        if (m.find()) {
            return java.util.Optional.of(new Call(Kind.RENAME, Path.of(m.group(1)), Path.of(m.group(2)), "", line));
        }
        m = RENAMEAT.matcher(line);
        if (m.find()) {
            return java.util.Optional.of(new Call(Kind.RENAME, Path.of(m.group(1)).resolve(m.group(2)), Path.of(m.group(3)).resolve(m.group(4)), "", line));
        }
        m = CREATE.matcher(line);
        if (m.find()) {
            return java.util.Optional.of(new Call(Kind.CREATE, Path.of(m.group(5)), Path.of(m.group(5)), m.group(4), line));
        }
        m = UNLINK.matcher(line);
        if (m.find()) {
            Path name = Path.of(m.group(2));
            Path path = m.group(1) == null ? name : Path.of(m.group(1)).resolve(name);
            return java.util.Optional.of(new Call(Kind.UNLINK, path, path, "", line));
        }
        return java.util.Optional.empty();
    }

    enum Kind
    {
        CREATE,
        SYNC,
        RENAME,
        UNLINK,
    }

    /**
     * One call.
     *
     * @param kind what it did
     * @param from the file created, synced, unlinked, or renamed from
     * @param to   the file renamed to (else the same as from)
     * @param mode the mode a file was created with ({@code 0600})
     * @param line the line as strace wrote it
     */
    record Call(Kind kind, Path from, Path to, String mode, String line) {}
}
