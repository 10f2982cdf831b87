package io.cnichain.agent.loop;

import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.util.Locale;

/** What a watched directory reported. */
enum EventKind
{
    /** An entry appeared (created, or renamed or moved onto the name). */
    CREATE,
    /** An entry's content changed. */
    MODIFY,
    /** An entry went away (deleted, or renamed or moved off the name). */
    DELETE,
    /** More events than the queue holds were lost: only a rescan of everything is safe. */
    OVERFLOW;

    /**
     * @param kind what the watch service delivered
     * @return its kind; one we did not register for counts as {@link #OVERFLOW}: we cannot tell what it means,
     *         so everything is rescanned
     */
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

    /** @return the {@code kind} label of {@code cnichain_events_total} */
    String metricLabel()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
