package io.cnichain.adapter.generic;

import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.Detection;
import io.cnichain.spi.NodeView;
import io.cnichain.spi.ParseResult;

import java.util.List;
import java.util.Optional;

/**
 * The fallback that always applies: the authoritative file is the configuration the runtime would load (the first
 * valid {@code .conf}, {@code .conflist} or {@code .json} in byte order), resolved through any chain of links; the
 * core patches the final file and keeps the links. It scores {@link Detection#FALLBACK} whenever there is such a
 * file, below every platform adapter that recognises its platform.
 */
public final class GenericSymlinkAdapter
        implements CniPlatformAdapter
{
    public static final String NAME = "generic-symlink";

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public String description()
    {
        return "Any platform: the configuration the runtime loads, followed through symlinks";
    }

    @Override
    public Detection detect(NodeView node, AdapterSettings settings)
    {
        Optional<ConfigEntry> effective = node.effectiveConfig();
        if (effective.isEmpty()) {
            return Detection.none();
        }
        ConfigEntry entry = effective.get();
        String evidence = !entry.isSymlink() ? "effective configuration " + entry.name()
                : "effective configuration " + entry.name() + " is a link to "
                        + (entry.resolvedFile().isPresent() ? entry.resolvedFile().get().toString()
                                : "a file the core may not write (" + entry.problem().orElse("") + ")");
        return Detection.of(Detection.FALLBACK, evidence);
    }

    @Override
    public List<ConfigTarget> authoritativeConfigs(NodeView node, AdapterSettings settings)
    {
        Optional<ConfigEntry> effective = node.effectiveConfig();
        if (effective.isPresent()) {
            // An effective configuration the core may not write (a link out of the allowed roots) means nothing is
            // patched: patching a later file would change nothing the runtime loads. detect says why.
            ConfigEntry entry = effective.get();
            if (!entry.resolves()) {
                return List.of();
            }
            return List.of(ConfigTarget.of(entry, entry.isSymlink()
                    ? "the configuration the runtime loads, through " + entry.linkChain().size() + " link(s)"
                    : "the configuration the runtime loads (first valid file in byte order)"));
        }
        // No valid configuration, but one that does not parse: most likely a primary in the middle of writing it.
        // Naming it lets the core wait for it (and retry) instead of forgetting it; the core never writes from it.
        for (ConfigEntry entry : node.entries()) {
            if (entry.runtimeLoadable() && entry.resolves()
                    && node.parse(entry) instanceof ParseResult.Failed failed && failed.reason() == ParseResult.Reason.INVALID) {
                return List.of(ConfigTarget.of(entry, "the only configuration, which does not parse yet (a primary may be writing it)"));
            }
        }
        return List.of();
    }
}
