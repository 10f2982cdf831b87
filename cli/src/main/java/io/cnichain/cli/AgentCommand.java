package io.cnichain.cli;

import io.cnichain.core.Printable;
import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.cli.logging.ConsoleLogging;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ConfigLoader;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.core.fs.linux.PathNames;
import io.cnichain.agent.kube.NodeRuntime;
import io.cnichain.core.plugins.AgentAdapters;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.ParentCommand;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/** Shared plumbing of the commands that work on a node: options, configuration, adapters, engine. */
abstract class AgentCommand
        implements Callable<Integer>
{
    private static final Logger log = LoggerFactory.getLogger(AgentCommand.class);

    @ParentCommand
    CniChainCli parent;

    /** Its options: the flags of the settings table it takes ({@link Flags}), added to it when the command line is built. */
    @Spec
    CommandSpec spec;

    /** The flags, when they were read without picocli ({@link Flags#run}). */
    Optional<Flags.Given> given = Optional.empty();

    CliContext context()
    {
        return parent.context;
    }

    /** Loads the configuration (flags &gt; environment &gt; YAML file &gt; defaults) and applies its logging settings. */
    AgentConfig loadConfig()
    {
        Flags.Given flags = given.orElseGet(() -> Flags.given(spec.commandLine().getParseResult()));
        AgentConfig loaded = ConfigLoader.load(flags.config(), context().env(), flags.settings());
        ConsoleLogging.configure(loaded.log().level(), loaded.log().format());
        loaded.log().sayNotices();
        warnWhenFileNamesAreNotUtf8();
        return loaded;
    }

    /**
     * The JVM names files in the encoding of the locale it started in, and the launcher asks for C.UTF-8: where that
     * locale is not installed, the JVM is left with ASCII, and every name that is not ASCII can be reported, not opened.
     */
    private void warnWhenFileNamesAreNotUtf8()
    {
        if (PathNames.ENCODING.equals(StandardCharsets.UTF_8)) {
            return;
        }
        String locale = Stream.of("LC_ALL", "LC_CTYPE", "LANG").map(context().env()::get).filter(value -> value != null && !value.isEmpty())
                .findFirst().orElse("none");
        log.warn("File names are read as {}, not UTF-8: the locale {} is not a UTF-8 locale installed here, so a name that is not ASCII is "
                + "reported, never opened; install the C.UTF-8 locale, which the launcher runs the JVM under", PathNames.ENCODING, Printable.quoted(locale));
    }

    /**
     * The adapters for a command: built-in ones plus those of the plugin jars in {@code pluginsDir}.
     * Every command that works on a node, and the long-running agent, builds its registry here.
     */
    static AdapterRegistry registry(AgentConfig config)
    {
        return AgentAdapters.load(config);
    }

    /** The engine, with the entry's placement decided (for {@code placement: auto}, from the node's runtime). */
    Engine engine(AgentConfig config)
    {
        return new Engine(config, registry(config), new AtomicFileWriter(), NodeRuntime.placement(config));
    }

    /** The running agent's engine: the node's runtime read by a child process, which leaves no TLS stack in the agent. */
    Engine agentEngine(AgentConfig config)
    {
        return new Engine(config, registry(config), new AtomicFileWriter(), NodeRuntime.placement(config, io.cnichain.agent.kube.ChildAttempt.launcher()));
    }

    /**
     * The plugin's kubeconfig names the API server, whose address Kubernetes gives every pod: without it (as when run
     * on a host) the kubeconfig cannot be written. Said at once, as a configuration error, with the way to run
     * without one, rather than as a failed pass after a look at the node.
     */
    static void requireApiServerForKubeconfig(AgentConfig config)
    {
        if (!config.kubeconfig().enabled()) {
            return;
        }
        List<String> missing = new ArrayList<>();
        if (config.apiServer().host().isEmpty()) {
            missing.add("KUBERNETES_SERVICE_HOST");
        }
        if (config.apiServer().port().isEmpty()) {
            missing.add("KUBERNETES_SERVICE_PORT");
        }
        if (!missing.isEmpty()) {
            throw CniChainCli.usage(String.join(" and ", missing) + (missing.size() == 1 ? " is" : " are")
                    + " not set (Kubernetes sets both in every pod): the plugin's kubeconfig names the API server. Set "
                    + (missing.size() == 1 ? "it" : "them") + ", or set kubeconfig.enabled: false in the YAML file (--config) to run without a kubeconfig");
        }
    }

    /**
     * The engine for a one-shot command: a host root that is not there is a configuration error (exit 2), since a pass
     * on it would find nothing and succeed. The agent instead reports it as not ready and waits.
     */
    Engine oneShotEngine(AgentConfig config)
    {
        Engine engine = engine(config);
        engine.hostRootProblem().ifPresent(problem -> {
            throw CniChainCli.usage(problem);
        });
        return engine;
    }
}
