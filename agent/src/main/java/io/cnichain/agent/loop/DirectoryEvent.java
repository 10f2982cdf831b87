package io.cnichain.agent.loop;

import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * One event of a watched directory.
 *
 * @param directory the directory, as the agent sees it
 * @param name      the entry's name in it
 * @param kind      what happened ({@link EventKind#OVERFLOW} never appears here: it is the batch's)
 */
record DirectoryEvent(Path directory, String name, EventKind kind)
{
    DirectoryEvent
    {
        requireNonNull(directory, "directory is null");
        requireNonNull(name, "name is null");
        requireNonNull(kind, "kind is null");
    }
}
