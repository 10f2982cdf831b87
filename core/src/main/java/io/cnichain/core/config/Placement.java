package io.cnichain.core.config;

import java.util.Locale;

/**
 * Where our entry goes ({@code placement}): into the primary's list, or into a file of its own that libcni 1.3
 * appends to the list (CNI spec 1.1's plugin directory, {@code <conf dir>/<network name>/*.conf}).
 */
public enum Placement
{
    /** Our entry appended to the primary's list: every runtime runs it. */
    PATCH,
    /** Our entry in a drop-in file; the primary's list is left as it is. Only a libcni 1.3 runtime runs it. */
    DROP_IN,
    /** {@link #DROP_IN} where the node's runtime applies drop-ins, as its Node object reports it; {@link #PATCH} elsewhere. */
    AUTO;

    /** As the YAML file writes it. */
    public String yaml()
    {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
