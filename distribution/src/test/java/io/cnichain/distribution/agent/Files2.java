package io.cnichain.distribution.agent;

import io.cnichain.core.json.CniJson;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Checks on what the agent made of a file. */
final class Files2
{
    private Files2() {}

    static String read(Path file)
    {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            return "";
        }
    }

    /** The plugin types of a list, or empty when it does not parse (yet). */
    static List<String> plugins(Path file)
    {
        List<String> types = new ArrayList<>();
        try {
            CniJson.parse(read(file).getBytes(StandardCharsets.UTF_8)).get("plugins").forEach(p -> types.add(p.get("type").asText()));
        }
        catch (RuntimeException e) {
            return List.of();
        }
        return types;
    }

    /** The plugin types a runtime of this libcni generation runs from these bytes; none when it does not load them. */
    static List<String> pluginsOf(String name, byte[] bytes, io.cnichain.core.discovery.LibcniGeneration generation)
    {
        try {
            return io.cnichain.core.discovery.CniConfigParser.parse(name, bytes, generation).summary().pluginTypes();
        }
        catch (RuntimeException e) {
            return List.of();
        }
    }

    static boolean patched(Path file)
    {
        List<String> plugins = plugins(file);
        return !plugins.isEmpty() && plugins.get(plugins.size() - 1).equals("linkerd-cni")
                && plugins.stream().filter("linkerd-cni"::equals).count() == 1;
    }

    static void awaitPatched(AgentProcess agent, Path file)
    {
        AgentProcess.await(Duration.ofSeconds(10), () -> patched(file),
                () -> file + " was not patched; it holds " + read(file) + "\nagent log:\n" + agent.log());
    }

    /** A scenario's own pace (another writer polling a file), never a wait for the agent. */
    static void pause(long millis)
    {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
