package io.cnichain.testkit;

import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.engine.DetectReport;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.engine.FileOutcome;
import io.cnichain.core.engine.InstallReport;
import io.cnichain.core.engine.UninstallReport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Golden tests of a whole node layout: the real {@link Engine} runs detect, install and uninstall on a
 * {@link TestNode}, and after each step the decision, the outcome per file, the conf dir's listing (links with
 * their text) and the content of every configuration are compared with {@code <step>.golden}. The temp root is
 * shown as {@code $ROOT} so the files do not depend on where the test runs. Kubeconfigs are listed, not shown.
 */
public final class NodeGolden
{
    private final TestNode node;
    private final Engine engine;
    private final Path directory;

    private NodeGolden(TestNode node, Engine engine, Path directory)
    {
        this.node = node;
        this.engine = engine;
        this.directory = directory;
    }

    /**
     * @param node      the node, already laid out
     * @param yaml      the agent's YAML configuration (for example {@code "adapter: cilium"})
     * @param goldenDir the directory under {@code src/test/resources} that holds this layout's golden files
     * @return the runner
     */
    public static NodeGolden start(TestNode node, String yaml, String... goldenDir)
    {
        try {
            Path file = Files.writeString(Files.createDirectories(node.root().resolve("config")).resolve("cni-chain.yaml"), yaml);
            Engine engine = new Engine(node.config(Optional.of(file)), AdapterRegistry.fromClassLoader(NodeGolden.class.getClassLoader()));
            return new NodeGolden(node, engine, Golden.resource(goldenDir));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Engine engine()
    {
        return engine;
    }

    /**
     * Runs detect (which changes nothing) and checks it with the layout against {@code <step>.golden}.
     *
     * @return the report
     */
    public DetectReport detect(String step)
    {
        DetectReport report = engine.detect();
        StringBuilder out = new StringBuilder("$ cni-chain detect\n");
        for (DetectReport.AdapterScore adapter : report.adapters()) {
            out.append("adapter   ").append(adapter.name()).append(" score ").append(adapter.score()).append('\n');
            adapter.evidence().forEach(e -> out.append("            - ").append(e).append('\n'));
            adapter.failure().ifPresent(f -> out.append("            ! ").append(f).append('\n'));
        }
        out.append("chosen    ").append(report.chosen()).append(" (").append(report.why()).append(")\n");
        report.effective().ifPresent(e -> out.append("effective ").append(e.path())
                .append(e.linkChain().isEmpty() ? "" : " -> " + e.resolvedFile()).append('\n'));
        for (DetectReport.Target target : report.targets()) {
            out.append("target    ").append(target.path()).append(target.path().equals(target.resolvedFile()) ? "" : " -> " + target.resolvedFile()).append('\n');
            out.append("            why  ").append(target.reason()).append('\n');
            out.append("            plan ").append(target.plan()).append('\n');
        }
        report.problems().forEach(p -> out.append("problem   ").append(p).append('\n'));
        report.notes().forEach(n -> out.append("note      ").append(n).append('\n'));
        check(step, out);
        return report;
    }

    /**
     * Runs one install pass and checks its outcome and the node afterwards against {@code <step>.golden}.
     *
     * @return the report
     */
    public InstallReport install(String step)
    {
        InstallReport report = engine.install();
        StringBuilder out = new StringBuilder("$ cni-chain install\n");
        out.append("adapter   ").append(report.selection().chosen().name()).append(" (").append(report.selection().why()).append(")\n");
        report.selection().notes().forEach(n -> out.append("note      ").append(n).append('\n'));
        outcomes(out, report.outcomes());
        report.binaries().forEach(b -> out.append("binary    ").append(b).append('\n'));
        if (report.kubeconfig()) {
            out.append("kubeconfig written\n");
        }
        report.failure().ifPresent(f -> out.append("failure   ").append(f).append('\n'));
        out.append(report.succeeded() ? "succeeded\n" : "did not succeed\n");
        check(step, out);
        return report;
    }

    /**
     * Runs uninstall and checks its outcome and the node afterwards against {@code <step>.golden}.
     *
     * @return the report
     */
    public UninstallReport uninstall(String step)
    {
        UninstallReport report = engine.uninstall();
        StringBuilder out = new StringBuilder("$ cni-chain uninstall\n");
        outcomes(out, report.outcomes());
        if (report.kubeconfigRemoved()) {
            out.append("kubeconfig removed\n");
        }
        report.binariesRemoved().forEach(b -> out.append("binary    removed ").append(b).append('\n'));
        report.failures().forEach(f -> out.append("failure   ").append(f).append('\n'));
        out.append(report.succeeded() ? "succeeded\n" : "did not succeed\n");
        check(step, out);
        return report;
    }

    /**
     * @return the conf dir and bin dir listings and every configuration's content, as the golden files show them
     */
    public String layout()
    {
        StringBuilder out = new StringBuilder();
        Path confDir = node.confDir();
        out.append(TestNode.CONF_DIR).append('\n');
        List<Path> files = new ArrayList<>();
        for (Path entry : sorted(confDir)) {
            String name = entry.getFileName().toString();
            out.append("  ").append(name);
            if (Files.isSymbolicLink(entry)) {
                out.append(" -> ").append(TestNode.readLink(entry));
            }
            else if (Files.isDirectory(entry)) {
                out.append("/ (").append(sorted(entry).size()).append(" entries)");
            }
            else if (name.toLowerCase().contains("kubeconfig")) {
                out.append(" (kubeconfig, not shown)");
            }
            else {
                files.add(entry);
            }
            out.append('\n');
        }
        out.append(TestNode.BIN_DIR).append('\n');
        sorted(node.binDir()).forEach(p -> out.append("  ").append(p.getFileName()).append('\n'));
        for (Path file : files) {
            out.append("=== ").append(file.getFileName()).append('\n');
            String content = node.readAt(file);
            out.append(content).append(content.endsWith("\n") || content.isEmpty() ? "" : "\n(no newline at end)\n");
        }
        return out.toString();
    }

    private void outcomes(StringBuilder out, List<FileOutcome> outcomes)
    {
        for (FileOutcome outcome : outcomes) {
            out.append("outcome   ").append(outcome.result()).append(' ').append(outcome.path()).append(": ").append(outcome.detail()).append('\n');
        }
    }

    private void check(String step, StringBuilder out)
    {
        out.append('\n').append(layout());
        Golden.check(directory.resolve(step + ".golden"), out.toString().replace(node.root().toString(), "$ROOT"));
    }

    private static List<Path> sorted(Path directory)
    {
        try (Stream<Path> list = Files.list(directory)) {
            return list.sorted((a, b) -> NodeSnapshot.BYTE_ORDER.compare(a.getFileName().toString(), b.getFileName().toString())).toList();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
