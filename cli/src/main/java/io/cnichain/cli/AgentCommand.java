package io.cnichain.cli;

import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.plugins.AgentAdapters;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;

import java.util.Map;
import java.util.concurrent.Callable;

/** Shared plumbing of the commands that work on a node: options, configuration, adapters, engine. */
abstract class AgentCommand
        implements Callable<Integer>
{
    @ParentCommand
    CniChainCli parent;

    @Mixin
    CommonOptions options;

    CliContext context()
    {
        return parent.context;
    }

    AgentConfig loadConfig()
    {
        return options.load(context(), Map.of());
    }

    /**
     * The adapters for a command: built-in ones plus those of the plugin jars in {@code pluginsDir}.
     * Every command that works on a node, and the long-running agent, builds its registry here.
     */
    static AdapterRegistry registry(AgentConfig config)
    {
        return AgentAdapters.load(config);
    }

    Engine engine(AgentConfig config)
    {
        return new Engine(config, registry(config));
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
