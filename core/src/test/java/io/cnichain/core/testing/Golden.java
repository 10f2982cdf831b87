package io.cnichain.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Golden files: {@code -Dgolden.update=true} rewrites them from the current output (review the diff before
 * committing); otherwise the output must match them byte for byte.
 */
public final class Golden
{
    public static final boolean UPDATE = Boolean.getBoolean("golden.update");

    private Golden() {}

    /**
     * @param golden the golden file in the test resources (source tree path)
     * @param actual the output
     */
    public static void check(Path golden, String actual)
    {
        try {
            if (UPDATE) {
                Files.createDirectories(golden.getParent());
                Files.writeString(golden, actual);
                return;
            }
            assertThat(golden).as("golden file %s is missing; run with -Dgolden.update=true to create it", golden).exists();
            assertThat(actual).as("output differs from %s (run with -Dgolden.update=true to accept the new output)", golden)
                    .isEqualTo(Files.readString(golden));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param module the module directory (surefire's {@code basedir})
     * @param parts  the path under {@code src/test/resources}
     * @return the golden file's path in the source tree
     */
    public static Path resource(String... parts)
    {
        Path path = Path.of(System.getProperty("basedir", "."), "src", "test", "resources");
        for (String part : parts) {
            path = path.resolve(part);
        }
        return path;
    }
}
