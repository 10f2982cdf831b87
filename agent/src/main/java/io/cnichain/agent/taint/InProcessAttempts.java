package io.cnichain.agent.taint;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.agent.kube.ApiCallException;
import io.cnichain.agent.taint.AttemptOutcome.Result;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The attempts, on the remover's own thread, through the agent's one API client ({@code KubeApiClient}): {@code GET}
 * the node, and if it has the taint and the agent is still ready, {@code PATCH} it with a JSON patch that tests and
 * removes each taint with the key; on a changed node (422, 409) read it again at once, up to the policy's limit. The
 * client is kept across the attempts of one remover (it re-reads the CA and the token for every call) and goes with
 * the remover's thread once the taint is gone.
 *
 * <p>The attempts once ran in a child JVM each, so that the TLS stack and the HTTP client left the agent's memory
 * with it. Measured in the image, that child made the container's peak far higher than what the client keeps in the
 * agent (docs/install.md, "Upgrade and uninstall"), and the agent loads the same client on SIGTERM anyway to decide whether
 * this is an uninstall.
 */
final class InProcessAttempts
        implements AttemptRunner
{
    private NodeApiClient api;

    @Override
    public AttemptOutcome attempt(AttemptArguments attempt, BooleanSupplier mayPatch, Consumer<Changed> onChanged)
            throws InterruptedException
    {
        if (api == null) {
            api = new NodeApiClient(attempt);
        }
        int rereadsInARow = attempt.rereadsInARow();
        while (true) {
            try {
                JsonNode read = api.getNode();
                NodeTaints taints = NodeTaints.withKey(read, attempt.key());
                if (taints.isEmpty()) {
                    return AttemptOutcome.of(Result.ABSENT, rereadsInARow);
                }
                if (!mayPatch.getAsBoolean()) {
                    return AttemptOutcome.of(Result.STOPPED, rereadsInARow);
                }
                int status = api.patchNode(taints.removal());
                if (status == 200) {
                    return AttemptOutcome.removed(taints.describe(), rereadsInARow);
                }
                rereadsInARow++;
                if (rereadsInARow > attempt.immediateRereads()) {
                    throw new ApiCallException("HTTP " + status, "PATCH /api/v1/nodes/" + attempt.node() + ": HTTP " + status + ", " + rereadsInARow
                            + " times in a row: the node keeps changing between our read and our patch, or the API server refuses the patch");
                }
                onChanged.accept(new Changed(status, rereadsInARow));
            }
            catch (ApiCallException e) {
                return AttemptOutcome.retry(e, rereadsInARow);
            }
            catch (RuntimeException e) {
                return AttemptOutcome.fatal(e.getClass().getName(), "unexpected " + e, rereadsInARow);
            }
        }
    }
}
