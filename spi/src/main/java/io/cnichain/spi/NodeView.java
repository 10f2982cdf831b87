package io.cnichain.spi;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Read-only facts about a node, established by the core, so that no adapter re-implements symlink
 * resolution, size limits or parsing. It offers no way to change the node, and an adapter must not look for one:
 * all writes go through the core. A view is a snapshot taken for one reconcile; it does not change
 * while an adapter looks at it. Paths are host paths (as the node sees them, for example
 * {@code /etc/cni/net.d/10-oci.conflist}), whatever directory the agent's container mounts the host under.
 */
public interface NodeView
{
    /**
     * @return the host path of the CNI configuration directory the runtime reads
     */
    Path confDir();

    /**
     * @return the host path of the CNI binary directory
     */
    Path binDir();

    /**
     * Every entry of the configuration directory, sorted by the bytes of the name (the order the runtime
     * uses), links resolved. Includes entries that are never configurations; see
     * {@link ConfigEntry#runtimeLoadable()}.
     *
     * @return the entries, possibly empty (also when the directory does not exist)
     */
    List<ConfigEntry> entries();

    /**
     * @param fileName a file name in the configuration directory
     * @return the entry with that name, when it exists
     */
    Optional<ConfigEntry> entry(String fileName);

    /**
     * Resolves any host path with the same rules as the entries of the configuration directory, for a file
     * an adapter knows about elsewhere.
     *
     * @param hostPath a host path
     * @return the entry; its problem says why when it does not resolve (also when it does not exist)
     */
    ConfigEntry inspect(Path hostPath);

    /**
     * Reads and validates an entry's target with the container runtime's rules. The result is cached for
     * the life of the view. Never blocks on a FIFO and never reads more than the core's size limit.
     *
     * @param entry an entry of this view
     * @return the parse result
     */
    ParseResult parse(ConfigEntry entry);

    /**
     * The configuration the container runtime would load: the first {@link ConfigEntry#runtimeLoadable()
     * runtime-loadable} entry in byte order whose file parses as a valid configuration. The runtime reads a
     * link whose target lies outside the allowed roots, so such an entry can be the effective configuration
     * although the core will not write it: check {@link ConfigEntry#resolves()}.
     *
     * @return the effective configuration, when there is one
     */
    Optional<ConfigEntry> effectiveConfig();

    /**
     * @param name a binary name, for example {@code "cilium-cni"}
     * @return whether a file of that name exists in the binary directory
     */
    boolean hasBinary(String name);

    /**
     * @param fileName a file name
     * @return whether the name is never a configuration on any platform: the runtime does not load it (its extension
     *         is not {@code .conf}, {@code .conflist} or {@code .json}) and it is a hidden file, a backup
     *         ({@code *.cilium_bak}, {@code *.bak}, {@code *.old}...), a temp file ({@code *.tmp}) or a kubeconfig
     */
    boolean isNeverConfig(String fileName);
}
