package io.cnichain.agent.loop;

import java.nio.file.WatchKey;
import java.util.Optional;

/**
 * One directory of {@link DirectoryWatches}: what the agent wants of it, and its watch.
 *
 * @param wanted      whether the agent wants it watched
 * @param pending     a wanted directory that does not exist yet: an ancestor is watched for it to appear
 * @param ancestor    watched for a pending directory below it to appear, or for a wanted one in it to be replaced
 * @param key         its watch, when armed (possibly no longer valid: its end not yet handled)
 * @param armedOn     the directory the watch was armed on (its file key: device and inode), when it could be read,
 *                    to tell when the path names another directory
 * @param unwatchable why a wanted directory that exists could not be watched (the inotify watch limit, most often)
 */
record WatchedDirectory(boolean wanted, boolean pending, boolean ancestor, Optional<WatchKey> key, Optional<Object> armedOn,
                        Optional<String> unwatchable)
{
    static final WatchedDirectory NONE = new WatchedDirectory(false, false, false, Optional.empty(), Optional.empty(), Optional.empty());

    boolean watching()
    {
        return key.isPresent() && key.get().isValid();
    }

    boolean useless()
    {
        return !wanted && !ancestor && key.isEmpty();
    }

    WatchedDirectory wanted(boolean now)
    {
        return now ? new WatchedDirectory(true, pending, ancestor, key, armedOn, unwatchable) : new WatchedDirectory(false, false, ancestor, key, armedOn, Optional.empty());
    }

    WatchedDirectory pending(boolean now)
    {
        return new WatchedDirectory(wanted, now, ancestor, key, armedOn, now ? Optional.empty() : unwatchable);
    }

    WatchedDirectory ancestor(boolean now)
    {
        return new WatchedDirectory(wanted, pending, now, key, armedOn, unwatchable);
    }

    WatchedDirectory armed(WatchKey watch, Optional<Object> on)
    {
        return new WatchedDirectory(wanted, false, ancestor, Optional.of(watch), on, Optional.empty());
    }

    WatchedDirectory armedOn(Object on)
    {
        return new WatchedDirectory(wanted, pending, ancestor, key, Optional.of(on), unwatchable);
    }

    WatchedDirectory unarmed()
    {
        return new WatchedDirectory(wanted, pending, ancestor, Optional.empty(), Optional.empty(), unwatchable);
    }

    WatchedDirectory unwatchable(String why)
    {
        return new WatchedDirectory(wanted, false, ancestor, key, armedOn, Optional.of(why));
    }
}
