package io.cnichain.distribution.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.json.CniJson;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Runs a network configuration with the real plugin binaries, as the CNI specification tells a runtime to: each
 * plugin is an executable found by its {@code type} in the bin dir, reads its configuration on stdin and gets
 * {@code CNI_COMMAND}, {@code CNI_CONTAINERID}, {@code CNI_NETNS}, {@code CNI_IFNAME} and {@code CNI_PATH}. For a
 * list, ADD runs the plugins in order and DEL in reverse; each gets the list's {@code name} and
 * {@code cniVersion}, the {@code runtimeConfig} entries it declares as capabilities, and from the second plugin on
 * (ADD) the previous plugin's result as {@code prevResult}; DEL gets the ADD's result from 0.4.0 on. A
 * {@code .conf} holds a single plugin and is run alone. This is the test's own runtime; podman (through the real
 * CNI library) is the other one.
 */
final class CniRunner
{
    private final Path binDir;
    private final Path file;
    private final JsonNode config;

    /**
     * @param binDir the CNI bin dir (CNI_PATH)
     * @param file   the configuration as the runtime loads it (a link is followed, as a runtime's read does)
     */
    CniRunner(Path binDir, Path file)
    {
        this.binDir = requireNonNull(binDir, "binDir is null");
        this.file = requireNonNull(file, "file is null");
        this.config = RuntimeNode.json(file);
    }

    String network()
    {
        return config.path("name").asText();
    }

    String cniVersion()
    {
        return config.path("cniVersion").asText();
    }

    private List<JsonNode> plugins()
    {
        List<JsonNode> plugins = new ArrayList<>();
        if (file.getFileName().toString().endsWith(".conflist")) {
            config.get("plugins").forEach(plugins::add);
        }
        else {
            plugins.add(config);
        }
        return plugins;
    }

    /**
     * @return one step per plugin, in the order they ran; the last result is the attachment's result
     */
    List<Step> add(String containerId, Path netns, String ifName, JsonNode runtimeConfig)
    {
        List<Step> steps = new ArrayList<>();
        Optional<JsonNode> previous = Optional.empty();
        for (JsonNode plugin : plugins()) {
            Step step = invoke("ADD", plugin, previous, containerId, netns, ifName, runtimeConfig);
            steps.add(step);
            previous = Optional.of(step.result().orElseThrow(() -> new AssertionError(step.type() + " printed no result on ADD")));
        }
        return steps;
    }

    /**
     * @param addResult the result ADD returned (a runtime caches it for DEL)
     * @return one step per plugin, in the order they ran (reverse)
     */
    List<Step> del(String containerId, Path netns, String ifName, JsonNode runtimeConfig, JsonNode addResult)
    {
        List<JsonNode> reversed = new ArrayList<>(plugins());
        Collections.reverse(reversed);
        Optional<JsonNode> cached = atLeast040(cniVersion()) ? Optional.of(addResult) : Optional.empty();
        List<Step> steps = new ArrayList<>();
        for (JsonNode plugin : reversed) {
            steps.add(invoke("DEL", plugin, cached, containerId, netns, ifName, runtimeConfig));
        }
        return steps;
    }

    private Step invoke(String command, JsonNode plugin, Optional<JsonNode> prevResult, String containerId, Path netns, String ifName,
            JsonNode runtimeConfig)
    {
        String type = plugin.path("type").asText();
        Path binary = binDir.resolve(type);
        if (!Files.isExecutable(binary)) {
            throw new AssertionError("failed to find plugin \"" + type + "\" in path [" + binDir + "] (" + command + " of " + file + ")");
        }
        ObjectNode stdin = plugin.deepCopy();
        stdin.put("name", network());
        stdin.put("cniVersion", cniVersion());
        ObjectNode runtime = CniJson.mapper().createObjectNode();
        plugin.path("capabilities").properties().forEach(capability -> {
            if (capability.getValue().asBoolean() && runtimeConfig.has(capability.getKey())) {
                runtime.set(capability.getKey(), runtimeConfig.get(capability.getKey()));
            }
        });
        if (!runtime.isEmpty()) {
            stdin.set("runtimeConfig", runtime);
        }
        prevResult.ifPresent(result -> stdin.set("prevResult", result));

        Map<String, String> env = new HashMap<>();
        env.put("CNI_COMMAND", command);
        env.put("CNI_CONTAINERID", containerId);
        env.put("CNI_NETNS", netns.toString());
        env.put("CNI_IFNAME", ifName);
        env.put("CNI_PATH", binDir.toString());
        Commands.Result run = Commands.run(List.of(binary.toString()), env, Optional.of(CniJson.compact(stdin).getBytes(StandardCharsets.UTF_8)),
                Duration.ofSeconds(60));
        if (run.code() != 0) {
            throw new AssertionError(command + " failed in plugin " + type + " of " + file + ":\n" + run);
        }
        Optional<JsonNode> result = run.out().isBlank() ? Optional.empty() : Optional.of(CniJson.parse(run.out().getBytes(StandardCharsets.UTF_8)));
        return new Step(type, command, stdin, result);
    }

    private static boolean atLeast040(String version)
    {
        String[] parts = version.split("\\.");
        int major = Integer.parseInt(parts[0]);
        int minor = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
        return major > 0 || minor >= 4;
    }

    /**
     * One plugin's run.
     *
     * @param type    the plugin
     * @param command ADD or DEL
     * @param stdin   the configuration it was given
     * @param result  what it printed, if anything
     */
    record Step(String type, String command, JsonNode stdin, Optional<JsonNode> result)
    {
        Step
        {
            requireNonNull(type, "type is null");
            requireNonNull(command, "command is null");
            requireNonNull(stdin, "stdin is null");
            requireNonNull(result, "result is null");
        }
    }
}
