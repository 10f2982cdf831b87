package io.cnichain.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ApiServerSettings;
import io.cnichain.core.placement.PlacementDecision;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code placement: auto}: the node's container runtime as its Node object reports it
 * ({@code status.nodeInfo.containerRuntimeVersion}, which the kubelet fills from the runtime's CRI {@code Version}
 * answer), read once at start with one {@code GET}. Anything that keeps it from being known (no {@code NODE_NAME},
 * no API server, a refused or failed call) means {@code patch}, which every runtime runs.
 */
public final class NodeRuntime
{
    /** Start-up waits at most this long for the answer: then it patches, as for any unknown runtime. */
    static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final KubeApiClient.Hint HINT = new KubeApiClient.Hint(" (placement auto needs get on nodes: the chart's and kustomize's "
            + "ClusterRole grant it when placement is auto)", " (NODE_NAME must be the node's name, from the downward API)");

    private NodeRuntime() {}

    /** Where the entry goes on this node, asking the API server only for {@code auto}. */
    public static PlacementDecision placement(AgentConfig config)
    {
        Optional<PlacementDecision> configured = PlacementDecision.configured(config.placement());
        if (configured.isPresent()) {
            return configured.get();
        }
        Optional<String> node = config.nodeTaint().nodeName();
        ApiServerSettings api = config.apiServer();
        List<String> missing = new ArrayList<>();
        if (node.isEmpty()) {
            missing.add("NODE_NAME");
        }
        if (api.host().isEmpty()) {
            missing.add("KUBERNETES_SERVICE_HOST");
        }
        if (api.port().isEmpty()) {
            missing.add("KUBERNETES_SERVICE_PORT");
        }
        if (!missing.isEmpty()) {
            return PlacementDecision.runtimeUnknown(String.join(", ", missing) + (missing.size() == 1 ? " is" : " are") + " not set");
        }
        String path = "/api/v1/nodes/" + node.get();
        try {
            JsonNode answer = new KubeApiClient(api.host().get(), api.port().get(), api.tokenFile(), api.effectiveCaFile(), TIMEOUT, TIMEOUT).get(path, HINT);
            JsonNode version = answer.path("status").path("nodeInfo").path("containerRuntimeVersion");
            if (!version.isTextual()) {
                return PlacementDecision.runtimeUnknown("GET " + path + ": the Node has no status.nodeInfo.containerRuntimeVersion");
            }
            return PlacementDecision.forRuntime(version.asText());
        }
        catch (ApiCallException e) {
            return PlacementDecision.runtimeUnknown(e.getMessage());
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return PlacementDecision.runtimeUnknown("interrupted while asking the API server");
        }
    }
}
