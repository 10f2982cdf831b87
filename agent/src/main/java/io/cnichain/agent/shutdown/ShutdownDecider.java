package io.cnichain.agent.shutdown;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ApiServerSettings;
import io.cnichain.core.config.CleanupMode;
import io.cnichain.core.config.PodIdentity;
import io.cnichain.agent.kube.ApiCallException;
import io.cnichain.agent.kube.KubeApiClient;
import io.cnichain.agent.kube.KubeApiClient.Hint;
import io.cnichain.agent.shutdown.ShutdownDecision.Reason;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static java.util.Objects.requireNonNull;

/**
 * Decides, when the agent is stopped, whether this is an uninstall (remove what we installed) or not (an update, a
 * restart, a node shutdown: keep it, so that no pod starts without the plugin in between). With
 * {@code cleanupOnShutdown: auto} in a cluster:
 * <ol>
 *   <li>What the {@link DaemonSetWatch} saw while the agent ran: its DaemonSet deleted, being deleted or replaced is
 *       an uninstall, whatever the API says now (an uninstall may have revoked the credentials already).</li>
 *   <li>Otherwise a fresh look: the agent's pod, its DaemonSet, its node. A DaemonSet that is gone, being deleted or no
 *       longer placing a pod here is an uninstall; one that still does is an update, a restart or a node shutdown.</li>
 *   <li>Credentials refused (401, 403) are an uninstall: {@code kubectl delete -k} deletes the Namespace, the
 *       ServiceAccount and the RBAC before the DaemonSet, {@code helm uninstall} deletes them right after it, without
 *       waiting for the pods. Kept, the entry would name a plugin whose kubeconfig's token is dead, and linkerd-cni
 *       fails closed: no pod would start on the node again. Nothing else produces them at a stop. In a rolling update,
 *       a {@code rollout restart} or an eviction the pod is deleted gracefully: its object, and so its bound token,
 *       stays valid until the kubelet reports the containers stopped, and the ServiceAccount and RBAC are not touched
 *       (their names do not change between versions; Helm applies new RBAC before it deletes old objects). A container
 *       restart keeps the pod and its token. A reboot or a node shutdown does not delete the pod either, and its token
 *       is the kubelet's, refreshed at 80% of its lifetime: a token that expired while the node was down is never the
 *       one at a stop, since the kubelet fetches a new one before it starts the container again (and the API server
 *       extends the chart's 3607 s tokens to a year). One case does: a pod deleted with {@code --force
 *       --grace-period=0} loses its object at once; the DaemonSet's next pod installs again within seconds.</li>
 *   <li>An API server that cannot be reached (no connection, no route, no answer within the budget) is not an
 *       uninstall: a node going down often loses its network first; a kept entry names a binary that stays on disk,
 *       and {@code cni-chain uninstall} clears it. Other errors (5xx, 429) say nothing of an uninstall: kept too.</li>
 * </ol>
 */
public final class ShutdownDecider
{
    /** At most this long for all three calls, whatever the shutdown timeout: cleanup needs the rest. */
    static final Duration MAX_BUDGET = Duration.ofSeconds(5);

    private final CleanupMode mode;
    private final Optional<PodIdentity> pod;
    private final ApiServerSettings api;
    private final Duration budget;

    /**
     * @param mode   {@code cleanupOnShutdown}
     * @param pod    the agent's pod and node, if known
     * @param api    the API server and the service account
     * @param budget how long the calls may take in all
     */
    public ShutdownDecider(CleanupMode mode, Optional<PodIdentity> pod, ApiServerSettings api, Duration budget)
    {
        this.mode = requireNonNull(mode, "mode is null");
        this.pod = requireNonNull(pod, "pod is null");
        this.api = requireNonNull(api, "api is null");
        this.budget = requireNonNull(budget, "budget is null");
    }

