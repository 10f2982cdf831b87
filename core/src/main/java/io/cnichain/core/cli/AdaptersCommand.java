package io.cnichain.core.cli;

import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.core.config.AgentConfig;
import picocli.CommandLine.Command;

@Command(
        mixinStandardHelpOptions = true,
        name = "adapters",
        header = "List the adapters found.",
        description = "Shows each adapter's name, version, origin (built-in, classpath, plugin jar), state and description.")
final class AdaptersCommand
        extends AgentCommand
{
    @Override
    public Integer call()
    {
        AgentConfig config = loadConfig();
        AdapterRegistry registry = registry(config);
        int width = Math.max(4, registry.all().stream().mapToInt(a -> a.name().length()).max().orElse(4));
        String format = "%-" + width + "s  %-10s  %-10s  %-8s  %s%n";
        context().out().printf(format, "NAME", "VERSION", "ORIGIN", "STATE", "DESCRIPTION");
        for (LoadedAdapter adapter : registry.all()) {
            context().out().printf(format, adapter.name(), adapter.version(), adapter.origin().label(), "enabled", adapter.adapter().description());
        }
        for (String problem : registry.problems()) {
            context().out().println("! " + problem);
        }
        return 0;
    }
}
