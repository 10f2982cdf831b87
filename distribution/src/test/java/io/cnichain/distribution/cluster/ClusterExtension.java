package io.cnichain.distribution.cluster;

import io.cnichain.distribution.runtime.RuntimeRequirements;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Starts the kit's cluster once per run (in the root store, so JUnit closes it, {@code kit down --wipe}, when the run
 * ends), builds and imports the images the tests deploy, and after each test takes away what the test installed and
 * puts the node's CNI directories back as they were. A machine that cannot run the suite fails it: the suite is only
 * ever run on purpose.
 */
final class ClusterExtension
        implements BeforeEachCallback, AfterEachCallback, ParameterResolver
{
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ClusterExtension.class);
    /** Namespaces the kit's cluster starts with; every other one is a test's. */
    private static final Set<String> KIT_NAMESPACES = Set.of("default", "kube-system", "kube-public", "kube-node-lease");

    @Override
    public void beforeEach(ExtensionContext context)
    {
        Cluster cluster = cluster(context);
        cluster.leftovers().ifPresent(left -> {
            throw new IllegalStateException("the node is not as kit up left it before " + context.getDisplayName() + ": " + left);
        });
        Say.step("--- " + context.getRequiredTestClass().getSimpleName() + "." + context.getRequiredTestMethod().getName());
    }

    @Override
    public void afterEach(ExtensionContext context)
            throws IOException
    {
        Cluster cluster = cluster(context);
        ChartRelease release = new ChartRelease(cluster.kit().kubeconfig());
        if (release.installed()) {
            release.uninstall();
        }
        List<String> namespaces = new ArrayList<>();
        cluster.kubectl().json("get", "namespaces").path("items").forEach(item -> namespaces.add(item.path("metadata").path("name").asText()));
        namespaces.removeAll(KIT_NAMESPACES);
        if (!namespaces.isEmpty()) {
            List<String> args = new ArrayList<>(List.of("delete", "namespace", "--wait=true", "--timeout=120s"));
            args.addAll(namespaces);
            cluster.kubectl().run(args.toArray(String[]::new));
        }
        // Cluster-scoped objects of ours and of the tests: labelled, or named for the suite.
        cluster.kubectl().run("delete", "clusterrole,clusterrolebinding,validatingadmissionpolicy,validatingadmissionpolicybinding",
                "-l", "app.kubernetes.io/part-of in (cni-chain,cluster-suite)", "--ignore-not-found");
        cluster.kubectl().run("delete", "nodes,customresourcedefinitions", "-l", "app.kubernetes.io/part-of=cluster-suite", "--ignore-not-found");
        // A test that stopped before the agent lifted its start-up taint leaves it on the kit's only node.
        cluster.kubectl().run("taint", "node", cluster.kit().node(), NodeFencesClusterIT.TAINT + "-");
        cluster.restoreNode();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context)
    {
        Class<?> type = parameter.getParameter().getType();
        return type == Cluster.class || type == ChartRelease.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context)
    {
        Cluster cluster = cluster(context);
        return parameter.getParameter().getType() == Cluster.class ? cluster : new ChartRelease(cluster.kit().kubeconfig());
    }

    private static Cluster cluster(ExtensionContext context)
    {
        return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Running.class, key -> Running.start(), Running.class).cluster();
    }

    /** The cluster of this run; closed by JUnit at its end. */
    private record Running(Cluster cluster)
            implements AutoCloseable
    {
        static Running start()
        {
            Path script = Path.of(required("cnichain.kit", "the kit's command (the k8s kit's directory holds it as kit)"));
            Path linkerd = Path.of(required("cnichain.linkerdInstallers", "the directory of Linkerd's installers (linkerd-cni-install)"));
            Path image = Path.of(required("cnichain.image.tar", "the agent's image archive (mvn -Pimage package writes it)"));
            List<String> missing = new ArrayList<>();
            if (!"root".equals(System.getProperty("user.name"))) {
                missing.add("root");
            }
            for (String command : List.of("kubectl", "buildah", "jq")) {
                if (RuntimeRequirements.which(command).isEmpty()) {
                    missing.add("the command " + command);
                }
            }
            for (Path file : List.of(script, linkerd.resolve("linkerd-cni-install"), image, ChartRelease.CHART)) {
                if (!Files.isRegularFile(file)) {
                    missing.add(file.toString());
                }
            }
            if (!missing.isEmpty()) {
                throw new IllegalStateException("the cluster suite cannot run: missing " + String.join(", ", missing));
            }
            Kit kit = Kit.up(script);
            try {
                Path log = Files.createDirectories(kit.work().resolve("plugin-calls"));
                Say.step("importing " + image);
                kit.importImage(image);
                Say.step("building and importing the stand-in of Linkerd's cni-plugin image");
                StandInImages.build(kit, linkerd, log);
                return new Running(new Cluster(kit, new PluginCalls(log)));
            }
            catch (IOException | RuntimeException e) {
                kit.close();
                throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
            }
        }

        private static String required(String property, String what)
        {
            String value = System.getProperty(property, "");
            if (value.isEmpty()) {
                throw new IllegalStateException("the cluster suite needs -D" + property + ": " + what + " (scripts/test-cluster sets it)");
            }
            return value;
        }

        @Override
        public void close()
        {
            cluster.kit().close();
        }
    }
}
