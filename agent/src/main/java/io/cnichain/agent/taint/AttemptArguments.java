package io.cnichain.agent.taint;

import io.cnichain.core.config.ApiServerSettings;

import java.nio.file.Path;
import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * What one removal attempt needs. Never the token itself: the client reads the token file for every request.
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
}
