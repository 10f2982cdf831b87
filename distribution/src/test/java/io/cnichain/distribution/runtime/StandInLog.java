package io.cnichain.distribution.runtime;

import io.cnichain.testkit.Await;
import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.json.CniJson;

import java.time.Duration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/** What the stand-in {@code linkerd-cni} recorded: one file per call, named in call order. */
public final class StandInLog
{
    private final Path dir;

    StandInLog(Path dir)
    {
        this.dir = dir;
    }

    /** Every call, VERSION queries included, in order. */
    public List<Call> all()
    {
        try (Stream<Path> files = Files.list(dir)) {
            List<Call> calls = new ArrayList<>();
            for (Path file : files.filter(f -> !f.getFileName().toString().startsWith(".")).sorted().toList()) {
                calls.add(Call.parse(file));
            }
            return calls;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The calls that act on a container's network (ADD, CHECK, DEL), in order. */
    public List<Call> calls()
    {
        return all().stream().filter(call -> !call.command().equals("VERSION")).toList();
    }

    /**
     * The calls, once there are at least {@code count}: podman may finish a container's teardown (DEL) a moment
     * after the command that removed it returned.
     */
    public List<Call> awaitCalls(int count)
    {
        Await.within(Duration.ofSeconds(10), () -> calls().size() >= count);
        return calls();
    }

    /**
     * One call of the plugin.
     *
     * @param command     CNI_COMMAND
     * @param containerId CNI_CONTAINERID
     * @param netns       CNI_NETNS
     * @param ifName      CNI_IFNAME
     * @param env         the whole environment
     * @param config      its stdin, parsed
     */
    public record Call(String command, String containerId, String netns, String ifName, Map<String, String> env, JsonNode config)
    {
        public Call
        {
            requireNonNull(command, "command is null");
            env = Map.copyOf(env);
            requireNonNull(config, "config is null");
        }

        public static Call parse(Path file)
        {
            try {
                JsonNode record = CniJson.mapper().readTree(Files.readString(file, StandardCharsets.UTF_8));
                Map<String, String> env = new TreeMap<>();
                record.get("env").properties().forEach(e -> env.put(e.getKey(), e.getValue().asText()));
                JsonNode config = CniJson.mapper().readTree(record.get("stdin").asText());
                return new Call(env.getOrDefault("CNI_COMMAND", ""), env.getOrDefault("CNI_CONTAINERID", ""), env.getOrDefault("CNI_NETNS", ""),
                        env.getOrDefault("CNI_IFNAME", ""), env, config == null ? CniJson.mapper().createObjectNode() : config);
            }
            catch (IOException e) {
                throw new UncheckedIOException("cannot read the stand-in's record " + file, e);
            }
        }

        public Optional<JsonNode> prevResult()
        {
            return Optional.ofNullable(config.get("prevResult"));
        }

        /** The addresses in prevResult, "10.0.0.2/24" form. */
        public List<String> prevAddresses()
        {
            List<String> addresses = new ArrayList<>();
            prevResult().ifPresent(result -> result.path("ips").forEach(ip -> addresses.add(ip.path("address").asText())));
            return addresses;
        }

        /** The interface names in prevResult. */
        public List<String> prevInterfaces()
        {
            List<String> names = new ArrayList<>();
            prevResult().ifPresent(result -> result.path("interfaces").forEach(i -> names.add(i.path("name").asText())));
            return names;
        }

        @Override
        public String toString()
        {
            return command + " " + containerId + " " + CniJson.compact(config);
        }
    }
}
