package io.cnichain.core.adapters;

import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.NodeView;
import io.cnichain.spi.ParseResult;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What an adapter gets instead of the core's snapshot: the {@link NodeView} methods and nothing else, so an
 * adapter cannot reach the engine's objects (the snapshot's loaded bytes, its layout, the writer) by a cast.
 * Adapters decide; the core writes.
 */
final class ReadOnlyNodeView
        implements NodeView
{
    private final NodeView node;

    private ReadOnlyNodeView(NodeView node)
    {
        this.node = requireNonNull(node, "node is null");
    }

    static NodeView of(NodeView node)
    {
        return node instanceof ReadOnlyNodeView ? node : new ReadOnlyNodeView(node);
    }

    @Override
    public Path confDir()
    {
        return node.confDir();
    }

    @Override
    public Path binDir()
    {
        return node.binDir();
    }

    @Override
    public List<ConfigEntry> entries()
    {
        return node.entries();
    }

    @Override
    public Optional<ConfigEntry> entry(String fileName)
    {
        return node.entry(fileName);
    }

    @Override
    public ConfigEntry inspect(Path hostPath)
    {
        return node.inspect(hostPath);
    }

    @Override
    public ParseResult parse(ConfigEntry entry)
    {
        return node.parse(entry);
    }

    @Override
    public Optional<ConfigEntry> effectiveConfig()
    {
        return node.effectiveConfig();
    }

    @Override
    public boolean hasBinary(String name)
    {
        return node.hasBinary(name);
    }

    @Override
    public boolean isNeverConfig(String fileName)
    {
        return node.isNeverConfig(fileName);
    }

    @Override
    public String toString()
    {
        return "node view of " + node.confDir();
    }
}