    /** The agent's: half its shutdown timeout, at most {@link #MAX_BUDGET}, for the calls. */
    public static ShutdownDecider fromConfig(AgentConfig config)
    {
        // Not Duration.dividedBy, which goes through BigDecimal (CniJson.toTree says why that matters).
        Duration half = Duration.ofMillis(config.run().shutdownTimeout().toMillis() / 2);
        return new ShutdownDecider(config.run().cleanupOnShutdown(), config.run().pod(), config.apiServer(),
                half.compareTo(MAX_BUDGET) < 0 ? half : MAX_BUDGET);
    }

    /** @return what to do, within the budget */
    public ShutdownDecision decide()
    {
        return decide(Optional.empty());
    }

    /**
     * @param seen the uninstall the agent saw while running ({@link DaemonSetWatch#uninstallSeen()}), if any
     * @return what to do, within the budget
     */
    public ShutdownDecision decide(Optional<ShutdownDecision> seen)
    {
        switch (mode) {
            case ALWAYS:
                return ShutdownDecision.cleanUp(Reason.CONFIGURED_ALWAYS, "cleanupOnShutdown is always");
            case NEVER:
                return ShutdownDecision.keep(Reason.CONFIGURED_NEVER, "cleanupOnShutdown is never (or --no-cleanup)");
            default:
                break;
        }
        if (pod.isEmpty() || api.host().isEmpty() || api.port().isEmpty()) {
            return ShutdownDecision.cleanUp(Reason.OUTSIDE_CLUSTER, "not in a cluster (cleanupOnShutdown auto asks the API server only when "
                    + "KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT, POD_NAME, POD_NAMESPACE and NODE_NAME are set; not set: " + missing() + ")");
        }
        if (seen.isPresent()) {
            return seen.get();
        }
        if (!api.protocol().equals("https")) {
            return ShutdownDecision.keep(Reason.API_UNAVAILABLE, "cannot ask the API server: KUBERNETES_SERVICE_PROTOCOL is " + api.protocol()
                    + " and the agent sends its token over https only");
        }
        KubeApiClient client = client(api, budget);
        FutureTask<ShutdownDecision> asking = new FutureTask<>(() -> ask(client, pod.get()));
        Thread thread = new Thread(asking, "shutdown-decision");
        // Abandoned, not waited for, when the API server does not answer in time: the process is exiting.
        thread.setDaemon(true);
        thread.start();
        try {
            return asking.get(budget.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (TimeoutException e) {
            asking.cancel(true);
            return ShutdownDecision.keep(Reason.API_UNAVAILABLE, "the API server did not answer within " + budget.toMillis() + " ms");
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ShutdownDecision.keep(Reason.API_UNAVAILABLE, "interrupted while asking the API server");
        }
        catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof ApiCallException failure) {
                return fromFailure(failure);
            }
            return ShutdownDecision.keep(Reason.API_UNAVAILABLE, "unexpected " + cause);
        }
    }

    /** A call that failed: refused credentials mean an uninstall; no answer, or an error, does not. */
    static ShutdownDecision fromFailure(ApiCallException failure)
    {
        return switch (failure.kind()) {
            case "HTTP 401", "HTTP 403" -> ShutdownDecision.cleanUp(Reason.CREDENTIALS_REVOKED, failure.getMessage()
                    + ": the agent's credentials are refused, as when an uninstall deletes its ServiceAccount and RBAC");
            case "connect timeout", "timeout", "connection" -> ShutdownDecision.keep(Reason.API_UNAVAILABLE, failure.getMessage());
            default -> ShutdownDecision.keep(Reason.API_ERROR, failure.getMessage());
        };
    }

    /** A client for the agent's calls: its own budget for each. */
    public static KubeApiClient client(ApiServerSettings api, Duration timeout)
    {
        return new KubeApiClient(api.host().orElseThrow(), api.port().orElseThrow(), api.tokenFile(), api.effectiveCaFile(), timeout, timeout);
    }

