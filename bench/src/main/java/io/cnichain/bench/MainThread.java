package io.cnichain.bench;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The agent's reconcile thread ({@code main}) as the JVM and /proc count it.
 *
 * @param cpuMillis    its CPU time (ms)
 * @param allocatedKib the bytes it allocated on the heap, ever (KiB)
 * @param switches     its context switches, voluntary and not: its wake-ups
 */
record MainThread(double cpuMillis, double allocatedKib, long switches)
{
    static MainThread of(long pid, Path javaHome)
            throws IOException, InterruptedException
    {
        Process jcmd = new ProcessBuilder(javaHome.resolve("bin/jcmd").toString(), String.valueOf(pid), "Thread.print", "-e")
                .redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        jcmd.waitFor();
        for (String line : out.lines().toList()) {
            if (line.startsWith("\"main\" ")) {
                java.util.regex.Matcher cpu = java.util.regex.Pattern.compile(" cpu=([0-9.]+)ms").matcher(line);
                java.util.regex.Matcher allocated = java.util.regex.Pattern.compile(" allocated=([0-9]+)([KMG]?)B?").matcher(line);
                java.util.regex.Matcher nid = java.util.regex.Pattern.compile(" nid=(0x[0-9a-f]+|[0-9]+)").matcher(line);
                if (cpu.find() && allocated.find() && nid.find()) {
                    double kib = Double.parseDouble(allocated.group(1)) * switch (allocated.group(2)) {
                        case "" -> 1.0 / 1024;
                        case "M" -> 1024;
                        case "G" -> 1024 * 1024;
                        default -> 1;
                    };
                    // The JVM's main thread keeps the process's name in /proc ("java"): it is found by its native id.
                    long tid = nid.group(1).startsWith("0x") ? Long.parseLong(nid.group(1).substring(2), 16) : Long.parseLong(nid.group(1));
                    return new MainThread(Double.parseDouble(cpu.group(1)), kib, Proc.switches(pid, tid));
                }
            }
        }
        throw new IOException("jcmd " + pid + " Thread.print -e gave no main thread with cpu= and allocated=:\n" + out);
    }
}
