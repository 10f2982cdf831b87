package io.cnichain.distribution.image;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Samples every 20 ms the memory of a process and of all its descendants (a container's processes, seen from the host),
 * keeping the peaks. The container's figure sums each process's proportional set size (Pss): a page the agent and a
 * child both map (the Java runtime's libraries, its module image, the AOT cache) is one page of the container's cgroup,
 * charged once, where a sum of resident sizes would count it once per process.
 */
final class MemorySampler
{
    private final long pid;
    private final Thread thread;
    private volatile boolean stop;
    private long agentPeak;
    private long totalPeak;
    private int processesPeak;

    private MemorySampler(long pid)
    {
        this.pid = pid;
        this.thread = new Thread(this::run, "memory-sampler");
        thread.setDaemon(true);
    }

    static MemorySampler start(long pid)
    {
        MemorySampler sampler = new MemorySampler(pid);
        sampler.thread.start();
        return sampler;
    }

    Peaks stop()
            throws InterruptedException
    {
        stop = true;
        thread.join();
        synchronized (this) {
            return new Peaks(agentPeak, totalPeak, processesPeak);
        }
    }

    private void run()
    {
        while (!stop) {
            List<Long> pids = new ArrayList<>();
            pids.add(pid);
            ProcessHandle.of(pid).ifPresent(process -> process.descendants().forEach(d -> pids.add(d.pid())));
            long total = 0;
            long agent = 0;
            int alive = 0;
            for (long each : pids) {
                long hwm = field(each, "VmHWM");
                long rss = field(each, "VmRSS");
                long pss = pss(each);
                if (rss >= 0 && pss >= 0) {
                    alive++;
                    // A child's peak between two samples is counted by how far its resident size once stood above today's.
                    total += each == pid ? pss : pss + Math.max(0, hwm - rss);
                }
                if (each == pid && hwm >= 0) {
                    agent = hwm;
                }
            }
            synchronized (this) {
                agentPeak = Math.max(agentPeak, agent);
                totalPeak = Math.max(totalPeak, Math.max(total, agent));
                processesPeak = Math.max(processesPeak, alive);
            }
            try {
                Thread.sleep(20);
            }
            catch (InterruptedException e) {
                return;
            }
        }
    }

    /** A field of /proc/PID/status in KiB, or -1 when the process is gone. */
    private static long field(long pid, String name)
    {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith(name + ":")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        }
        catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /** The process's Pss in KiB ({@code /proc/PID/smaps_rollup}), or -1 when it is gone. */
    private static long pss(long pid)
    {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps_rollup"))) {
                if (line.startsWith("Pss:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        }
        catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /**
     * @param agentKib  the agent's own peak resident memory (VmHWM)
     * @param totalKib  the peak of the sum of Pss over the agent and its descendants
     * @param processes the most processes seen at once
     */
    record Peaks(long agentKib, long totalKib, int processes) {}
}
