package io.cnichain.distribution.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/** What the stand-in linkerd-cni recorded: one call per file, in call order. */
final class PluginCalls
{
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path log;

    PluginCalls(Path log)
    {
        this.log = requireNonNull(log, "log is null");
    }

    Path directory()
    {
        return log;
    }

    /**
     * @param command  ADD, DEL, CHECK or VERSION
     * @param status   the HTTP status of the pod's read at ADD, {@code unreachable} without an answer, {@code none} for other commands
     * @param ip       the address the primary gave the pod (from the previous result), empty when there was none
     */
    record Call(String command, String namespace, String pod, String status, String ip, String container)
    {
        /** Whether this ADD ran the plugin to its end: the pod's read answered. */
        boolean meshed()
        {
            return command.equals("ADD") && status.equals("200");
        }
    }

    List<Call> all()
    {
        try (Stream<Path> files = Files.list(log)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".json")).sorted().map(PluginCalls::read).toList();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the calls for one pod, in order */
    List<Call> of(String namespace, String pod)
    {
        return all().stream().filter(call -> call.namespace().equals(namespace) && call.pod().equals(pod)).toList();
    }

    private static Call read(Path file)
    {
        try {
            JsonNode call = JSON.readTree(file.toFile());
            return new Call(call.path("command").asText(), call.path("namespace").asText(), call.path("pod").asText(), call.path("status").asText(),
                    call.path("ip").asText(), call.path("container").asText());
        }
        catch (IOException e) {
            throw new UncheckedIOException("reading " + file, e);
        }
    }
}
