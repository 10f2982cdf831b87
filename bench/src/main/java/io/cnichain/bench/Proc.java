package io.cnichain.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** What /proc says about a process: resident memory, CPU time, and context switches per thread. */
final class Proc
{
    /** Clock ticks per second of /proc/PID/stat's times; 100 on every Linux that matters (USER_HZ). */
    static final double TICKS_PER_SECOND = 100.0;

    private Proc() {}

    /** Resident set size in MiB (VmRSS), or the peak (VmHWM). */
    static double rssMib(long pid, String field)
            throws IOException
    {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.replaceAll("\\D", "")) / 1024.0;
            }
        }
        throw new IOException("no " + field + " in /proc/" + pid + "/status");
    }

    /** Proportional set size in MiB ({@code /proc/PID/smaps_rollup}): a page shared with N processes counts 1/N. */
    static double pssMib(long pid)
            throws IOException
    {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "smaps_rollup"))) {
            if (line.startsWith("Pss:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) / 1024.0;
            }
        }
        throw new IOException("no Pss in /proc/" + pid + "/smaps_rollup");
    }

    /**
     * Resident memory of the class-data archive the JVM mapped (its AOT cache, or the JDK's default archive): the
     * {@code Rss} of every mapping of a {@code .jsa} file in /proc/PID/smaps, in MiB.
     */
    static double archiveRssMib(long pid)
            throws IOException
    {
        long kib = 0;
        boolean archive = false;
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "smaps"))) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length >= 5 && fields[0].matches("[0-9a-f]+-[0-9a-f]+")) {
                archive = fields[fields.length - 1].endsWith(".jsa");
            }
            else if (archive && line.startsWith("Rss:")) {
                kib += Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        return kib / 1024.0;
    }

    /** User plus system CPU seconds the process has used, all threads, dead ones included. */
    static double cpuSeconds(long pid)
            throws IOException
    {
        String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
        // The command name may hold spaces and parentheses: fields are counted after the last ')'.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
    }

    /**
     * Voluntary plus involuntary context switches of each live thread, summed by thread name: each is a wake-up.
     *
     * @return by thread name (several threads may share one, such as GC workers)
     */
    static Map<String, Long> switchesByThread(long pid)
            throws IOException
    {
        Map<String, Long> switches = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm")).strip();
                    long total = 0;
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                            total += Long.parseLong(line.replaceAll("\\D", ""));
                        }
                    }
                    switches.merge(name, total, Long::sum);
                }
                catch (IOException gone) {
                    // the thread ended meanwhile
                }
            }
        }
        return switches;
    }

    /** Voluntary plus involuntary context switches of one thread. */
    static long switches(long pid, long tid)
            throws IOException
    {
        long total = 0;
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "task", String.valueOf(tid), "status"))) {
            if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                total += Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        return total;
    }

    /** How many threads the process has. */
    static int threads(long pid)
            throws IOException
    {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            return (int) tasks.count();
        }
    }
}
