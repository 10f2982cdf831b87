package io.cnichain.spi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The version of this SPI, written into the jar by the build (the {@code spi.version} property of the parent POM),
 * separate from the agent's release version. A plugin jar states in its manifest ({@code Plugin-Requires}) the
 * range of SPI versions it was built for; the agent refuses a plugin whose range does not contain {@link #CURRENT}.
 *
 * <p>Compatibility rule: within one major version, the SPI only grows. A minor release may add default methods,
 * new types, new constants and new enum values that adapters receive (never ones they must return); it never
 * removes or changes a method, a record component or a type. Anything else is a new major version. An adapter
 * built against {@code 1.x} declares {@code Plugin-Requires: >=1.0.0 & <2.0.0}.
 */
public final class SpiVersion
{
    private static final Pattern SEMVER = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+)");

    /** The SPI version of this build, {@code MAJOR.MINOR.PATCH}. */
    public static final String CURRENT = load();

    /** The major version of {@link #CURRENT}. */
    public static final int MAJOR = Integer.parseInt(CURRENT.substring(0, CURRENT.indexOf('.')));

    /** The range a plugin built against this SPI declares: {@code >=CURRENT & <MAJOR+1.0.0}. */
    public static final String COMPATIBLE_RANGE = ">=" + MAJOR + ".0.0 & <" + (MAJOR + 1) + ".0.0";

    private SpiVersion() {}

    private static String load()
    {
        try (InputStream in = SpiVersion.class.getResourceAsStream("spi-version.properties")) {
            if (in == null) {
                throw new IllegalStateException("spi-version.properties is missing from the SPI jar");
            }
            Properties properties = new Properties();
            properties.load(in);
            String version = properties.getProperty("version", "");
            if (!SEMVER.matcher(version).matches()) {
                throw new IllegalStateException("spi-version.properties holds '" + version + "', not MAJOR.MINOR.PATCH");
            }
            return version;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
