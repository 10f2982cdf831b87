package io.cnichain.agent.shutdown;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ApiServerSettings;
import io.cnichain.core.config.CleanupMode;
import io.cnichain.core.config.PodIdentity;
import io.cnichain.agent.kube.ApiCallException;
import io.cnichain.agent.kube.Attempt;
import io.cnichain.agent.kube.KubeApiClient;
import io.cnichain.agent.kube.KubeApiClient.Hint;
import io.cnichain.agent.shutdown.ShutdownDecision.Reason;
import io.cnichain.agent.time.Clock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Decides, when the agent is stopped, whether this is an uninstall (remove what we installed) or not (an update, a
 * restart, a node shutdown: keep it, so that no pod starts without the plugin in between), from the present: the
 * agent's pod, the DaemonSet its controller reference names, and its node. Refused credentials are an uninstall too:
 * both orders of an uninstall take the ServiceAccount or the RBAC away while the pods stop, and nothing else refuses a
 * pod's bound token at a stop. No answer in time is not: a node going down often loses its network first, and a kept
 * entry names a binary that stays on disk.
 *
 * <p>Nothing seen earlier counts: an event latched about another object, or a DaemonSet deleted with
 * {@code --cascade=orphan} and applied again (which adopts the running pods), would decide wrongly.
 */
public final class ShutdownDecider
{
    /**
     * At most this long for the calls, and half the shutdown timeout at most: cleanup needs the rest. A fleet stopped at
     * once (an uninstall, every pod of the DaemonSet deleted together) asks the API server a thousand times in a second.
     */
    static final Duration MAX_BUDGET = Duration.ofSeconds(10);

    private final CleanupMode mode;
    private final Optional<PodIdentity> pod;
    private final ApiServerSettings api;
    private final Duration budget;
    private final Clock clock;

    /** @param budget how long the calls may take in all */
    public ShutdownDecider(CleanupMode mode, Optional<PodIdentity> pod, ApiServerSettings api, Duration budget, Clock clock)
    {
        this.mode = requireNonNull(mode, "mode is null");
        this.pod = requireNonNull(pod, "pod is null");
        this.api = requireNonNull(api, "api is null");
        this.budget = requireNonNull(budget, "budget is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    public static ShutdownDecider fromConfig(AgentConfig config, Clock clock)
    {
        Duration half = Duration.ofMillis(config.run().shutdownTimeout().toMillis() / 2);
        return new ShutdownDecider(config.run().cleanupOnShutdown(), config.run().pod(), config.apiServer(),
                half.compareTo(MAX_BUDGET) < 0 ? half : MAX_BUDGET, clock);
    }

    public ShutdownDecision decide()
    {
        if (mode == CleanupMode.ALWAYS) {
            return ShutdownDecision.cleanUp(Reason.ALWAYS, "cleanupOnShutdown is always");
        }
        if (mode == CleanupMode.NEVER) {
            return ShutdownDecision.keep(Reason.NEVER, "cleanupOnShutdown is never (or --no-cleanup)");
        }
        if (pod.isEmpty() || api.host().isEmpty() || api.port().isEmpty()) {
            return ShutdownDecision.cleanUp(Reason.OUTSIDE_CLUSTER, "not in a cluster (cleanupOnShutdown auto asks the API server only when "
                    + "KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT, POD_NAME, POD_NAMESPACE and NODE_NAME are set; not set: " + missing() + ")");
        }
        if (!api.protocol().equals("https")) {
            return ShutdownDecision.keep(Reason.API_UNAVAILABLE, "cannot ask the API server: KUBERNETES_SERVICE_PROTOCOL is " + api.protocol()
                    + " and the agent sends its token over https only");
        }
        try {
            return ask(new Calls(new KubeApiClient(api, budget, clock), clock.nanoTime() + budget.toNanos(), budget, clock), pod.get());
        }
        catch (ApiCallException failure) {
            return fromFailure(failure);
        }
    }

    static ShutdownDecision fromFailure(ApiCallException failure)
    {
        return switch (failure.kind()) {
            case "HTTP 401", "HTTP 403" -> ShutdownDecision.cleanUp(Reason.CREDENTIALS_REVOKED, failure.getMessage()
                    + ": the agent's credentials are refused, as when an uninstall deletes its ServiceAccount and RBAC");
            case "timeout", "connection" -> ShutdownDecision.keep(Reason.API_UNAVAILABLE, failure.getMessage());
            default -> ShutdownDecision.keep(Reason.API_ERROR, failure.getMessage());
        };
    }

    /**
     * The decision's calls share one budget: each gets what is left of it. A busy, failing or unreachable server is
     * asked again within it, on the agent's one back-off (jittered, so that a fleet stopped at once spreads out).
     */
    record Calls(KubeApiClient client, long end, Duration budget, Clock clock)
    {
        Optional<JsonNode> find(String path, Hint hint)
                throws ApiCallException
        {
            Attempt<Optional<JsonNode>> attempt = () -> {
                long left = end - clock.nanoTime();
                if (left <= 0) {
                    throw new ApiCallException("timeout", "GET " + path + ": not asked");
                }
                return client.within(Duration.ofNanos(left)).find(path, hint);
            };
            try {
                return attempt.until(end, clock, first -> { });
            }
            catch (ApiCallException e) {
                if (e.kind().equals("timeout")) {
                    throw new ApiCallException("timeout", "the API server did not answer within " + budget.toMillis() + " ms (GET " + path + ")");
                }
                throw e;
            }
        }
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

    static ShutdownDecision ask(Calls client, PodIdentity self)
            throws ApiCallException
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
        // Being deleted (a rolling update, an eviction), ours is replaced only by a new pod; else it runs on (its container restarts).
        boolean deleting = pod.get().path("metadata").hasNonNull("deletionTimestamp");
        Optional<String> whyNot = NodePlacement.whyNot(daemonSet.get().path("spec").path("template").path("spec"), node.get(), deleting);
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
