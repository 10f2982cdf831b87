package io.cnichain.agent.taint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.cnichain.core.json.CniJson;
import io.cnichain.agent.kube.ApiCallException;
import io.cnichain.agent.kube.KubeApiClient;

/** The remover's two calls, {@code GET} and JSON-patch {@code PATCH} of {@code /api/v1/nodes/NAME}, by one thread. */
final class NodeApiClient
{
    private static final KubeApiClient.Hint HINT = new KubeApiClient.Hint(" (the agent's ClusterRole must allow get and patch on nodes)",
            " (NODE_NAME must be this node's name)");

    private final String nodePath;
    private final KubeApiClient api;

    /** @param attempt the API server, the node, the token and CA files, the timeouts */
    NodeApiClient(AttemptArguments attempt)
    {
        this.nodePath = "/api/v1/nodes/" + attempt.node();
        this.api = new KubeApiClient(attempt.host(), attempt.port(), attempt.tokenFile(), attempt.caFile(), attempt.connectTimeout(),
                attempt.requestTimeout());
    }

    /** {@code GET /api/v1/nodes/NAME}. */
    JsonNode getNode()
            throws ApiCallException, InterruptedException
    {
        return api.get(nodePath, HINT);
    }

    /**
     * {@code PATCH /api/v1/nodes/NAME} with a JSON patch.
     *
     * @return 200 when applied; 422 (a {@code test} operation failed) or 409 (a conflict) when the node changed
     *         since it was read
     */
    int patchNode(ArrayNode operations)
            throws ApiCallException, InterruptedException
    {
        return api.jsonPatch(nodePath, CniJson.compact(operations), HINT);
    }
}
