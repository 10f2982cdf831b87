package io.cnichain.cli;

import io.cnichain.core.Printable;
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
        // A jar's manifest and an adapter's strings reach the terminal escaped, as in the log: none can move the cursor.
        int nameWidth = Math.max(4, adapters.stream().mapToInt(a -> Printable.line(a.name()).length()).max().orElse(4));
        int versionWidth = Math.max(7, adapters.stream().mapToInt(a -> Printable.line(a.version()).length()).max().orElse(7));
        int originWidth = Math.max(6, adapters.stream().mapToInt(a -> Printable.line(a.describeOrigin()).length()).max().orElse(6));
        String format = "%-" + nameWidth + "s  %-" + versionWidth + "s  %-" + originWidth + "s  %-8s  %s%n";
        context().out().printf(format, "NAME", "VERSION", "ORIGIN", "STATE", "DESCRIPTION");
        for (LoadedAdapter adapter : adapters) {
            context().out().printf(format, Printable.line(adapter.name()), Printable.line(adapter.version()), Printable.line(adapter.describeOrigin()),
                    adapter.state(), Printable.line(adapter.adapter().description()));
            adapter.disabledReason().ifPresent(reason -> context().out().println("  ! " + Printable.line(adapter.name() + " is disabled: " + reason)));
        }
        if (!registry.problems().isEmpty()) {
            context().out().println();
            context().out().println("Problems (plugin jars and classes not loaded, and other findings)");
        }
        for (String problem : registry.problems()) {
            context().out().println("  ! " + Printable.line(problem));
        }
        return 0;
    }
}
