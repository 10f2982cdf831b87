package io.cnichain.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/** The version of a Java runtime, from its {@code release} file. */
final class JavaRuntime
{
    private JavaRuntime() {}

    static String version(Path javaHome)
    {
        Properties release = new Properties();
        try (var in = Files.newBufferedReader(javaHome.resolve("release"))) {
            release.load(in);
        }
        catch (IOException e) {
            return "unknown";
        }
        return release.getProperty("JAVA_VERSION", "unknown").replace("\"", "");
    }

    static int feature(Path javaHome)
    {
        String version = version(javaHome);
        try {
            return Integer.parseInt(version.split("[.+-]")[0]);
        }
        catch (NumberFormatException e) {
            return 0;
        }
    }
}
