package io.cnichain.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;

/** A process's open file descriptors, as {@code /proc/PID/fd} lists them. */
public final class Descriptors
{
    private Descriptors() {}

    /** @return how many of the process's descriptors are sockets (listening, connected, or closed by the peer) */
    public static long sockets(long pid)
    {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return fds.filter(Descriptors::isSocket).count();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean isSocket(Path fd)
    {
        try {
            return Files.readSymbolicLink(fd).toString().startsWith("socket:");
        }
        catch (NoSuchFileException closedMeanwhile) {
            return false;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
