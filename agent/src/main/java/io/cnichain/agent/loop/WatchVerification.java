package io.cnichain.agent.loop;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * What the periodic check of the watches ({@link DirectoryWatches#verify}) found.
 *
 * @param repairs   what it repaired
 * @param unsettled the directories whose difference it left for the next look (its event may be on its way)
 */
record WatchVerification(List<Repair> repairs, Set<Path> unsettled)
{
    WatchVerification
    {
        repairs = List.copyOf(repairs);
        unsettled = Set.copyOf(unsettled);
    }

    /**
     * One thing the periodic check repaired.
     *
     * @param directory the directory, as the agent sees it
     * @param why       what was wrong, said after its name
     */
    record Repair(Path directory, String why) {}
}
