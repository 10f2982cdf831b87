package io.cnichain.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.json.CniJson;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What a configuration list's {@code plugins} name, as a test looks at a node: the one definition of "patched". */
public final class PluginList
{
    /** The chained plugin's type, Linkerd's by default. */
    public static final String OURS = "linkerd-cni";

    private PluginList() {}

    /** @return the plugin types of the list, in order; empty when there is no file or it does not parse (being replaced) */
    public static List<String> plugins(Path file)
    {
        List<String> types = new ArrayList<>();
        try {
            JsonNode plugins = CniJson.parse(Files.readAllBytes(file)).get("plugins");
            if (plugins == null) {
                return List.of();
            }
            plugins.forEach(plugin -> types.add(plugin.path("type").asText()));
        }
        catch (IOException | RuntimeException e) {
            return List.of();
        }
        return types;
    }

    /** @return whether the list ends with our plugin, named once */
    public static boolean patched(Path file)
    {
        List<String> types = plugins(file);
        return !types.isEmpty() && types.get(types.size() - 1).equals(OURS) && types.stream().filter(OURS::equals).count() == 1;
    }
}
