package io.cnichain.core.engine;

import java.util.List;
import java.util.Optional;

/**
 * What {@code cni-chain detect} shows: nothing in it was changed on the node.
 *
 * @param confDir    host path of the configuration directory
 * @param binDir     host path of the binary directory
 * @param adapters   every adapter considered
 * @param chosen     the deciding adapter
 * @param why        why it decides
 * @param placement  where the entry goes: {@code patch} or {@code drop-in}
 * @param placementWhy why
 * @param effective  the configuration the runtime loads, if any
 * @param targets    the files that would be patched, and how
 * @param problems   broken files sorting first, refused links, adapter failures
 * @param notes      ties, other adapters that would patch something, platform warnings
 */
public record DetectReport(
        String confDir,
        String binDir,
        List<AdapterScore> adapters,
        String chosen,
        String why,
        String placement,
        String placementWhy,
        Optional<Effective> effective,
        List<Target> targets,
        List<String> problems,
        List<String> notes)
{
    public DetectReport
    {
        adapters = List.copyOf(adapters);
        targets = List.copyOf(targets);
        problems = List.copyOf(problems);
        notes = List.copyOf(notes);
    }

    /**
     * @param name     adapter name
     * @param origin   built-in, classpath or plugin jar, with the jar's path
     * @param state    enabled, or disabled (it threw, returned null or hung; the failure says why)
     * @param score    its score
     * @param evidence what it saw
     * @param failure  why it failed, if it did
     */
    public record AdapterScore(String name, String origin, String state, int score, List<String> evidence, Optional<String> failure) {}

    /**
     * @param path        the file the runtime loads
     * @param linkChain   the links followed
     * @param resolvedFile the regular file behind it (or why the core may not write it)
     * @param networkName the network's name
     * @param plugins     the plugin types the runtime runs, in order: the file's, then its drop-ins (libcni 1.3)
     * @param dropIns     the drop-in files libcni 1.3 appends, in order
     * @param carriesEntry whether it runs our plugin now
     */
    public record Effective(String path, List<String> linkChain, String resolvedFile, String networkName, List<String> plugins, List<String> dropIns,
                            boolean carriesEntry) {}

    /**
     * @param path   the file as the runtime sees it
     * @param resolvedFile the regular file that would be written
     * @param reason why the adapter names it
     * @param plan   what install would do to it
     */
    public record Target(String path, String resolvedFile, String reason, String plan) {}
}
