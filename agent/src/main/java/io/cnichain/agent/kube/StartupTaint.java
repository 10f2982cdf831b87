package io.cnichain.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.cnichain.agent.time.Backoff;
import io.cnichain.core.json.CniJson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Removes the start-up taint ({@code nodeTaint.key}) from this node once the agent is ready, so that no pod is scheduled
 * on the node before the chained plugin is in place. It never adds it back: on a running node that would only stop
 * scheduling, the operator's call.
 *
 * <p>Each try first checks that its right to patch Nodes is fenced, by a dry run of a change the fence must deny (a
 * label on its own Node). Without the fence the right is as wide as RBAC's, and a lost node's root could use it on any
 * Node: then it removes nothing, and says so.
 */
public final class StartupTaint
        implements KubeWork.Task
{
    public static final String METRIC_NAME = "cnichain_node_taint_removed";
    public static final String METRIC_HELP = "Whether this node no longer has the start-up taint (1: removed by the agent, or found without it).";
    private static final Logger log = LoggerFactory.getLogger(StartupTaint.class);
    private static final String FENCE_LABEL = "cni-chain.io~1fence-check";
    private static final String KEPT = "kept until the agent is ready";
    /** The fence's own word for it (components/node-taint's policy): a label change denied by another policy is no proof. */
    private static final String FENCE_DENIAL = "cni-chain may not change a node's labels";

    public enum Lifted
    {
        REMOVED,
        ABSENT,
        /** The fence's dry run was admitted: nothing was patched. */
        FENCE_MISSING
    }

    /** @param taints the taints removed, as kubectl writes them */
    public record Result(Lifted lifted, String taints)
    {
        /** As a child prints it: {@code LIFTED} or {@code LIFTED:taints}. */
        @Override
        public String toString()
        {
            return taints.isEmpty() ? lifted.name() : lifted.name() + ":" + taints;
        }
    }

    public static Result parse(String value)
    {
        int colon = value.indexOf(':');
        return colon < 0 ? new Result(Lifted.valueOf(value), "") : new Result(Lifted.valueOf(value.substring(0, colon)), value.substring(colon + 1));
    }

    private final Attempt<Result> attempt;
    private final String node;
    private final String key;
    private final Backoff backoff = new Backoff(Backoff.Policy.apiServer(), new SplittableRandom());
    /** A missing fence, or a refusal: a setup to fix. */
    private final Backoff refusals = new Backoff(Backoff.Policy.refusedByApiServer(), new SplittableRandom());
    private volatile boolean ready;
    private volatile String state;
    private volatile boolean removed;
    private String lastError = "";
    private int failures;

    public StartupTaint(Attempt<Result> attempt, String node, String key)
    {
        this.attempt = requireNonNull(attempt, "attempt is null");
        this.node = requireNonNull(node, "node is null");
        this.key = requireNonNull(key, "key is null");
        this.state = KEPT;
        log.info("Taint {} stays on node {} until the chained plugin is in place", key, node);
    }

    /** One try, in this process: the fence's dry run, then the node read and patched, again if another changed it between. */
    public static Result lift(KubeApiClient client, String node, String key)
            throws ApiCallException
    {
        String path = "/api/v1/nodes/" + node;
        KubeApiClient.Hint hint = new KubeApiClient.Hint(" (the agent's ClusterRole must allow get and patch on nodes)",
                " (NODE_NAME must be the node's name, from the downward API)");
        if (!client.deniedByAdmission(path, "[{\"op\":\"add\",\"path\":\"/metadata/labels/" + FENCE_LABEL + "\",\"value\":\"x\"}]", FENCE_DENIAL, hint)) {
            return new Result(Lifted.FENCE_MISSING, "");
        }
        for (int reread = 0; reread < 5; reread++) {
            NodeTaints taints = NodeTaints.withKey(client.get(path, hint), key);
            if (taints.isEmpty()) {
                return new Result(Lifted.ABSENT, "");
            }
            if (client.jsonPatch(path, CniJson.compact(taints.removal()), hint) == 200) {
                return new Result(Lifted.REMOVED, taints.describe());
            }
        }
        throw new ApiCallException("conflict", "PATCH " + path + ": the node's taints changed under every patch of 5");
    }

    /** Told after every pass: the taint goes only while the agent is ready. */
    public void onReadiness(boolean ready)
    {
        this.ready = ready;
    }

    public String describe()
    {
        return "node taint " + key + " on " + node + ": " + state;
    }

    public int removedGauge()
    {
        return removed ? 1 : 0;
    }

    @Override
    public KubeWork.Next run(long now)
    {
        if (!ready) {
            if (failures > 0 && !state.equals(KEPT)) {
                log.info("Agent not ready any more; taint {} stays on node {} until it is", key, node);
            }
            state = KEPT;
            return new KubeWork.Next.WhenWoken();
        }
        try {
            Result result = attempt.run();
            switch (result.lifted()) {
                case FENCE_MISSING -> {
                    Duration wait = refusals.failed(now).orElseThrow();
                    String why = "not removed: the fence around this right is missing (a dry run of a label change on node " + node + " was not denied by it; "
                            + "install the ValidatingAdmissionPolicy cni-chain-node-taint and its binding, Kubernetes 1.30 or later)";
                    if (!why.equals(state)) {
                        log.error("Taint {} on node {}: {}", key, node, why);
                    }
                    state = why;
                    return new KubeWork.Next.In(wait);
                }
                case ABSENT -> {
                    log.info("Node {} has no taint {} (already removed, or registered without it); nothing to do", node, key);
                    return done("not present, nothing to remove");
                }
                default -> {
                    log.info("Removed taint {} from node {} (its fence is in place: a dry run of a label change was denied); pods can be scheduled on "
                            + "it{}", result.taints(), node, failures == 0 ? "" : " (after " + failures + " failed attempt" + (failures == 1 ? ")" : "s)"));
                    return done("removed");
                }
            }
        }
        catch (ApiCallException e) {
            failures++;
            Duration wait = e.wait(e.passing() ? backoff : refusals, now);
            if (!e.kind().equals(lastError)) {
                log.warn("Cannot remove taint {} from node {} yet, retrying with back-off: {}", key, node, e.getMessage());
                lastError = e.kind();
            }
            state = "removing (" + failures + " failed attempt" + (failures == 1 ? "" : "s") + "; last: " + e.getMessage() + ")";
            return new KubeWork.Next.In(wait);
        }
    }

    private KubeWork.Next done(String how)
    {
        state = how;
        removed = true;
        return new KubeWork.Next.Done();
    }

    /** A taint as kubectl writes it: {@code key=value:Effect}. */
    public static String describe(JsonNode taint)
    {
        String value = taint.path("value").asText("");
        return taint.path("key").asText() + (value.isEmpty() ? "" : "=" + value) + ":" + taint.path("effect").asText("");
    }

    /**
     * The taints with one key, and the JSON patch that removes exactly those: each {@code remove} follows a {@code test} of
     * the taint at its position, so that another controller's change in between fails the patch (422), not lost.
     */
    record NodeTaints(List<Match> matches)
    {
        static NodeTaints withKey(JsonNode node, String key)
        {
            List<Match> matches = new ArrayList<>();
            JsonNode taints = node.path("spec").path("taints");
            for (int i = 0; i < taints.size(); i++) {
                JsonNode taint = taints.get(i);
                if (taint.path("key").isTextual() && taint.path("key").asText().equals(key)) {
                    matches.add(new Match(i, taint));
                }
            }
            return new NodeTaints(List.copyOf(matches));
        }

        boolean isEmpty()
        {
            return matches.isEmpty();
        }

        /** Last position first, so that every earlier position still holds when its turn comes. */
        ArrayNode removal()
        {
            ArrayNode operations = JsonNodeFactory.instance.arrayNode();
            for (Match match : matches.reversed()) {
                String path = "/spec/taints/" + match.index();
                operations.addObject().put("op", "test").put("path", path).set("value", match.taint().deepCopy());
                operations.addObject().put("op", "remove").put("path", path);
            }
            return operations;
        }

        String describe()
        {
            return matches.stream().map(match -> StartupTaint.describe(match.taint())).collect(Collectors.joining(", "));
        }

        record Match(int index, JsonNode taint) {}
    }
}
