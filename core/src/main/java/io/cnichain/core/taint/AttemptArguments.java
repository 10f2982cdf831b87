package io.cnichain.core.taint;

import io.cnichain.core.config.ApiServerSettings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * What one removal attempt in the child process needs, passed on its command line as {@code --name=value}. Never the
 * token: {@code ps} shows a command line to every user of the node, so the child reads the token file itself.
 *
 * @param host             the API server's host ({@code KUBERNETES_SERVICE_HOST}); https only
 * @param port             its port
 * @param node             this node's name
 * @param key              the taint's key
 * @param tokenFile        the service-account token, read for every request
 * @param caFile           the one CA trusted, read for every call
 * @param connectTimeout   bound on a TCP and TLS connection
 * @param requestTimeout   bound on one request
 * @param immediateRereads how many changed-node answers in a row are read again at once
 * @param rereadsInARow    changed-node answers in a row before this attempt (the count goes on across attempts)
 */
record AttemptArguments(String host, String port, String node, String key, Path tokenFile, Path caFile, Duration connectTimeout,
        Duration requestTimeout, int immediateRereads, int rereadsInARow)
{
    AttemptArguments
    {
        requireNonNull(host, "host is null");
        requireNonNull(port, "port is null");
        requireNonNull(node, "node is null");
        requireNonNull(key, "key is null");
        requireNonNull(tokenFile, "tokenFile is null");
        requireNonNull(caFile, "caFile is null");
        requireNonNull(connectTimeout, "connectTimeout is null");
        requireNonNull(requestTimeout, "requestTimeout is null");
        if (immediateRereads < 0 || rereadsInARow < 0) {
            throw new IllegalArgumentException("negative count: immediateRereads " + immediateRereads + ", rereadsInARow " + rereadsInARow);
        }
    }

    /**
     * @param api    the API server (host and port present) and the service account
     * @param node   this node's name
     * @param key    the taint's key
     * @param policy the timeouts and the immediate re-reads
     * @return the arguments of a first attempt
     */
    static AttemptArguments of(ApiServerSettings api, String node, String key, RetryPolicy policy)
    {
        return new AttemptArguments(api.host().orElseThrow(() -> new IllegalArgumentException("KUBERNETES_SERVICE_HOST is not set")),
                api.port().orElseThrow(() -> new IllegalArgumentException("KUBERNETES_SERVICE_PORT is not set")), node, key, api.tokenFile(),
                api.effectiveCaFile(), policy.connectTimeout(), policy.requestTimeout(), policy.immediateRereads(), 0);
    }

    AttemptArguments withRereadsInARow(int rereads)
    {
        return new AttemptArguments(host, port, node, key, tokenFile, caFile, connectTimeout, requestTimeout, immediateRereads, rereads);
    }

    /** The command-line arguments, one per component. */
    List<String> toArgs()
    {
        return List.of("--host=" + host, "--port=" + port, "--node=" + node, "--key=" + key, "--token-file=" + tokenFile, "--ca-file=" + caFile,
                "--connect-timeout-ms=" + connectTimeout.toMillis(), "--request-timeout-ms=" + requestTimeout.toMillis(),
                "--immediate-rereads=" + immediateRereads, "--rereads-in-a-row=" + rereadsInARow);
    }

    /**
     * @param args what {@link #toArgs()} made
     * @return the arguments
     * @throws IllegalArgumentException when one is missing, unknown, repeated or malformed
     */
    static AttemptArguments parse(String[] args)
    {
        Map<String, String> values = new HashMap<>();
        for (String arg : args) {
            int equals = arg.indexOf('=');
            if (!arg.startsWith("--") || equals < 0) {
                throw new IllegalArgumentException("not --name=value: " + arg);
            }
            if (values.put(arg.substring(2, equals), arg.substring(equals + 1)) != null) {
                throw new IllegalArgumentException("given twice: " + arg.substring(0, equals));
            }
        }
        List<String> names = new ArrayList<>(List.of("host", "port", "node", "key", "token-file", "ca-file", "connect-timeout-ms",
                "request-timeout-ms", "immediate-rereads", "rereads-in-a-row"));
        names.removeAll(values.keySet());
        if (!names.isEmpty()) {
            throw new IllegalArgumentException("missing: --" + String.join(", --", names));
        }
        if (values.size() != 10) {
            throw new IllegalArgumentException("unknown arguments among " + values.keySet());
        }
        return new AttemptArguments(values.get("host"), values.get("port"), values.get("node"), values.get("key"), Path.of(values.get("token-file")),
                Path.of(values.get("ca-file")), Duration.ofMillis(number(values, "connect-timeout-ms")),
                Duration.ofMillis(number(values, "request-timeout-ms")), (int) number(values, "immediate-rereads"),
                (int) number(values, "rereads-in-a-row"));
    }

    private static long number(Map<String, String> values, String name)
    {
        String value = values.get(name);
        if (!value.matches("[0-9]{1,9}")) {
            throw new IllegalArgumentException("--" + name + " is not a number: " + value);
        }
        return Long.parseLong(value);
    }
}
