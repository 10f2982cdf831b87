package io.cnichain.distribution.image;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Samples every 20 ms the resident memory of a process and of all its descendants (a container's processes, seen from
 * the host), keeping the peaks: what a cgroup's memory limit counts, process by process.
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
                if (rss >= 0) {
                    alive++;
                    // A child that lived between two samples is counted by its own peak when it is seen.
                    total += each == pid ? rss : Math.max(rss, hwm);
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

    /**
     * @param agentKib  the agent's own peak resident memory (VmHWM)
     * @param totalKib  the peak of the sum over the agent and its descendants
     * @param processes the most processes seen at once
     */
    record Peaks(long agentKib, long totalKib, int processes) {}
}