    private String missing()
    {
        List<String> missing = new ArrayList<>();
        if (api.host().isEmpty()) {
            missing.add("KUBERNETES_SERVICE_HOST");
        }
        if (api.port().isEmpty()) {
            missing.add("KUBERNETES_SERVICE_PORT");
        }
        if (pod.isEmpty()) {
            missing.add("POD_NAME, POD_NAMESPACE or NODE_NAME");
        }
        return String.join(", ", missing);
    }

    /** The three reads, in order; each answer decides or leads to the next. */
    static ShutdownDecision ask(KubeApiClient client, PodIdentity self)
            throws ApiCallException, InterruptedException
    {
        String ns = self.namespace();
        String podPath = "/api/v1/namespaces/" + ns + "/pods/" + self.pod();
        Optional<JsonNode> pod = client.find(podPath, new Hint(" (the agent's Role must allow get on pods in namespace " + ns + ")", ""));
        if (pod.isEmpty()) {
            throw new ApiCallException("HTTP 404", "GET " + podPath + ": HTTP 404: the agent's own pod is not found, so its DaemonSet is unknown "
                    + "(POD_NAME and POD_NAMESPACE must be the pod's, from the downward API)");
        }
        Optional<JsonNode> owner = controller(pod.get());
        if (owner.isEmpty()) {
            return ShutdownDecision.cleanUp(Reason.NO_DAEMONSET, "pod " + ns + "/" + self.pod() + " has no DaemonSet as its controller, "
                    + "so nothing will start the agent again here");
        }
        String name = owner.get().path("name").asText();
        String uid = owner.get().path("uid").asText();
        String dsName = "DaemonSet " + ns + "/" + name;
        Optional<JsonNode> daemonSet = client.find("/apis/apps/v1/namespaces/" + ns + "/daemonsets/" + name,
                new Hint(" (the agent's Role must allow get on daemonsets in namespace " + ns + ")", ""));
        if (daemonSet.isEmpty()) {
            return ShutdownDecision.cleanUp(Reason.DAEMONSET_GONE, dsName + " is gone: an uninstall");
        }
        JsonNode metadata = daemonSet.get().path("metadata");
        if (!metadata.path("uid").asText().equals(uid)) {
            return ShutdownDecision.cleanUp(Reason.DAEMONSET_REPLACED, dsName + " has uid " + metadata.path("uid").asText() + ", not " + uid
                    + " which made this pod: the one that did was deleted");
        }
        if (metadata.hasNonNull("deletionTimestamp")) {
            return ShutdownDecision.cleanUp(Reason.DAEMONSET_DELETING, dsName + " is being deleted (deletionTimestamp "
                    + metadata.path("deletionTimestamp").asText() + "): an uninstall");
        }
        String nodePath = "/api/v1/nodes/" + self.node();
        Optional<JsonNode> node = client.find(nodePath, new Hint(" (the agent's ClusterRole must allow get on nodes)", ""));
        if (node.isEmpty()) {
            return ShutdownDecision.cleanUp(Reason.NODE_GONE, "node " + self.node() + " is gone from the API");
        }
        Optional<String> whyNot = NodePlacement.whyNot(daemonSet.get().path("spec").path("template").path("spec"), node.get());
        if (whyNot.isPresent()) {
            return ShutdownDecision.cleanUp(Reason.NOT_PLACED, dsName + " no longer places a pod on node " + self.node() + ": " + whyNot.get());
        }
        return ShutdownDecision.keep(Reason.STILL_PLACED, dsName + " exists and still places a pod on node " + self.node()
                + ": an update, a restart or a node shutdown, not an uninstall");
    }

    private static Optional<JsonNode> controller(JsonNode pod)
    {
        for (JsonNode reference : pod.path("metadata").path("ownerReferences")) {
            if (reference.path("controller").asBoolean(false)) {
                boolean daemonSet = reference.path("kind").asText().equals("DaemonSet") && reference.path("apiVersion").asText().startsWith("apps/");
                return daemonSet ? Optional.of(reference) : Optional.empty();
            }
        }
        return Optional.empty();
    }
}
