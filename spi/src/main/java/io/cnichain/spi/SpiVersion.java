package io.cnichain.spi;

/**
 * The version of this SPI. A plugin jar states in its manifest ({@code Plugin-Requires}) the range of SPI
 * versions it was built for; the agent refuses a plugin whose range does not contain {@link #CURRENT}.
 *
 * <p>Versioning rule: the major version changes only when an existing method or type changes incompatibly;
 * the minor version changes when something is added (a default method, a new record component is not
 * allowed). An adapter built against {@code 1.x} declares {@code Plugin-Requires: >=1.0.0 & <2.0.0}.
 */
public final class SpiVersion
{
    /** The SPI version of this build. */
    public static final String CURRENT = "1.0.0";

    private SpiVersion() {}
}
