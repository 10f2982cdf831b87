package io.cnichain.distribution;

import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.core.engine.DetectReport;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.engine.FileOutcome;
import io.cnichain.core.engine.InstallReport;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code adapter: auto} with every built-in adapter on the classpath, as the distribution ships them: on each
 * platform's layouts, on mixed leftovers and on ties, which adapter wins, with which scores, what it would
 * patch; then a real install patches exactly those files and uninstall takes every entry out again.
 */
@ExtendWith(TempNodeExtension.class)
class AutoDetectionTest
{
    record Case(String name, Consumer<TestNode> layout, String yaml, String chosen, Map<String, Integer> scores, List<String> targets,
                List<String> notes)
    {
        @Override
        public String toString()
        {
            return name;
        }
    }

    static Stream<Case> cases()
    {
        return Stream.of(
                new Case("Cilium with 05-cilium.conflist", n -> {
                    n.binaries("cilium-cni", "loopback");
                    n.write("05-cilium.conflist", TestNode.CILIUM);
                }, "", "cilium", scores(0, 200, 1, 0), List.of("/etc/cni/net.d/05-cilium.conflist"), List.of()),

                new Case("Cilium with a .conflist-current named in confFile and a link to it", n -> {
                    n.binaries("cilium-cni");
                    n.write("05-cilium.conflist-current", TestNode.CILIUM);
                    n.link("05-cilium.conflist", "05-cilium.conflist-current");
                }, "adapters:\n  cilium: { confFile: 05-cilium.conflist-current }\n", "cilium", scores(0, 200, 1, 10),
                        List.of("/etc/cni/net.d/05-cilium.conflist"), List.of()),

                new Case("Cilium with only a .conflist-current beside a .cilium_bak and no link", n -> {
                    n.binaries("cilium-cni");
                    n.write("05-cilium.conflist-current", TestNode.CILIUM);
                    n.write("05-cilium.conflist.cilium_bak", TestNode.CILIUM);
                }, "", "cilium", scores(0, 160, 0, 10), List.of("/etc/cni/net.d/05-cilium.conflist-current"),
                        List.of("Cilium's exclusive mode looks active: it renamed 05-cilium.conflist.cilium_bak aside")),

                new Case("Cilium with hidden temp files present", n -> {
                    n.binaries("cilium-cni");
                    n.write("05-cilium.conflist", TestNode.CILIUM);
                    n.write(".05-cilium.conflist734271", "{\"cniVersion\":");
                    n.write(".05-cilium.conflist118", TestNode.CILIUM);
                }, "", "cilium", scores(0, 200, 1, 0), List.of("/etc/cni/net.d/05-cilium.conflist"), List.of()),

                new Case("Cilium with a legacy 05-cilium.conf", n -> {
                    n.binaries("cilium-cni");
                    n.write("05-cilium.conf", TestNode.CILIUM_CONF);
                }, "", "cilium", scores(0, 200, 1, 0), List.of("/etc/cni/net.d/05-cilium.conf"), List.of()),

                new Case("OCI with a relative link", n -> {
                    n.binaries("oci-ipvlan", "oci-ptp", "oci-ipam");
                    n.write("10-oci.conflist-current", TestNode.OCI);
                    n.link("10-oci.conflist", "10-oci.conflist-current");
                }, "", "oci-vcn-native", scores(0, 0, 1, 200), List.of("/etc/cni/net.d/10-oci.conflist"), List.of()),

                new Case("OCI with an absolute link", n -> {
                    n.binaries("oci-ipvlan", "oci-ptp", "oci-ipam");
                    n.write("10-oci.conflist-current", TestNode.OCI);
                    n.link("10-oci.conflist", "/etc/cni/net.d/10-oci.conflist-current");
                }, "", "oci-vcn-native", scores(0, 0, 1, 200), List.of("/etc/cni/net.d/10-oci.conflist"), List.of()),

                new Case("OCI with no link at all", n -> {
                    n.binaries("oci-ipvlan", "oci-ptp", "oci-ipam");
                    n.write("10-oci.conflist-current", TestNode.OCI);
                }, "", "oci-vcn-native", scores(0, 0, 0, 150), List.of("/etc/cni/net.d/10-oci.conflist-current"), List.of()),

                new Case("OCI writing a regular 10-oci.conflist", n -> {
                    n.binaries("oci-ipvlan", "oci-ptp", "oci-ipam");
                    n.write("10-oci.conflist", TestNode.OCI);
                }, "", "oci-vcn-native", scores(0, 0, 1, 200), List.of("/etc/cni/net.d/10-oci.conflist"), List.of()),

                new Case("Calico with calico-kubeconfig beside its file", n -> {
                    n.binaries("calico", "calico-ipam", "portmap");
                    n.write("10-calico.conflist", TestNode.CALICO);
                    n.write("calico-kubeconfig", "apiVersion: v1\n");
                }, "", "calico", scores(210, 0, 1, 0), List.of("/etc/cni/net.d/10-calico.conflist"), List.of()),

                new Case("Calico with a partial file at the moment of the event", n -> {
                    n.binaries("calico", "calico-ipam", "portmap");
                    n.write("10-calico.conflist", "{\"name\":\"k8s-pod-network\",\"cniVersion\":\"1.0.0\",\"plugins\":[{\"type\":\"cal");
                    n.write("calico-kubeconfig", "apiVersion: v1\n");
                }, "", "calico", scores(160, 0, 0, 0), List.of("/etc/cni/net.d/10-calico.conflist"), List.of()),

                new Case("mixed leftovers: Calico's file set aside by Cilium's exclusive mode", n -> {
                    n.binaries("cilium-cni", "calico", "calico-ipam");
                    n.write("05-cilium.conflist", TestNode.CILIUM);
                    n.write("10-calico.conflist.cilium_bak", TestNode.CALICO);
                    n.write("calico-kubeconfig", "apiVersion: v1\n");
                }, "", "cilium", scores(60, 210, 1, 0), List.of("/etc/cni/net.d/05-cilium.conflist"),
                        List.of("Cilium's exclusive mode looks active: it renamed 10-calico.conflist.cilium_bak aside")),

                new Case("mixed: Cilium beside Calico's live file, the runtime loads Cilium's", n -> {
                    n.binaries("cilium-cni", "calico", "calico-ipam");
                    n.write("05-cilium.conflist", TestNode.CILIUM);
                    n.write("10-calico.conflist", TestNode.CALICO);
                }, "", "cilium", scores(150, 200, 1, 0), List.of("/etc/cni/net.d/05-cilium.conflist"), List.of()),

                new Case("mixed: Cilium chained onto OCI keeps the network name oci", n -> {
                    n.binaries("cilium-cni", "oci-ipvlan", "oci-ptp", "oci-ipam");
                    n.write("05-cilium.conflist", """
                            {"name":"oci","cniVersion":"0.3.1","plugins":[{"type":"oci-ipvlan","mode":"l2","ipam":{"type":"oci-ipam"}},\
                            {"type":"oci-ptp","containerInterface":"ptp-veth0","mtu":9000},{"type":"cilium-cni","chaining-mode":"generic-veth"}]}""");
                    n.write("10-oci.conflist", TestNode.OCI);
                }, "", "cilium", scores(0, 200, 1, 150), List.of("/etc/cni/net.d/05-cilium.conflist"), List.of()),

                new Case("tie between two platform files: the name that sorts first wins, and it is reported", n -> {
                    n.write("05-cilium.conflist-current", TestNode.CILIUM);
                    n.write("10-oci.conflist-current", TestNode.OCI);
                }, "", "cilium", scores(0, 100, 0, 100), List.of("/etc/cni/net.d/05-cilium.conflist-current"),
                        List.of("tie at score 100 between cilium, oci-vcn-native; chose cilium (ties go to the adapter name that sorts first; "
                                + "pin one with 'adapter:')")),

                new Case("tie on binaries alone: the winner finds nothing, the runtime's file is patched anyway, and the adapter that would is named", n -> {
                    n.binaries("calico", "cilium-cni");
                    n.write("10-flannel.conflist", """
                            {"name":"cbr0","cniVersion":"1.0.0","plugins":[{"type":"flannel","delegate":{"hairpinMode":true}},\
                            {"type":"portmap","capabilities":{"portMappings":true}}]}""");
                }, "", "calico", scores(50, 50, 1, 0), List.of("/etc/cni/net.d/10-flannel.conflist"),
                        List.of("tie at score 50 between calico, cilium; chose calico",
                                "adapter calico finds nothing to patch, but adapter generic-symlink would patch /etc/cni/net.d/10-flannel.conflist")),

                new Case("no platform recognised: generic-symlink follows the link", n -> {
                    n.writeAt(n.host("/etc/cni/flannel/10-flannel.conflist"), """
                            {"name":"cbr0","cniVersion":"1.0.0","plugins":[{"type":"flannel"}]}""");
                    n.link("10-flannel.conflist", "../flannel/10-flannel.conflist");
                }, "", "generic-symlink", scores(0, 0, 1, 0), List.of("/etc/cni/net.d/10-flannel.conflist"), List.of()),

                new Case("pinned adapter finds nothing while another would: it is named, and the runtime's file is patched anyway", n -> {
                    n.binaries("cilium-cni");
                    n.write("05-cilium.conflist", TestNode.CILIUM);
                }, "adapter: calico\n", "calico", scores(0, 200, 1, 0), List.of("/etc/cni/net.d/05-cilium.conflist"),
                        List.of("adapter calico finds nothing to patch, but adapter cilium would patch /etc/cni/net.d/05-cilium.conflist",
                                "adapter calico finds nothing to patch, but adapter generic-symlink would patch /etc/cni/net.d/05-cilium.conflist")),

                new Case("a list of adapters: the first that finds something wins", n -> {
                    n.binaries("cilium-cni");
                    n.write("05-cilium.conflist", TestNode.CILIUM);
                }, "adapter: [calico, cilium, generic-symlink]\n", "cilium", scores(0, 200, 1, 0),
                        List.of("/etc/cni/net.d/05-cilium.conflist"), List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void autoDetection(Case c, TestNode node)
            throws IOException
    {
        c.layout().accept(node);
        Engine engine = engine(node, c.yaml());

        DetectReport report = engine.detect();
        Map<String, Integer> scores = new LinkedHashMap<>();
        report.adapters().forEach(a -> scores.put(a.name(), a.score()));
        assertThat(scores).as("scores").isEqualTo(c.scores());
        assertThat(report.adapters()).allSatisfy(a -> assertThat(a.failure()).isEmpty());
        assertThat(report.adapters()).filteredOn(a -> a.score() > 0).allSatisfy(a -> assertThat(a.evidence()).as(a.name()).isNotEmpty());
        assertThat(report.chosen()).isEqualTo(c.chosen());
        assertThat(report.targets()).extracting(DetectReport.Target::path).isEqualTo(c.targets());
        // An adapter's warning (Cilium's exclusive mode) is a problem: it will undo our entry.
        List<String> notesAndProblems = new java.util.ArrayList<>(report.notes());
        notesAndProblems.addAll(report.problems());
        for (String note : c.notes()) {
            assertThat(notesAndProblems).anySatisfy(n -> assertThat(n).startsWith(note));
        }
        if (c.notes().stream().noneMatch(n -> n.startsWith("tie"))) {
            assertThat(report.notes()).noneMatch(n -> n.startsWith("tie"));
        }
        // Stable: the same node decides the same way every time.
        assertThat(engine.detect()).isEqualTo(report);

        InstallReport installed = engine.install();
        assertThat(installed.selection().chosen().name()).isEqualTo(c.chosen());
        if (c.name().contains("partial")) {
            assertThat(installed.outcomes()).extracting(FileOutcome::result).containsExactly(FileOutcome.Result.WAITING);
            return;
        }
        assertThat(installed.succeeded()).as(installed.toString()).isTrue();
        List<Path> patched = report.targets().stream().map(t -> patchedFile(node, t.resolvedFile())).toList();
        assertThat(filesNaming(node)).as("exactly the files detect named were patched").containsExactlyInAnyOrderElementsOf(patched);

        assertThat(engine.uninstall().succeeded()).isTrue();
        assertThat(filesNaming(node)).isEmpty();
    }

    @Test
    void tiesAreBrokenTheSameWayWhateverOrderTheAdaptersAreFoundIn(TestNode node)
    {
        node.write("05-cilium.conflist-current", TestNode.CILIUM);
        node.write("10-oci.conflist-current", TestNode.OCI);
        AdapterRegistry found = AdapterRegistry.fromClassLoader(getClass().getClassLoader());
        List<LoadedAdapter> backwards = new ArrayList<>(found.all());
        Collections.reverse(backwards);
        AdapterRegistry reversed = new AdapterRegistry(backwards, List.of());
        assertThat(new Engine(node.config(), reversed).detect().chosen()).isEqualTo("cilium");
        assertThat(new Engine(node.config(), found).detect().chosen()).isEqualTo("cilium");
    }

    private Engine engine(TestNode node, String yaml)
            throws IOException
    {
        Optional<Path> file = yaml.isEmpty() ? Optional.empty() : Optional.of(Files.writeString(Files.createDirectories(node.root().resolve("config")).resolve("cni-chain.yaml"), yaml));
        return new Engine(node.config(file), AdapterRegistry.fromClassLoader(getClass().getClassLoader()));
    }

    /** The file a target ends up as: a single-plugin .conf is converted to a .conflist beside it. */
    private static Path patchedFile(TestNode node, String target)
    {
        Path file = node.host(target);
        return Files.exists(file) || !target.endsWith(".conf") ? file : file.resolveSibling(file.getFileName() + "list");
    }

    /** Every regular file under /etc/cni that names the chained plugin. */
    private static List<Path> filesNaming(TestNode node)
    {
        try (Stream<Path> walk = Files.walk(node.host("/etc/cni"))) {
            return walk.filter(p -> Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS))
                    .filter(p -> !p.getFileName().toString().contains("kubeconfig"))
                    .filter(p -> node.readAt(p).contains("\"linkerd-cni\""))
                    .toList();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Scores by adapter name, in the registry's order; null leaves an adapter out (it was not considered). */
    private static Map<String, Integer> scores(Integer calico, Integer cilium, Integer generic, Integer oci)
    {
        Map<String, Integer> scores = new LinkedHashMap<>();
        if (calico != null) {
            scores.put("calico", calico);
        }
        if (cilium != null) {
            scores.put("cilium", cilium);
        }
        if (generic != null) {
            scores.put("generic-symlink", generic);
        }
        if (oci != null) {
            scores.put("oci-vcn-native", oci);
        }
        return scores;
    }
}
