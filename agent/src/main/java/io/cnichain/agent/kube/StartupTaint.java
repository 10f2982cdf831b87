package io.cnichain.agent.kube;

import io.cnichain.agent.time.Backoff;
import io.cnichain.core.json.CniJson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.SplittableRandom;

import static java.util.Objects.requireNonNull;

/**
 * Removes the start-up taint ({@code nodeTaint.key}) from this node once the agent is ready, so that no pod is
 * scheduled on the node before the chained plugin is in place; never adds it back (on a running node that would only
 * stop scheduling, the operator's call). Every taint with the key goes, by a JSON patch that tests each taint at its
 * position first: another controller's change in between makes it fail (422) rather than be lost, and the node is read
 * again.
 *
 * <p>Before it patches, each try checks that its right to patch Nodes is fenced: a dry run of a change the fence must
 * deny (a label on its own Node). Allowed, the fence is missing (no ValidatingAdmissionPolicy, or its binding's
 * parameter gone) and it removes nothing, saying so; the right is then as wide as RBAC's, and a lost node's root could
 * use it on any Node. A try starts only while the agent is ready.
 */
public final class StartupTaint
        implements KubeWork.Task
{
    /** The metric the agent renders from {@link #removedGauge()}. */
    public static final String METRIC_NAME = "cnichain_node_taint_removed";
    public static final String METRIC_HELP = "Whether this node no longer has the start-up taint (1: removed by the agent, or found without it).";
    private static final Logger log = LoggerFactory.getLogger(StartupTaint.class);
    /** A missing fence is a setup to fix, not a blip: looked at again slowly, so that a fleet does not ask every 30 s. */
    private static final Backoff.Policy FENCE = new Backoff.Policy(Duration.ofSeconds(30), Duration.ofMinutes(10), 0.5, 0, Duration.ZERO);
    private static final String FENCE_LABEL = "cni-chain.io~1fence-check";

    /** How a try ended. */
    public enum Lifted
    {
        /** The taints with the key were removed. */
        REMOVED,
        /** The node has no taint with the key. */
        ABSENT,
        /** The fence's dry run was admitted: nothing was patched. */
        FENCE_MISSING
    }

    /**
     * @param lifted how it ended
     * @param taints the taints removed, as kubectl writes them, for {@link Lifted#REMOVED}
     */
    public record Result(Lifted lifted, String taints)
    {
        /** As a child prints it: {@code LIFTED} or {@code LIFTED:taints}. */
        @Override
        public String toString()
        {
            return taints.isEmpty() ? lifted.name() : lifted.name() + ":" + taints;
        }
    }

    /** A child's value ({@link Result#toString()}) as the result it was. */
    public static Result parse(String value)
    {
        int colon = value.indexOf(':');
        return colon < 0 ? new Result(Lifted.valueOf(value), "") : new Result(Lifted.valueOf(value.substring(0, colon)), value.substring(colon + 1));
    }

    private final Attempt<Result> attempt;
    private final String node;
    private final String key;
    private final Backoff backoff = new Backoff(Backoff.Policy.apiServer(), new SplittableRandom());
    private final Backoff fenceBackoff = new Backoff(FENCE, new SplittableRandom());
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
        this.state = "kept until the agent is ready";
        log.info("Taint {} stays on node {} until the chained plugin is in place", key, node);
    }

    /** One try, in this process: the fence's dry run, then the node read and patched, again if another changed it between. */
    public static Result lift(KubeApiClient client, String node, String key)
            throws ApiCallException
    {
        String path = "/api/v1/nodes/" + node;
        KubeApiClient.Hint hint = new KubeApiClient.Hint(" (the agent's ClusterRole must allow get and patch on nodes)",
                " (NODE_NAME must be the node's name, from the downward API)");
        if (!client.deniedByAdmission(path, "[{\"op\":\"add\",\"path\":\"/metadata/labels/" + FENCE_LABEL + "\",\"value\":\"x\"}]", hint)) {
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

    /** For {@code /readyz}'s detail (never a reason not to be ready: readiness is what removes it). */
    public String describe()
    {
        return "node taint " + key + " on " + node + ": " + state;
    }

    /** 1 once the node no longer has the taint (removed by the agent, or found without it). */
    public int removedGauge()
    {
        return removed ? 1 : 0;
    }

    @Override
    public KubeWork.Next run(long now)
    {
        if (!ready) {
            if (failures > 0) {
                log.info("Agent not ready any more; taint {} stays on node {} until it is", key, node);
            }
            state = "kept until the agent is ready";
            return new KubeWork.Next.WhenWoken();
        }
        try {
            Result result = attempt.run();
            switch (result.lifted()) {
                case FENCE_MISSING -> {
                    Duration wait = fenceBackoff.failed(now).orElseThrow();
                    String why = "not removed: the fence around this right is missing (a dry run of a label change on node " + node + " was allowed; "
                            + "install the ValidatingAdmissionPolicy cni-chain-node-taint and its binding, Kubernetes 1.30 or later)";
                    if (!why.equals(state)) {
                        log.error("Taint {} on node {}: {}", key, node, why);
                    }
                    state = why;
                    return new KubeWork.Next.At(now + wait.toNanos());
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
            Duration wait = e.wait(backoff, now);
            if (!e.kind().equals(lastError)) {
                log.warn("Cannot remove taint {} from node {} yet, retrying with back-off: {}", key, node, e.getMessage());
                lastError = e.kind();
            }
            state = "removing (" + failures + " failed attempt" + (failures == 1 ? "" : "s") + "; last: " + e.getMessage() + ")";
            return new KubeWork.Next.At(now + wait.toNanos());
        }
    }

    private KubeWork.Next done(String how)
    {
        state = how;
        removed = true;
        return new KubeWork.Next.Done();
    }
}
