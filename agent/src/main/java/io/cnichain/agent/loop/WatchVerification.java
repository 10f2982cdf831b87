package io.cnichain.agent.loop;

import java.nio.file.Path;
import java.util.List;

/**
 * What the periodic check of the watches ({@link DirectoryWatches#verify}) found.
 *
 * @param repairs   what it repaired
 * @param unsettled whether it left a difference for being too recent
 */
record WatchVerification(List<Repair> repairs, boolean unsettled)
{
    WatchVerification
    {
        repairs = List.copyOf(repairs);
    }

    /**
     * One thing the periodic check repaired.
     *
     * @param directory the directory, as the agent sees it
     * @param why       what was wrong, said after its name
     */
    record Repair(Path directory, String why) {}
}
