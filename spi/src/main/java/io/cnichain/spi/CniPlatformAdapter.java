package io.cnichain.spi;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Platform knowledge for cni-chain: which CNI configuration files on a node are authoritative (the ones the primary
 * network plugin owns), how to recognise the platform, and its habits.
 *
 * <p><b>An adapter only decides.</b> It never writes files, never resolves links and never parses JSON itself: the
 * core hands it a read-only {@link NodeView} with every fact already established, and the core does every write.
 * Whatever an adapter returns, the core also patches the configuration the runtime really loads (the
 * {@link NodeView#effectiveConfig() effective configuration}): an adapter adds files to patch, it never takes that one
 * away.
 *
 * <p><b>Calls.</b> Adapters must be stateless and thread-safe, must not block, sleep or start threads, and must
 * return quickly: the core calls them on every reconcile. An adapter from a plugin jar or elsewhere on the class path is
 * called on a thread of the core's, each call with a time limit (5 s); the agent's built-in adapters are called on its
 * reconcile thread. An adapter that throws anything but an {@link AdapterException}, returns {@code null}, or does not
 * return within the limit is disabled and reported once, and the agent goes on with the other adapters. Throw
 * {@link AdapterException} for a problem the adapter understood: an unusable setting
 * ({@link AdapterException.Code#INVALID_SETTING}, reported as a configuration error), a file that does not resolve, and
 * so on; it does not disable the adapter.
 *
 * <p><b>Finding adapters.</b> List the implementation class in
 * {@code META-INF/services/io.cnichain.spi.CniPlatformAdapter}; it needs a public constructor without arguments. The
 * same file serves adapters on the agent's class path ({@link java.util.ServiceLoader}) and adapters shipped as plugin
 * jars in the agent's plugins directory (pf4j). A plugin jar declares {@code Plugin-Id}, {@code Plugin-Version} and
 * {@code Plugin-Requires} (the range of {@link SpiVersion SPI versions} it was built for) in its manifest and depends
 * on this SPI with scope {@code provided}.
 *
 * <p><b>What a plugin sees.</b> Its own jar first (classes and, in a pf4j zip, {@code lib/*.jar}), then exactly three
 * things from outside: this package {@code io.cnichain.spi}, the SLF4J API ({@code org.slf4j}, version 2) whose lines
 * go to the agent's log, and the JDK's platform modules. Nothing else of the agent (no Jackson, no SnakeYAML, no
 * pf4j, no core classes): bundle any library it uses.
 *
 * <p><b>Settings.</b> Every method that decides receives the adapter's {@link AdapterSettings}, already checked
 * against {@link #settingNames()}.
 *
 * <p>Every method with a default may be left alone. New optional capabilities arrive as new default methods, so an
 * adapter built against an older SPI of the same major version keeps working (see {@link SpiVersion}).
 */
public interface CniPlatformAdapter
{
    /**
     * The stable identifier of this adapter, used in configuration ({@code adapter: cilium}) and in logs.
     * Lower-case letters, digits and dashes; never changes between releases.
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
     * The setting keys this adapter understands under {@code adapters.<name>} in the YAML configuration. The core
     * rejects any other key with an error that names the adapter and the key, so a typo never passes silently.
     *
     * @return the accepted keys; empty when the adapter takes no settings
     */
    default Set<String> settingNames()
    {
        return Set.of();
    }

    /**
     * Scores how well this adapter matches the node, for automatic selection: add up the published weights of
     * {@link Detection} ({@link Detection#PLATFORM_FILE}, {@link Detection#PLATFORM_BINARY},
     * {@link Detection#PLATFORM_PLUGIN_LOADED}, {@link Detection#HINT}) for what you saw, with one item of evidence
     * each, naming the file or binary; {@code cni-chain detect} shows them to the operator. Zero means "not my
     * platform".
     *
     * @param node     read-only facts about the node
     * @param settings this adapter's settings
     * @return the score and the evidence behind it; {@link Detection#none()} when nothing matched
     */
    Detection detect(NodeView node, AdapterSettings settings);

    /**
     * The configuration files the platform owns on this node, in the order they should be patched: entries of the
     * {@link NodeView}, which carry their resolution. Return an empty list when there is nothing (for example before
     * the primary network plugin has written its file): the core then creates nothing.
     *
     * @param node     read-only facts about the node
     * @param settings this adapter's settings
     * @return the files to patch, possibly empty
     * @throws AdapterException when a setting is unusable ({@link AdapterException.Code#INVALID_SETTING})
     */
    List<ConfigTarget> authoritativeConfigs(NodeView node, AdapterSettings settings);

    /**
     * Directories outside the configuration directory that the agent should watch on this platform, for example a
     * directory where the platform prepares its file before moving it into place. The core already watches the
     * configuration directory and the directory of every file and link on the way to what it patches.
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
     * Whether a file that parses is complete enough to patch. Some platforms write their file in several steps; an
     * adapter that knows what a finished file looks like can tell the core to wait for the next change instead of
     * patching a file the platform is still writing. The core never patches a file that does not parse, whatever this
     * method says, and asks only about files this adapter named.
     *
     * @param target   the file about to be patched
     * @param config   what the core parsed from it
     * @param settings this adapter's settings
     * @return a reason to wait, or empty when the file may be patched (the default)
     */
    default Optional<String> incompleteReason(ConfigTarget target, CniConfig config, AdapterSettings settings)
    {
        return Optional.empty();
    }

    /**
     * Warnings about the node that an operator should see in {@code cni-chain detect} and in the agent's log, for
     * example a mode of the platform that fights chained plugins.
     *
     * @param node     read-only facts about the node
     * @param settings this adapter's settings
     * @return human-readable warnings; empty by default
     */
    default List<String> warnings(NodeView node, AdapterSettings settings)
    {
        return List.of();
    }

    /**
     * What the operator should change when another writer keeps undoing the agent's patch on this platform, printed
     * when the agent backs off from such a fight.
     *
     * @return a one-line hint naming the platform setting to change; empty by default
     */
    default Optional<String> fightHint()
    {
        return Optional.empty();
    }
}
