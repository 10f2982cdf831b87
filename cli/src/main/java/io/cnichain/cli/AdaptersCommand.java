package io.cnichain.cli;

import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.core.config.AgentConfig;
import picocli.CommandLine.Command;

import java.util.List;

@Command(
        mixinStandardHelpOptions = true,
        name = "adapters",
        header = "List the adapters found.",
        description = "Shows each adapter's name, version, origin (built-in, classpath, or plugin jar with its path), state "
                + "(enabled, or disabled with the reason) and description, then every plugin jar or class that was refused, "
                + "with the reason.")
final class AdaptersCommand
        extends AgentCommand
{
    @Override
    public Integer call()
    {
        AgentConfig config = loadConfig();
        AdapterRegistry registry = registry(config);
        List<LoadedAdapter> adapters = registry.all();
        int nameWidth = Math.max(4, adapters.stream().mapToInt(a -> a.name().length()).max().orElse(4));
        int versionWidth = Math.max(7, adapters.stream().mapToInt(a -> a.version().length()).max().orElse(7));
        int originWidth = Math.max(6, adapters.stream().mapToInt(a -> a.describeOrigin().length()).max().orElse(6));
        String format = "%-" + nameWidth + "s  %-" + versionWidth + "s  %-" + originWidth + "s  %-8s  %s%n";
        context().out().printf(format, "NAME", "VERSION", "ORIGIN", "STATE", "DESCRIPTION");
        for (LoadedAdapter adapter : adapters) {
            context().out().printf(format, adapter.name(), adapter.version(), adapter.describeOrigin(), adapter.state(), adapter.adapter().description());
            adapter.disabledReason().ifPresent(reason -> context().out().println("  ! " + adapter.name() + " is disabled: " + reason));
        }
        if (!registry.problems().isEmpty()) {
            context().out().println();
            context().out().println("Problems (plugin jars and classes not loaded, and other findings)");
        }
        for (String problem : registry.problems()) {
            context().out().println("  ! " + problem);
        }
        return 0;
    }
}
