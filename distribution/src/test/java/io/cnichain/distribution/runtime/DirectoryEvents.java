package io.cnichain.distribution.runtime;

import io.cnichain.testkit.Await;
import java.time.Duration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The order in which files change across several directories, as the kernel reports it: one
 * {@code inotifywait} watching them all reads one inotify queue, so its lines are in the order the changes
 * happened (Java's WatchService keeps one queue per directory and loses that order).
 */
final class DirectoryEvents
        implements AutoCloseable
{
    private final Process process;
    private final Path out;
    private final Path err;

    private DirectoryEvents(Process process, Path out, Path err)
    {
        this.process = process;
        this.out = out;
        this.err = err;
    }

    static DirectoryEvents watch(Path scratch, Path... dirs)
    {
        try {
            Path out = Files.createTempFile(scratch, "inotify-", ".out");
            Path err = Files.createTempFile(scratch, "inotify-", ".err");
            List<String> command = new ArrayList<>(List.of(RuntimeRequirements.which("inotifywait").orElseThrow().toString(), "--monitor",
                    "--event", "create,close_write,moved_to,moved_from,delete", "--format", "%w%f %e"));
            for (Path dir : new LinkedHashSet<>(List.of(dirs))) {
                command.add(dir.toString());
            }
            Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            DirectoryEvents events = new DirectoryEvents(process, out, err);
            events.await(() -> Files.readString(err).contains("Watches established"), "inotifywait to set up its watches");
            return events;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until an event matching the predicate was reported (events trail the change by a moment). */
    List<Event> until(Predicate<Event> expected)
    {
        await(() -> events().stream().anyMatch(expected), "an expected inotify event; seen:\n" + String.join("\n", lines()));
        return events();
    }

    List<Event> events()
    {
        return lines().stream().map(Event::parse).toList();
    }

    private List<String> lines()
    {
        try {
            return Files.readAllLines(out);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void await(Check check, String what)
    {
        Await.until(Duration.ofSeconds(10), () -> {
            try {
                if (check.holds()) {
                    return true;
                }
                if (!process.isAlive()) {
                    throw new AssertionError("inotifywait ended: " + Files.readString(err));
                }
                return false;
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, () -> "waiting for " + what);
    }

    @Override
    public void close()
    {
        process.destroy();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
        catch (IOException ignored) {
            // temp files of a finished watch
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private interface Check
    {
        boolean holds()
                throws IOException;
    }

    /**
     * @param path  the file
     * @param kinds CREATE, CLOSE_WRITE, MOVED_TO, MOVED_FROM, DELETE, ...
     */
    record Event(Path path, Set<String> kinds)
    {
        Event
        {
            kinds = Set.copyOf(kinds);
        }

        static Event parse(String line)
        {
            int space = line.lastIndexOf(' ');
            return new Event(Path.of(line.substring(0, space)), Set.of(line.substring(space + 1).split(",")));
        }

        boolean is(String kind)
        {
            return kinds.contains(kind);
        }

        @Override
        public String toString()
        {
            return path + " " + String.join(",", kinds);
        }
    }
}
