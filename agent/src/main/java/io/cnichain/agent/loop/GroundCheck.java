package io.cnichain.agent.loop;

import io.cnichain.core.config.NodePaths;
import io.cnichain.core.fs.linux.FileSystemCalls;
import io.cnichain.core.host.HostPaths;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What changes under the agent without an inotify event, looked at every second: the link that leads to the conf dir
 * (k3s-style custom paths), and the mounts at or above the conf dir and the bin dir (a tmpfs mounted over the conf dir
 * hides every file the agent watches). A link's target is not its directory's event, and a mount is no event at all.
 *
 * <p>The look runs on an idle node too, so it does as little as it can: the mount table is read into the same buffer
 * through a descriptor held open (the kernel prints the file afresh at every read from its start) and taken apart only
 * when its bytes changed; the conf dir's path is walked again only when a name on it changed ({@link HostPaths.Walk}).
 */
final class GroundCheck
{
    static final Duration EVERY = Duration.ofSeconds(1);
    private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");
    private static final Pattern ESCAPED = Pattern.compile("\\\\([0-7]{3})");

    private final NodePaths paths;
    private final List<Path> watched;
    private Optional<String> moved = Optional.empty();
    private Supplier<Optional<String>> movedAgain;
    private List<String> mounts;
    /** Closed after a failed read, and opened again at the next look. */
    private FileChannel table;
    private ByteBuffer buffer = ByteBuffer.allocate(16 * 1024);
    private byte[] mountsFrom;

    GroundCheck(NodePaths paths)
    {
        this.paths = paths;
        HostPaths host = new HostPaths(paths.hostRoot());
        this.watched = List.of(host.toContainer(paths.confDir()).toAbsolutePath().normalize(), host.toContainer(paths.binDir()).toAbsolutePath().normalize());
        this.mounts = mounts();
        // Held only while the loop runs (it closes the check when it ends): a loop never started keeps no descriptor.
        close();
    }

    Optional<String> confDirMoved()
    {
        if (movedAgain == null) {
            // Not in the constructor: the loop is built at start-up, while the kernel's calls may still be linking.
            movedAgain = paths.confDirMovedAgain(FileSystemCalls.get());
        }
        return movedAgain.get();
    }

    Optional<String> look()
    {
        Optional<String> movedNow = confDirMoved();
        List<String> mountsNow = mounts();
        List<String> changes = new ArrayList<>();
        if (!movedNow.equals(moved)) {
            changes.add(movedNow.isPresent() ? "the link to the conf dir " + paths.configuredConfDir() + " changed"
                    : "the conf dir " + paths.configuredConfDir() + " leads where the agent works again");
        }
        if (!mountsNow.equals(mounts)) {
            changes.add("the mounts at or above " + paths.confDir() + " or " + paths.binDir() + " changed");
        }
        moved = movedNow;
        mounts = mountsNow;
        return changes.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", changes));
    }

    private List<String> mounts()
    {
        if (!readTable()) {
            mountsFrom = null;
            return List.of();
        }
        if (mountsFrom != null && Arrays.equals(buffer.array(), 0, buffer.limit(), mountsFrom, 0, mountsFrom.length)) {
            return mounts;
        }
        mountsFrom = Arrays.copyOf(buffer.array(), buffer.limit());
        List<String> relevant = new ArrayList<>();
        for (String line : new String(mountsFrom, StandardCharsets.UTF_8).split("\n")) {
            String[] fields = line.split(" ");
            if (fields.length < 5) {
                continue;
            }
            Path mountPoint = Path.of(unescape(fields[4]));
            if (watched.stream().anyMatch(dir -> dir.startsWith(mountPoint) || mountPoint.startsWith(dir))) {
                relevant.add(line);
            }
        }
        return relevant;
    }

    private boolean readTable()
    {
        try {
            if (table == null) {
                table = FileChannel.open(MOUNTINFO);
            }
            buffer.clear();
            long position = 0;
            int read;
            while ((read = table.read(buffer, position)) >= 0) {
                position += read;
                if (!buffer.hasRemaining()) {
                    buffer = ByteBuffer.allocate(buffer.capacity() * 2).put(buffer.flip());
                }
            }
            buffer.flip();
            return true;
        }
        catch (IOException | RuntimeException e) {
            close();
            return false;
        }
    }

    void close()
    {
        if (table != null) {
            try {
                table.close();
            }
            catch (IOException e) {
                // Nothing was written through it.
            }
            table = null;
        }
    }

    /** mountinfo writes a space, a tab, a newline and a backslash in a path as {@code \040}, {@code \011}, {@code \012}, {@code \134}. */
    private static String unescape(String field)
    {
        return ESCAPED.matcher(field).replaceAll(octal -> Matcher.quoteReplacement(String.valueOf((char) Integer.parseInt(octal.group(1), 8))));
    }
}
