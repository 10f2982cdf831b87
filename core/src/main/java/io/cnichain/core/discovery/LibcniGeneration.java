package io.cnichain.core.discovery;

/**
 * The generations of libcni whose rules for loading a configuration differ, and which nodes run side by side: the
 * agent cannot know which one the node's runtime links, so a file whose verdict depends on it is treated as possibly
 * the runtime's under either.
 */
public enum LibcniGeneration
{
    /**
     * libcni 1.1, as in Debian's containerd 1.6 (measured by the real-runtime suite): no {@code cniVersions}, no
     * {@code disableGC} or {@code loadOnlyInlinedPlugins}, and {@code disableCheck} a JSON boolean only.
     */
    V1_1("libcni 1.1 (containerd 1.6)"),
    /** libcni 1.3, read from its source: the rules the agent's parser follows by default. */
    V1_3("libcni 1.3");

    private final String description;

    LibcniGeneration(String description)
    {
        this.description = description;
    }

    public String description()
    {
        return description;
    }
}
