package io.cnichain.distribution.kubernetes;

import com.marcnuri.helm.Helm;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The build's {@code helm package}: run in the package phase (distribution/pom.xml) with the chart's directory, the
 * project's version and the output directory. Refuses a chart whose version or appVersion is not the project's, so
 * that {@code cni-chain-VERSION.tgz} always holds the chart of this build, then lints it and packages it with
 * Helm's own library.
 */
public final class ChartPackager
{
    private ChartPackager() {}

    public static void main(String[] args)
            throws IOException
    {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: ChartPackager CHART_DIR VERSION OUTPUT_DIR");
        }
        Path chart = Path.of(args[0]);
        String version = args[1];
        Path output = Path.of(args[2]);
        Map<?, ?> metadata = new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(chart.resolve("Chart.yaml")));
        for (String key : new String[] {"version", "appVersion"}) {
            if (!version.equals(String.valueOf(metadata.get(key)))) {
                fail(chart.resolve("Chart.yaml") + ": " + key + " is " + metadata.get(key) + ", the project's version is " + version + " (pom.xml): change both together");
            }
        }
        var lint = new Helm(chart).lint().call();
        if (lint.isFailed()) {
            fail("helm lint " + chart + " failed: " + lint.getMessages());
        }
        Files.createDirectories(output);
        new Helm(chart).packageIt().withDestination(output).call();
        Path archive = output.resolve("cni-chain-" + version + ".tgz");
        if (!Files.isRegularFile(archive)) {
            fail("helm package did not write " + archive);
        }
    }

    private static void fail(String message)
    {
        System.err.println("[ERROR] " + message);
        System.exit(1);
    }
}
