package io.cnichain.core.config;

import static java.util.Objects.requireNonNull;

/**
 * The agent's own pod and node, from the downward API ({@code POD_NAMESPACE}, {@code POD_NAME}, {@code NODE_NAME}).
 *
 * @param namespace the pod's namespace
 * @param pod       the pod's name
 * @param node      the node it runs on
 */
public record PodIdentity(String namespace, String pod, String node)
{
    public PodIdentity
    {
        requireNonNull(namespace, "namespace is null");
        requireNonNull(pod, "pod is null");
        requireNonNull(node, "node is null");
    }
}
