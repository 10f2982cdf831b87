package io.cnichain.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
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
 * <p>Before its first patch it checks that its right to patch Nodes is fenced: a dry run of a change the fence must
 * deny (a label on its own Node). Allowed, the fence is missing (no ValidatingAdmissionPolicy, or its binding's
 * parameter gone) and it removes nothing, saying so; the right is then as wide as RBAC's, and a lost node's root could
 * use it on any Node.
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

    private final KubeApiClient client;
    private final String node;
    private final String key;
    private final Backoff backoff = new Backoff(Backoff.Policy.apiServer(), new SplittableRandom());
    private final Backoff fenceBackoff = new Backoff(FENCE, new SplittableRandom());
    private volatile boolean ready;
    private volatile String state;
    private volatile boolean removed;
    private boolean fenced;
    private String lastError = "";
    private int failures;

    public StartupTaint(KubeApiClient client, String node, String key)
    {
        this.client = requireNonNull(client, "client is null");
        this.node = requireNonNull(node, "node is null");
        this.key = requireNonNull(key, "key is null");
        this.state = "kept until the agent is ready";
        log.info("Taint {} stays on node {} until the chained plugin is in place", key, node);
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
            if (failures > 0 || fenced) {
                log.info("Agent not ready any more; taint {} stays on node {} until it is", key, node);
            }
            state = "kept until the agent is ready";
            return new KubeWork.Next.WhenWoken();
        }
        String path = "/api/v1/nodes/" + node;
        KubeApiClient.Hint hint = new KubeApiClient.Hint(" (the agent's ClusterRole must allow get and patch on nodes)",
                " (NODE_NAME must be the node's name, from the downward API)");
        try {
            if (!fenced) {
                boolean denied = client.deniedByAdmission(path, "[{\"op\":\"add\",\"path\":\"/metadata/labels/" + FENCE_LABEL + "\",\"value\":\"x\"}]",
                        hint);
                if (!denied) {
                    Duration wait = fenceBackoff.failed(now).orElseThrow();
                    String why = "not removed: the fence around this right is missing (a dry run of a label change on node " + node + " was allowed; "
                            + "install the ValidatingAdmissionPolicy cni-chain-node-taint and its binding, Kubernetes 1.30 or later)";
                    if (!why.equals(state)) {
                        log.error("Taint {} on node {}: {}", key, node, why);
                    }
                    state = why;
                    return new KubeWork.Next.At(now + wait.toNanos());
                }
                fenced = true;
                log.info("The fence around the start-up taint's remover is in place (a dry run of a label change on node {} was denied)", node);
            }
            for (int reread = 0; reread < 5; reread++) {
                JsonNode current = client.get(path, hint);
                NodeTaints taints = NodeTaints.withKey(current, key);
                if (taints.isEmpty()) {
                    log.info("Node {} has no taint {} (already removed, or registered without it); nothing to do", node, key);
                    return done("not present, nothing to remove");
                }
                if (!ready) {
                    return new KubeWork.Next.WhenWoken();
                }
                if (client.jsonPatch(path, CniJson.compact(taints.removal()), hint) == 200) {
                    log.info("Removed taint {} from node {}; pods can be scheduled on it{}", taints.describe(), node,
                            failures == 0 ? "" : " (after " + failures + " failed attempt" + (failures == 1 ? ")" : "s)"));
                    return done("removed");
                }
                log.debug("The taints of node {} changed since they were read; reading them again", node);
            }
            throw new ApiCallException("conflict", "PATCH " + path + ": the node's taints changed under every patch of 5");
        }
        catch (ApiCallException e) {
            failures++;
            // The server's Retry-After wins over the back-off's step, up to the back-off's longest wait.
            Duration step = backoff.failed(now).orElseThrow();
            Duration cap = backoff.policy().cap();
            Duration wait = e.retryAfter().map(asked -> asked.compareTo(cap) > 0 ? cap : asked).filter(asked -> asked.compareTo(step) > 0).orElse(step);
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
