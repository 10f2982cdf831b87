package io.cnichain.cli;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.Printable;
import io.cnichain.core.fs.linux.FileSystemCalls;
import io.cnichain.cli.logging.ConsoleLoggerProvider;
import io.cnichain.spi.CniPlatformAdapter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URL;
import java.util.Enumeration;
import java.util.Optional;

/**
 * {@code cni-chain}: the command line. Each subcommand returns an exit code: 0 done, 1 failed, 2 bad usage or
 * configuration. Errors are one line naming the file and the reason; {@code --stacktrace} shows more.
 */
@Command(
        name = "cni-chain",
        mixinStandardHelpOptions = true,
        versionProvider = CniChainCli.Version.class,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
                "Keeps a chained CNI plugin (Linkerd's linkerd-cni by default) installed in the CNI configuration "
                        + "that the node's container runtime really loads: it follows symlinks to the real file, patches it "
                        + "atomically, and removes everything it added on uninstall.",
                ""},
        subcommands = {
                RunCommand.class,
                InstallCommand.class,
                UninstallCommand.class,
                DetectCommand.class,
                AdaptersCommand.class,
                DemoCommand.class,
                ApiCommand.class,
                CommandLine.HelpCommand.class},
        footerHeading = "%n",
        footer = {
                "Configuration: flags > environment > YAML file (--config) > defaults.",
                "The environment of Linkerd's linkerd2-cni DaemonSet works unchanged:",
                "  DEST_CNI_NET_DIR, DEST_CNI_BIN_DIR, CONTAINER_MOUNT_PREFIX,",
                "  CONTAINER_CNI_BIN_DIR, CNI_NETWORK_CONFIG, CNI_NETWORK_CONFIG_FILE,",
                "  KUBECONFIG_FILE_NAME, KUBECONFIG_MODE, KUBE_CA_FILE, SKIP_TLS_VERIFY,",
                "  KUBERNETES_SERVICE_PROTOCOL, KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT.",
                "The downward API (run): NODE_NAME, POD_NAME, POD_NAMESPACE; on SIGTERM the",
                "  agent asks whether its DaemonSet still runs here (cleanupOnShutdown auto).",
                "The start-up taint (run): NODE_TAINT_ENABLED, NODE_TAINT_KEY.",
                "The plugin's own account (run): CNI_CHAIN_PLUGIN_SERVICE_ACCOUNT; the agent",
                "  requests its token for the kubeconfig.",
                "Where the entry goes: CNI_CHAIN_PLACEMENT (patch, drop-in or auto; --placement).",
                "",
                "Exit codes: 0 done (or nothing to do), 1 failed, 2 bad usage or configuration.",
                "",
                "Try it on a sandboxed node first:  cni-chain demo"})
public final class CniChainCli
        implements Runnable
{
    @Spec
    CommandSpec spec;

    final CliContext context;

    CniChainCli(CliContext context)
    {
        this.context = context;
    }

    @Override
    public void run()
    {
        spec.commandLine().usage(context.out());
    }

    static {
        // Ours is the one provider: named (unless the JVM's options name another), SLF4J need not open every jar of the
        // class path to look for one, and its notice of that is not logged.
        if (System.getProperty("slf4j.provider") == null) {
            System.setProperty("slf4j.provider", ConsoleLoggerProvider.class.getName());
            if (System.getProperty("slf4j.internal.verbosity") == null) {
                System.setProperty("slf4j.internal.verbosity", "WARN");
            }
        }
    }

    /**
     * The built-in adapters are found with {@link java.util.ServiceLoader}, which opens every jar of the class path to
     * look for the service file. Another thread opens them while this one reads the configuration; the adapters are
     * then found, loaded and reported as always.
     */
    private static void openClassPathEarly()
    {
        Thread thread = new Thread(() -> {
            try {
                Enumeration<URL> found = CniChainCli.class.getClassLoader().getResources("META-INF/services/" + CniPlatformAdapter.class.getName());
                while (found.hasMoreElements()) {
                    found.nextElement();
                }
            }
            catch (IOException ignored) {
                // The scan proper meets the same jar, and reports it.
            }
        }, "class-path-open");
        thread.setDaemon(true);
        thread.start();
    }

    public static void main(String[] args)
    {
        System.exit(execute(args, CliContext.system()));
    }

    /**
     * Runs the command line in-process.
     *
     * @param args    the arguments
     * @param context environment and output streams
     * @return the exit code
     */
    public static int execute(String[] args, CliContext context)
    {
        FileSystemCalls.prepareInBackground();
        openClassPathEarly();
        Optional<Flags.Given> run = Flags.run(args);
        if (run.isPresent()) {
            RunCommand command = new RunCommand();
            command.parent = new CniChainCli(context);
            command.given = run;
            try {
                return command.call();
            }
            catch (Exception e) {
                return failure(e, run.get().stacktrace(), context);
            }
        }
        return commandLine(context).execute(args);
    }

    static CommandLine commandLine(CliContext context)
    {
        CommandLine commandLine = new CommandLine(new CniChainCli(context));
        commandLine.getSubcommands().forEach((name, command) -> {
            if (command.getCommand() instanceof AgentCommand) {
                Flags.addTo(command.getCommandSpec(), command.getCommand() instanceof RunCommand);
            }
        });
        commandLine.setOut(new PrintWriter(context.out(), true));
        commandLine.setErr(new PrintWriter(context.err(), true));
        commandLine.setExecutionExceptionHandler((exception, cmd, parseResult) -> {
            boolean stacktrace = parseResult.subcommands().stream()
                    .flatMap(p -> p.matchedOptions().stream())
                    .anyMatch(o -> o.longestName().equals(Flags.STACKTRACE))
                    || parseResult.matchedOptions().stream().anyMatch(o -> o.longestName().equals(Flags.STACKTRACE));
            return failure(exception, stacktrace, context);
        });
        return commandLine;
    }

    /** A command that threw: one line (and the trace with --stacktrace); the exit code. */
    static int failure(Exception exception, boolean stacktrace, CliContext context)
    {
        if (exception instanceof CniChainException e) {
            context.err().println("error: " + Printable.line(e.getMessage()));
            if (stacktrace) {
                e.printStackTrace(context.err());
            }
            return e.code().exitCode();
        }
        context.err().println("error: " + Printable.line(String.valueOf(exception)));
        if (stacktrace) {
            exception.printStackTrace(context.err());
        }
        else {
            context.err().println("(run again with --stacktrace for details)");
        }
        return 1;
    }

    /** The version from the jar manifest. */
    static final class Version
            implements CommandLine.IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            String version = Optional.ofNullable(CniChainCli.class.getPackage().getImplementationVersion()).orElse("development build");
            return new String[] {"cni-chain " + version, "SPI " + io.cnichain.spi.SpiVersion.CURRENT, "Java " + Runtime.version()};
        }
    }

    static CniChainException usage(String message)
    {
        return new CniChainException(ErrorCode.BAD_CONFIG, message);
    }
}
