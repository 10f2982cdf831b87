package io.cnichain.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/** A program measured: the agent (through its launcher, or its image under podman) or the floor. */
interface Program
{
    /** A short name for the tables ("cni-chain", "floor"). */
    String name();

    /** How it is run, for the report: the command line or the image. */
    String description();

    /**
     * Starts it on a node; returns as soon as the process exists (the caller waits for the patched file).
     *
     * @param node the node
     * @param log  where its output goes
     */
    Running start(Node node, Path log)
            throws IOException;

    /** A started program. */
    interface Running
    {
        /** The process on this host that does the work (the JVM), for /proc. */
        long pid()
                throws IOException;

        Path log()
                throws IOException;

        /**
         * When its JVM process started, on {@link System#nanoTime()}'s clock, when that differs from when {@link #start}
         * was called (podman's own work before it): then start-up is counted from there.
         */
        default OptionalLong processStartNanos()
                throws IOException
        {
            return OptionalLong.empty();
        }

        /**
         * When the JVM's first thread started, on {@link System#nanoTime()}'s clock, when the process started long before
         * its JVM did (a container's first process is runc's, which sets up the container and then runs the launcher).
         */
        default OptionalLong jvmStartNanos()
                throws IOException
        {
            return OptionalLong.empty();
        }

        /** The agent's health and metrics port on this host, when it has one the benchmark can reach. */
        default java.util.OptionalInt healthPort()
        {
            return java.util.OptionalInt.empty();
        }

        /** Stops it as its supervisor would (SIGTERM) and waits; returns its exit code. */
        int stop()
                throws IOException, InterruptedException;

        /** The lines it has written so far. */
        default long logLines()
                throws IOException
        {
            try (var lines = Files.lines(log())) {
                return lines.count();
            }
        }
    }
}
