package io.cnichain.distribution.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;

/**
 * A primary network plugin that keeps rewriting its configuration on a thread of its own: each version numbered
 * ({@code "gen"}), written by a rename over the file (as Cilium does) or in place (truncate, then write, as Calico
 * does), or either at random. It never writes our entry: whatever it writes takes it out again.
 */
final class Primary
        implements AutoCloseable
{
    private final Path file;
    private final LongFunction<String> content;
    private final Mode mode;
    private final long minPauseNanos;
    private final long maxPauseNanos;
    private final Random random;
    private final AtomicLong generation = new AtomicLong();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong inPlace = new AtomicLong();
    private final java.util.Set<Long> lostFound = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final java.util.Map<Long, String> written = new java.util.concurrent.ConcurrentHashMap<>();
    /** Odd while an in-place write is under way (a seqlock): what a reader sees meanwhile may be the primary's half file. */
    private final AtomicLong inPlaceSequence = new AtomicLong();
    private final Thread thread;
    private volatile boolean stop;
    private volatile Throwable failure;

    private Primary(Path file, LongFunction<String> content, Mode mode, long minPauseNanos, long maxPauseNanos, long seed)
    {
        this.file = file;
        this.content = content;
        this.mode = mode;
        this.minPauseNanos = minPauseNanos;
        this.maxPauseNanos = maxPauseNanos;
        this.random = new Random(seed);
        this.thread = new Thread(this::run, "primary-" + file.getFileName());
        this.thread.setDaemon(true);
    }

    /**
     * @param file     the file, as the test sees it
     * @param content  the file's text for a generation
     * @param minPause the shortest pause between two writes, in milliseconds
     * @param maxPause the longest, the pause being uniform in between
     * @param seed     the random seed (pauses, and the write mode for {@link Mode#EITHER})
     */
    static Primary start(Path file, LongFunction<String> content, Mode mode, long minPause, long maxPause, long seed)
    {
        Primary primary = new Primary(file, content, mode, minPause * 1_000_000, maxPause * 1_000_000, seed);
        primary.thread.start();
        return primary;
    }

    /**
     * A primary that writes only when told to ({@link #writeNext}), on the caller's thread.
     */
    static Primary idle(Path file, LongFunction<String> content)
    {
        return new Primary(file, content, Mode.IN_PLACE, 0, 0, 0);
    }

    private void run()
    {
        try {
            while (!stop) {
                writeNext(mode == Mode.RENAME || (mode == Mode.EITHER && random.nextBoolean()) ? Mode.RENAME : Mode.IN_PLACE);
                LockSupport.parkNanos(minPauseNanos + (long) (random.nextDouble() * (maxPauseNanos - minPauseNanos)));
            }
        }
        catch (IOException | RuntimeException e) {
            failure = e;
        }
    }

    /** Writes the next generation, by a rename or in place. */
    void writeNext(Mode how)
            throws IOException
    {
        long next = generation.get() + 1;
        write(how, next, content.apply(next).getBytes(StandardCharsets.UTF_8));
    }

    private void write(Mode how, long next, byte[] bytes)
            throws IOException
    {
        if (how == Mode.RENAME) {
            Path temp = file.resolveSibling("." + file.getFileName() + ".primary-tmp");
            Files.write(temp, bytes);
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        else {
            inPlaceSequence.incrementAndGet();
            try {
                Files.write(file, bytes, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
            }
            finally {
                inPlaceSequence.incrementAndGet();
            }
            inPlace.incrementAndGet();
        }
        written.put(next, java.time.Instant.now() + (how == Mode.RENAME ? " by a rename" : " in place"));
        generation.set(next);
        writes.incrementAndGet();
    }

    /**
     * A read-modify-write of the primary's own: the file as it is now (our entry included, when it is there) with the
     * next generation, as a primary that keeps chained plugins does. Careful, as the agent's writer is: it reads the
     * file again just before writing and starts over when it changed (so that it rarely undoes our write, which the
     * agent would count towards a fight). Skipped when the file does not parse (half written).
     *
     * @return whether it wrote
     */
    boolean writeNextKeepingOthers(Mode how)
            throws IOException
    {
        for (int attempt = 0; attempt < 5; attempt++) {
            byte[] read = Files.readAllBytes(file);
            com.fasterxml.jackson.databind.JsonNode current;
            try {
                current = io.cnichain.core.json.CniJson.parse(read);
            }
            catch (RuntimeException halfWritten) {
                return false;
            }
            long next = generation.get() + 1;
            if (current.path("gen").asLong(-1) < generation.get()) {
                // Only this primary numbers versions: an older number here is an older version someone brought back.
                lostFound.add(generation.get());
            }
            ((com.fasterxml.jackson.databind.node.ObjectNode) current).put("gen", next);
            byte[] bytes = io.cnichain.core.json.CniJson.write(current);
            if (java.util.Arrays.equals(read, Files.readAllBytes(file))) {
                write(how, next, bytes);
                return true;
            }
        }
        return false;
    }

    /** @return the generation of the last write that completed */
    long generation()
    {
        return generation.get();
    }

    /** @return a number that is odd while an in-place write is under way, and changes with each */
    long inPlaceSequence()
    {
        return inPlaceSequence.get();
    }

    /** @return when and how the write of a generation completed ({@code 2026-...Z by a rename}), to set beside the agent's log */
    java.util.Optional<String> writtenAt(long generation)
    {
        return java.util.Optional.ofNullable(written.get(generation));
    }

    /** @return the generations of its own that it found replaced by an older version, each once */
    java.util.Set<Long> lostGenerationsFound()
    {
        return java.util.Set.copyOf(lostFound);
    }

    long writes()
    {
        return writes.get();
    }

    long inPlaceWrites()
    {
        return inPlace.get();
    }

    @Override
    public void close()
    {
        stop = true;
        try {
            if (thread.isAlive()) {
                thread.join(5000);
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw new AssertionError("the primary's writer failed", failure);
        }
    }

    /** How the primary writes its file. */
    enum Mode
    {
        RENAME,
        IN_PLACE,
        EITHER,
    }
}
