package io.cnichain.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine, for the report: processor, cores, memory, kernel, load. */
record Machine(String cpu, int cores, long memoryMib, String kernel)
{
    static Machine describe()
            throws IOException
    {
        String cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                .filter(l -> l.startsWith("model name"))
                .map(l -> l.substring(l.indexOf(':') + 1).strip())
                .findFirst().orElse("unknown processor");
        long memory = Files.readAllLines(Path.of("/proc/meminfo")).stream()
                .filter(l -> l.startsWith("MemTotal:"))
                .map(l -> Long.parseLong(l.replaceAll("\\D", "")) / 1024)
                .findFirst().orElse(0L);
        String kernel = Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
        return new Machine(cpu, Runtime.getRuntime().availableProcessors(), memory, kernel);
    }

    String summary()
    {
        return cores + " cores (" + cpu + "), " + memoryMib / 1024 + " GiB, Linux " + kernel;
    }

    static String loadAverage()
    {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        }
        catch (IOException e) {
            return "unknown";
        }
    }
}
