package io.cnichain.distribution.kubernetes;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The chart at {@code distribution/helm/cni-chain}, linted and rendered by Helm's own library (helm-java embeds
 * Helm's Go code), as {@code helm template cni-chain CHART -n cni-chain -f FILE --set K=V} renders it.
 */
final class HelmChart
{
    /** The chart's directory. */
    static final Path DIR = Path.of(System.getProperty("cnichain.helm", "helm/cni-chain")).toAbsolutePath();
    /** The release's namespace the tests render into, as the docs' command installs it. */
    static final String NAMESPACE = "cni-chain";

    /** A linkerd2-cni values file setting every key of that chart to a value other than its default. */
    static final Path LINKERD_VALUES = resource("helm/linkerd2-cni-values.yaml");

    private HelmChart() {}

    static LintResult lint()
    {
        return new Helm(DIR).lint().call();
    }

    /**
     * @param valuesFiles {@code -f}, in order
     * @param sets        {@code --set}, applied after the files
     * @return the rendered YAML
     */
    static String template(List<Path> valuesFiles, Map<String, Object> sets)
    {
        return template(NAMESPACE, valuesFiles, sets);
    }

    /** @param namespace the release's namespace ({@code helm install -n}) */
    static Rendered render(String namespace, Map<String, Object> sets)
    {
        return new Rendered(KubernetesObjects.parse(template(namespace, List.of(), sets)));
    }

    private static String template(String namespace, List<Path> valuesFiles, Map<String, Object> sets)
    {
        TemplateCommand command = new Helm(DIR).template().withName("cni-chain").withNamespace(namespace);
        for (Path file : valuesFiles) {
            command = command.withValuesFile(file);
        }
        for (Map.Entry<String, Object> set : sets.entrySet()) {
            command = command.set(set.getKey(), set.getValue());
        }
        return command.call();
    }

    /** Rendered and parsed into the object model. */
    static Rendered render(List<Path> valuesFiles, Map<String, Object> sets)
    {
        return new Rendered(KubernetesObjects.parse(template(valuesFiles, sets)));
    }

    static Rendered render(Map<String, Object> sets)
    {
        return render(List.of(), sets);
    }

    private static Path resource(String name)
    {
        try {
            return Path.of(HelmChart.class.getClassLoader().getResource(name).toURI());
        }
        catch (java.net.URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("no test resource " + name, e);
        }
    }
}
