package io.cnichain.cli;

import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ConfigLoader;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.engine.InstallReport;
import io.cnichain.cli.logging.ConsoleLogging;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

@Command(
        mixinStandardHelpOptions = true,
        name = "demo",
        header = "Try it on a sandboxed node in a temp directory.",
        description = "Lays out a node in a temp directory, runs detect and install on it, and shows what was decided "
                + "and a before/after diff. Touches nothing outside the sandbox.")
final class DemoCommand
        implements Callable<Integer>
{
    @ParentCommand
    CniChainCli parent;

    @Option(names = "--platform", paramLabel = "PLATFORM", defaultValue = "symlink",
            description = "The layout: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).", converter = PlatformConverter.class,
            completionCandidates = PlatformCandidates.class)
    DemoNode platform;

    @Option(names = "--keep", description = "Keep the sandbox and print its path.")
    boolean keep;

    /** @return the launcher that runs this process (the distribution's bin/cni-chain), or its usual name */
    private static String launcher()
    {
        String home = System.getProperty("cnichain.home");
        return home == null ? "cni-chain" : Path.of(home, "bin", "cni-chain").toString();
    }

    @Override
    public Integer call()
            throws IOException
    {
        PrintStream out = parent.context.out();
        Path root = Files.createTempDirectory("cni-chain-demo-");
        PrintStream previousLog = ConsoleLogging.stream();
        try {
            platform.create(root);
            Path hostRoot = root.resolve("host");
            Map<String, String> env = Map.of(
                    "CONTAINER_CNI_BIN_DIR", root.resolve("image/opt/cni/bin").toString(),
                    "KUBERNETES_SERVICE_HOST", "10.96.0.1",
                    "KUBERNETES_SERVICE_PORT", "443");
            Map<String, String> flags = new LinkedHashMap<>(Map.of(
                    "--host-root", hostRoot.toString(),
                    "--service-account-dir", root.resolve("serviceaccount").toString(),
                    "--log-level", "info",
                    "--log-format", "text"));
            platform.adapter().ifPresent(adapter -> flags.put("--adapter", adapter));
            AgentConfig config = ConfigLoader.load(Optional.empty(), env, flags);
            ConsoleLogging.configure(config.log().level(), config.log().format());
            // The demo is a story told on standard output: its log lines belong in it, in order.
            ConsoleLogging.redirect(out);
            config.log().sayNotices();
            Engine engine = new Engine(config, AgentCommand.registry(config));

            Path confDir = hostRoot.resolve("etc/cni/net.d");
            Path focus = confDir.resolve(platform.focus());
            String before = Files.readString(focus);
            out.println("cni-chain demo: a sandboxed node (" + platform.name().toLowerCase() + "): " + platform.description());
            out.println("The agent sees the node's / at " + hostRoot + "; paths below are node paths.");
            out.println();
            out.println("Layout before");
            printLayout(out, confDir);
            out.println();
            out.println("$ cni-chain detect");
            out.print(DetectText.render(engine.detect()));
            out.println();
            out.println("$ cni-chain install");
            InstallReport report = engine.install();
            out.println();
            out.println("Diff of /etc/cni/net.d/" + platform.focus());
            for (String line : LineDiff.diff(before, Files.readString(focus))) {
                out.println("  " + line);
            }
            out.println();
            out.println("Layout after");
            printLayout(out, confDir);
            out.println();
            out.println(report.succeeded() ? "Installed: the real file patched atomically, every link kept." : "Install did not complete; see the log above.");
            out.println(keep ? "Sandbox kept at " + root : "Sandbox removed (use --keep to look around, or to try uninstall on it).");
            if (keep) {
                // A command that works from anywhere: the launcher's own path, and the sandbox's image directory, where
                // uninstall learns which binaries install put in place.
                out.println("  try: CONTAINER_CNI_BIN_DIR=" + env.get("CONTAINER_CNI_BIN_DIR") + " " + launcher() + " uninstall --host-root " + hostRoot
                        + " --service-account-dir " + root.resolve("serviceaccount"));
            }
            return report.succeeded() ? 0 : 1;
        }
        finally {
            ConsoleLogging.redirect(previousLog);
            if (!keep) {
                deleteTree(root);
            }
        }
    }

    private static void printLayout(PrintStream out, Path confDir)
            throws IOException
    {
        List<Path> entries;
        try (Stream<Path> list = Files.list(confDir)) {
            entries = list.sorted().toList();
        }
        for (Path entry : entries) {
            if (Files.isSymbolicLink(entry)) {
                out.println("  " + entry.getFileName() + " -> " + Files.readSymbolicLink(entry) + "   (link)");
            }
            else if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                out.println("  " + entry.getFileName() + "/   (directory)");
            }
            else {
                out.println("  " + entry.getFileName() + "   (file, " + Files.size(entry) + " bytes, mode "
                        + java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(entry, LinkOption.NOFOLLOW_LINKS)) + ")");
            }
        }
    }

    private static void deleteTree(Path root)
            throws IOException
    {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    static final class PlatformConverter
            implements picocli.CommandLine.ITypeConverter<DemoNode>
    {
        @Override
        public DemoNode convert(String value)
        {
            for (DemoNode node : DemoNode.values()) {
                if (node.name().equalsIgnoreCase(value)) {
                    return node;
                }
            }
            throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not a demo platform; choose one of " + new PlatformCandidates());
        }
    }

    static final class PlatformCandidates
            extends java.util.ArrayList<String>
    {
        PlatformCandidates()
        {
            for (DemoNode node : DemoNode.values()) {
                add(node.name().toLowerCase());
            }
        }
    }
}
