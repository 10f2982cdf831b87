package io.cnichain.core.config;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The start-up taint the agent removes from its own node once the chained plugin is in place, so that no pod is
 * scheduled there before it (see {@code io.cnichain.agent.taint.NodeTaintRemover}).
 *
 * @param enabled  whether the agent removes the taint at all (off by default)
 * @param key      the taint's key; every taint with this key is removed, whatever its value and effect
 * @param nodeName this node's name ({@code NODE_NAME}, from the downward API); present whenever {@code enabled}
 */
public record NodeTaintSettings(boolean enabled, String key, Optional<String> nodeName)
{
    public NodeTaintSettings
    {
        requireNonNull(key, "key is null");
        requireNonNull(nodeName, "nodeName is null");
        if (enabled && nodeName.isEmpty()) {
            throw new IllegalArgumentException("removing the node taint needs the node's name");
        }
    }
}
