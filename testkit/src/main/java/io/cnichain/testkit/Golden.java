package io.cnichain.testkit;

import org.opentest4j.AssertionFailedError;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Golden files: the output of a step compared byte for byte with a file in the test resources. Run the tests with
 * {@code -Dgolden.update=true} to rewrite the files from the current output, then review the diff before committing.
 */
public final class Golden
{
    /** Whether this run rewrites golden files instead of comparing with them ({@code -Dgolden.update=true}). */
    public static final boolean UPDATE = Boolean.getBoolean("golden.update");

    private Golden() {}

    /**
     * @param golden the golden file in the source tree (see {@link #resource})
     * @param actual the output
     * @throws AssertionFailedError when the output differs (an IDE shows the two side by side) or the file is missing
     */
    public static void check(Path golden, String actual)
    {
        try {
            if (UPDATE) {
                Files.createDirectories(golden.getParent());
                Files.writeString(golden, actual);
                return;
            }
            if (!Files.exists(golden)) {
                throw new AssertionFailedError("golden file " + golden + " is missing; run with -Dgolden.update=true to create it");
            }
            String expected = Files.readString(golden);
            if (!expected.equals(actual)) {
                throw new AssertionFailedError("output differs from " + golden + " (run with -Dgolden.update=true to accept the new output)",
                        expected, actual);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param parts the path under {@code src/test/resources} of the module under test (Maven's surefire sets
     *              {@code basedir}; without it the working directory is taken for the module)
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
