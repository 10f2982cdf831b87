package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.PluginList;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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

    static void awaitPatched(AgentProcess agent, Path file)
    {
        Await.until(Duration.ofSeconds(10), () -> PluginList.patched(file),
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
