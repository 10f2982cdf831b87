package io.cnichain.spi;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Platform knowledge for cni-chain: which CNI configuration files on a node are authoritative (the ones
 * the primary network plugin owns and the container runtime loads), and what the agent should know about
 * the platform's habits.
 *
 * <p>An adapter only <em>decides</em>. It never writes files, never resolves links itself and never parses
 * JSON itself: the core hands it a read-only {@link NodeView} with every fact already established, and the core
 * does every write. Adapters must be stateless and thread-safe, must not block, must not start threads, and must
 * return quickly: the core calls them on every reconcile, each call with a time limit (a few seconds). An adapter
 * that throws anything but an {@link AdapterException}, returns {@code null}, or does not return within the limit
 * is disabled and reported once, and the agent goes on with the other adapters; throw {@link AdapterException}
 * for a problem the adapter understood (it does not disable the adapter).
 *
 * <p>Adapters are found by {@link java.util.ServiceLoader}: list the implementation class in
 * {@code META-INF/services/io.cnichain.spi.CniPlatformAdapter}. The same file serves adapters built into the
 * agent and adapters shipped as plugin jars in the agent's plugins directory. An implementation needs a public
 * no-argument constructor. A plugin jar declares {@code Plugin-Id}, {@code Plugin-Version} and
 * {@code Plugin-Requires} (the range of {@link SpiVersion SPI versions} it was built for) in its manifest,
 * depends on this SPI with scope {@code provided}, and sees only its own classes, this package, the SLF4J API and
 * the JDK: it must bundle any library it uses.
 *
 * <p>Every method with a default may be left alone; new optional capabilities arrive as new default methods,
 * so an adapter built against an older SPI of the same major version keeps working.
 */
public interface CniPlatformAdapter
{
    /**
     * The stable identifier of this adapter, used in configuration ({@code adapter: cilium}) and in logs.
     * Lower case letters, digits and dashes; never changes between releases.
     *
     * @return the adapter's name, for example {@code "generic-symlink"}
     */
    String name();

    /**
     * One line saying what platform this adapter knows, shown by {@code cni-chain adapters}.
     *
     * @return a short human-readable description
     */
    default String description()
    {
        return name();
    }

    /**
     * The setting keys this adapter understands under {@code adapters.<name>} in the YAML configuration.
     * The core rejects any other key with an error that names the adapter and the key, so a typo never
     * passes silently.
     *
     * @return the accepted keys; empty when the adapter takes no settings
     */
    default Set<String> settingNames()
    {
        return Set.of();
    }

    /**
     * Scores how well this adapter matches the node, for automatic selection. A score of zero means "this is
     * not my platform". The adapter with the highest score wins; the evidence is shown to the operator by
     * {@code cni-chain detect}, so each item should name the file or binary it saw.
     *
     * <p>Suggested scale: 100 and more when the platform's own configuration file is present, 50 for its
     * binaries or plugin types seen inside a configuration, 10 for weak hints such as leftovers.
     *
     * @param node read-only facts about the node
     * @return the score and the evidence behind it; {@link Detection#none()} when nothing matched
     */
    Detection detect(NodeView node);

    /**
     * The configuration files to patch on this node, in the order they should be patched. Each target names
     * the file as seen in the configuration directory and the regular file it resolves to; use the
     * {@link ConfigEntry} objects of the {@link NodeView}, which already carry the resolution. Return an empty
     * list when there is nothing to patch (for example before the primary network plugin has written its file):
     * the core then creates nothing.
     *
     * @param node     read-only facts about the node
     * @param settings this adapter's settings from the configuration, already checked against
     *                 {@link #settingNames()}
     * @return the files to patch, possibly empty
     * @throws AdapterException when a setting is unusable
     */
    List<ConfigTarget> authoritativeConfigs(NodeView node, AdapterSettings settings);

    /**
     * Whether a file name in the configuration directory is never a configuration on this platform, in
     * addition to the core's own rules (dot-files, {@code *.tmp}, {@code *.cilium_bak}, kubeconfigs and so on).
     * The agent ignores events on such names.
     *
     * @param fileName a file name (no directory)
     * @return {@code true} to ignore the name; the default ignores nothing beyond the core's rules
     */
    default boolean ignores(String fileName)
    {
        return false;
    }

    /**
     * Directories outside the configuration directory that the agent should watch on this platform, for
     * example a directory where the platform prepares its file before moving it into place. Directories of
     * symlink targets are watched by the core already.
     *
     * @param node     read-only facts about the node
     * @param settings this adapter's settings
     * @return host paths of extra directories to watch; empty by default
     */
    default Set<Path> watchDirectories(NodeView node, AdapterSettings settings)
    {
        return Set.of();
    }

    /**
     * Whether a target that parses is complete enough to patch. Some platforms write their file in several
     * steps; an adapter that knows what a finished file looks like can tell the core to wait for the next
     * change instead of patching a file the platform is still writing. The core never patches a file that
     * does not parse, whatever this method says.
     *
     * @param target the file about to be patched
     * @param config what the core parsed from it
     * @return a reason to wait, or empty when the file may be patched (the default)
     */
    default Optional<String> incompleteReason(ConfigTarget target, CniConfig config)
    {
        return Optional.empty();
    }

    /**
     * Warnings about the node that an operator should see in {@code cni-chain detect}, for example a mode of
     * the platform that fights chained plugins.
     *
     * @param node read-only facts about the node
     * @return human-readable warnings; empty by default
     */
    default List<String> warnings(NodeView node)
    {
        return List.of();
    }

    /**
     * What the operator should change when another writer keeps undoing the agent's patch on this platform,
     * printed when the agent backs off from such a fight.
     *
     * @return a one-line hint naming the platform setting to change; empty by default
     */
    default Optional<String> fightHint()
    {
        return Optional.empty();
    }
}
