package io.cnichain.agent.loop;

import io.cnichain.core.config.NodePaths;
import io.cnichain.core.host.HostPaths;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * What changes under the agent without an inotify event, looked at every second: the link that leads to the conf dir
 * (k3s-style custom paths: re-pointed, the runtime reads another directory) and the mounts over the conf dir, the bin
 * dir or a directory above them (a tmpfs mounted over the conf dir hides every file the agent watches). inotify tells
 * neither: a link's target is not its directory's event, and a mount is no event at all. The kernel lists the mounts
 * in {@code /proc/self/mountinfo}; reading it costs a few microseconds.
 */
final class GroundCheck
{
    static final long EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");

    private final NodePaths paths;
    private final List<Path> watched;
    private final Path mountinfo;
    private Optional<String> moved;
    private List<String> mounts;

    GroundCheck(NodePaths paths)
    {
        this(paths, MOUNTINFO);
    }

    GroundCheck(NodePaths paths, Path mountinfo)
    {
        this.paths = requireNonNull(paths, "paths is null");
        HostPaths host = new HostPaths(paths.hostRoot());
        this.watched = List.of(host.toContainer(paths.confDir()).toAbsolutePath().normalize(), host.toContainer(paths.binDir()).toAbsolutePath().normalize());
        this.mountinfo = requireNonNull(mountinfo, "mountinfo is null");
        this.moved = paths.confDirMoved();
        this.mounts = mounts();
    }

    /** @return what changed since the last look, for the log; empty when nothing did */
    Optional<String> look()
    {
        Optional<String> movedNow = paths.confDirMoved();
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

    /** The mount table's lines for mount points at, under or above the directories we watch; empty when it cannot be read. */
    private List<String> mounts()
    {
        List<String> lines;
        try {
            lines = Files.readAllLines(mountinfo);
        }
        catch (IOException | RuntimeException e) {
            return List.of();
        }
        List<String> relevant = new ArrayList<>();
        for (String line : lines) {
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

    /** mountinfo writes a space, a tab, a newline and a backslash in a path as {@code \040}, {@code \011}, {@code \012}, {@code \134}. */
    private static String unescape(String field)
    {
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 3 < field.length() && field.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            }
            else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
