package io.cnichain.core.patch;

import static java.util.Objects.requireNonNull;

/** What to do to one configuration file, decided without touching it. */
public sealed interface PatchPlan
{
    /** Nothing to write. */
    record Unchanged(String reason)
            implements PatchPlan
    {
        public Unchanged
        {
            requireNonNull(reason, "reason is null");
        }
    }

    /** Replace the file's content. */
    record Rewrite(byte[] content)
            implements PatchPlan
    {
        public Rewrite
        {
            requireNonNull(content, "content is null");
        }
    }

    /**
     * Write {@code content} to a sibling file named {@code newName}, then delete the original: the runtime
     * never sees a list under a {@code .conf} name, and never sees a moment without a configuration.
     */
    record Replace(String newName, byte[] content)
            implements PatchPlan
    {
        public Replace
        {
            requireNonNull(newName, "newName is null");
            requireNonNull(content, "content is null");
        }
    }

    /**
     * The file cannot be patched; it is left as it is.
     *
     * @param reason why, one line
     * @param cause  whether the runtime loads the file at all
     */
    record Refused(String reason, Cause cause)
            implements PatchPlan
    {
        public Refused
        {
            requireNonNull(reason, "reason is null");
            requireNonNull(cause, "cause is null");
        }

        /** Why a file is refused. */
        public enum Cause
        {
            /** The runtime does not load it either: nothing in it runs. */
            UNLOADABLE,
            /** The runtime loads it, but we cannot change it safely. */
            CANNOT_EDIT,
            /** Beyond what the agent reads (too many JSON values): the runtime may well load it; we cannot tell. */
            BEYOND_OUR_LIMITS,
        }
    }
}
