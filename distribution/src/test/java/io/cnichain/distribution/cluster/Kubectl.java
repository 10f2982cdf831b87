package io.cnichain.distribution.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cnichain.distribution.runtime.Commands;
import io.cnichain.distribution.runtime.Commands.Result;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** The machine's kubectl, pointed at one cluster: as an administrator, or as any token the cluster issued. */
final class Kubectl
{
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<String> connection;

    private Kubectl(List<String> connection)
    {
        this.connection = List.copyOf(connection);
    }

    static Kubectl admin(Path kubeconfig)
    {
        return new Kubectl(List.of("--kubeconfig=" + kubeconfig));
    }

    /**
     * @return the same cluster as {@code token}, which carries that account's rights and nothing of the administrator's;
     *         the token goes in a kubeconfig of its own, never on a command line (where a failure's message would print it)
     */
    Kubectl as(String token)
    {
        JsonNode cluster = json("config", "view", "--raw", "--minify").path("clusters").get(0).path("cluster");
        String kubeconfig = """
                apiVersion: v1
                kind: Config
                clusters:
                - name: kit
                  cluster:
                    server: %s
                    certificate-authority-data: %s
                users:
                - name: as
                  user:
                    token: %s
                contexts:
                - name: as
                  context: {cluster: kit, user: as}
                current-context: as
                """.formatted(cluster.path("server").asText(), cluster.path("certificate-authority-data").asText(), requireNonNull(token, "token is null"));
        try {
            Path file = java.nio.file.Files.createTempFile("kubeconfig-as-", "");
            file.toFile().deleteOnExit();
            java.nio.file.Files.writeString(file, kubeconfig);
            return new Kubectl(List.of("--kubeconfig=" + file));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs and fails the test unless kubectl exits 0. */
    String ok(String... args)
    {
        return run(args).ok().out();
    }

    Result run(String... args)
    {
        return run(Optional.empty(), args);
    }

    Result run(Optional<String> stdin, String... args)
    {
        List<String> command = new ArrayList<>(List.of("kubectl"));
        command.addAll(connection);
        command.addAll(List.of(args));
        return Commands.run(command, Map.of(), stdin.map(text -> text.getBytes(StandardCharsets.UTF_8)), Duration.ofMinutes(3));
    }

    JsonNode json(String... args)
    {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("-o");
        all.add("json");
        try {
            return JSON.readTree(ok(all.toArray(String[]::new)));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code kubectl apply -f -}. */
    Result apply(String yaml)
    {
        return run(Optional.of(yaml), "apply", "-f", "-");
    }
}
