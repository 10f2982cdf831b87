package io.cnichain.agent.loop;

import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;

/** What a watched directory reported; its lower-case name is the {@code kind} label of {@code cnichain_events_total}. */
enum EventKind
{
    /** Created, or renamed onto the name. */
    CREATE,
    MODIFY,
    /** Deleted, or renamed off the name. */
    DELETE,
    /** More events than the queue holds were lost: only a rescan of everything is safe. */
    OVERFLOW;

    /** A kind we did not register for counts as {@link #OVERFLOW}: we cannot tell what it means, so everything is rescanned. */
    static EventKind of(WatchEvent.Kind<?> kind)
    {
        if (kind == StandardWatchEventKinds.ENTRY_CREATE) {
            return CREATE;
        }
        if (kind == StandardWatchEventKinds.ENTRY_MODIFY) {
            return MODIFY;
        }
        if (kind == StandardWatchEventKinds.ENTRY_DELETE) {
            return DELETE;
        }
        return OVERFLOW;
    }
}
