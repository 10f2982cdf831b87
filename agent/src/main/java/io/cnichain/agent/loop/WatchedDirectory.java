package io.cnichain.agent.loop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.WatchKey;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

/**
 * One directory of {@link DirectoryWatches}.
 *
 * @param pending     wanted and missing: an ancestor is watched for it to appear
 * @param ancestor    watched for a pending directory below it to appear, or for a wanted one in it to be replaced
 * @param key         its watch, when armed (perhaps ended, its end not yet handled)
 * @param armedOn     the file key the watch was armed on, when it could be read: tells when the path names another directory
 * @param unwatchable why a wanted directory that exists, or the ancestor that would tell of its appearance, could not be watched
 */
record WatchedDirectory(boolean wanted, boolean pending, boolean ancestor, Optional<WatchKey> key, Optional<Object> armedOn,
                        Optional<String> unwatchable)
{
    static final WatchedDirectory NONE = new WatchedDirectory(false, false, false, Optional.empty(), Optional.empty(), Optional.empty());

    boolean watching()
    {
        return key.isPresent() && key.get().isValid();
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

    static Optional<Object> fileKey(Path directory)
    {
        try {
            return Optional.ofNullable(Files.readAttributes(directory, BasicFileAttributes.class).fileKey());
        }
        catch (IOException e) {
            return Optional.empty();
        }
    }
}
