package io.cnichain.core.plugins;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A node agent running as root must not load code that anyone else can replace. A plugin file is refused when it,
 * or any directory on its real path, can be written by someone other than root (or other than the agent's own
 * user, when the agent is not root): a group or other write bit, or an owner who is neither. One exception: an
 * <em>ancestor</em> of the plugins directory that has the sticky bit (such as {@code /tmp}, mode 1777) may be
 * writable by others, because there they cannot rename or delete entries they do not own, and the entry below it
 * is checked itself. The plugins directory itself (and the directory a linked jar really lives in) is never
 * allowed to be writable by others, sticky or not: anyone could add files to it.
 */
final class PluginPermissions
{
    private static final int GROUP_WRITE = 0020;
    private static final int OTHER_WRITE = 0002;
    private static final int STICKY = 01000;

    private final int agentUid;

    PluginPermissions(int agentUid)
    {
        this.agentUid = agentUid;
    }

    /** The agent's effective user: the owner of {@code /proc/self}. Unknown means root, the strictest case. */
    static PluginPermissions forThisProcess()
    {
        try {
            return new PluginPermissions((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        }
        catch (IOException | RuntimeException e) {
            return new PluginPermissions(0);
        }
    }

    int agentUid()
    {
        return agentUid;
    }

    /**
     * @param directory the plugins directory (its real path is checked, with every ancestor)
     * @return why plugins in it may not be loaded, if so, with the command that fixes it
     */
    Optional<String> checkDirectory(Path directory)
    {
        Path real;
        try {
            real = directory.toRealPath();
        }
        catch (IOException e) {
            return Optional.of(directory + ": cannot be resolved: " + e.getMessage());
        }
        Optional<String> own = check(real, "directory " + real, false);
        if (own.isPresent()) {
            return own;
        }
        // The path as configured, before its links are resolved: whoever may write a directory on it may point a link
        // in it elsewhere (pluginsDir itself a link, say, in a directory anyone can write).
        Path configured = directory.toAbsolutePath().normalize();
        for (Path ancestor = configured.getParent(); ancestor != null; ancestor = ancestor.getParent()) {
            Optional<String> problem = check(ancestor, "directory " + ancestor + " (on the way to " + configured + ")", true);
            if (problem.isPresent()) {
                return problem;
            }
        }
        for (Path ancestor = real.getParent(); ancestor != null; ancestor = ancestor.getParent()) {
            Optional<String> problem = check(ancestor, "directory " + ancestor, true);
            if (problem.isPresent()) {
                return problem;
            }
        }
        return Optional.empty();
    }

    /**
     * @param jar a plugin file in a directory already checked; when it is a link, its real file and that file's
     *            directories are checked too
     * @return why it may not be loaded, if so, with the command that fixes it
     */
    Optional<String> checkFile(Path jar)
    {
        Path real;
        try {
            real = jar.toRealPath();
        }
        catch (IOException e) {
            return Optional.of("cannot be resolved: " + e.getMessage());
        }
        Optional<String> problem = check(real, real.equals(jar.toAbsolutePath()) ? "it" : "its target " + real, false);
        if (problem.isEmpty() && !real.getParent().equals(jar.toAbsolutePath().getParent())) {
            problem = checkDirectory(real.getParent());
        }
        return problem;
    }

    private Optional<String> check(Path path, String what, boolean ancestor)
    {
        int mode;
        int uid;
        try {
            mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            uid = (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        }
        catch (IOException | RuntimeException e) {
            return Optional.of(path + ": cannot read its owner and mode: " + e.getMessage());
        }
        if ((mode & (GROUP_WRITE | OTHER_WRITE)) != 0 && !(ancestor && (mode & STICKY) != 0)) {
            return Optional.of(what + " is writable by " + ((mode & OTHER_WRITE) != 0 ? "anyone" : "its group") + " (mode "
                    + String.format("%04o", mode & 07777) + "); fix: chmod go-w " + path);
        }
        if (uid != 0 && uid != agentUid) {
            return Optional.of(what + " is owned by uid " + uid + ", not root" + (agentUid == 0 ? "" : " nor the agent's user (uid " + agentUid + ")")
                    + "; fix: chown root " + path);
        }
        return Optional.empty();
    }
}
