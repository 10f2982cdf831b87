package io.cnichain.distribution.agent;

import io.cnichain.core.json.CniJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** File operations the way primaries do them, and checks on what the agent made of them. */
final class Files2
{
    private Files2() {}

    /** Writes next to the file, then renames onto it (Cilium, OCI). */
    static void replaceAtomically(Path file, String content)
    {
        try {
            Path temp = file.resolveSibling("." + file.getFileName() + ".primary-tmp");
            Files.writeString(temp, content);
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

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

    static void run(String... command)
    {
        try {
            Process process = new ProcessBuilder(command).inheritIO().start();
            if (process.waitFor() != 0) {
                throw new AssertionError(String.join(" ", command) + " failed");
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
