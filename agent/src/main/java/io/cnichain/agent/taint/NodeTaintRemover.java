package io.cnichain.agent.taint;

import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ApiServerSettings;
import io.cnichain.core.config.NodeTaintSettings;
import io.cnichain.agent.taint.TaintRemovalState.Phase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * Removes the start-up taint ({@code nodeTaint.key}) from this node once the agent is ready, so that no pod is
 * scheduled on the node before the chained plugin is in place. Every taint with the key is removed, whatever its
 * value and effect, by a JSON patch that tests each taint at its position first: a concurrent change by another
 * controller makes the patch fail (422) instead of being lost, and the node is read again. Errors back off
 * ({@link RetryPolicy}); the log says what happens once per change, not once per attempt. The taint is never added
 * back: on a running node it would evict nothing and only stop scheduling, which is the cluster operator's call.
 *
 * <p>The reconcile loop drives it with one call, {@link #onReadiness(boolean)} after every pass; that call only
 * compares a flag unless readiness changed. The work runs on the remover's own daemon thread, started the first
 * time the agent is ready, so a slow API server never stalls the loop. The thread ends once the taint is gone, or
 * was never there, or at {@link #close()}.
 *
 * <p>The calls are made on that thread ({@link InProcessAttempts}), each bounded by the policy's timeouts; a patch is
 * sent only while the agent is ready, and {@link #close()} interrupts a call in flight.
 */
public final class NodeTaintRemover
        implements AutoCloseable
{
    /** The metric the agent renders from {@link TaintRemovalState#removedGauge()}. */
    public static final String METRIC_NAME = "cnichain_node_taint_removed";
    public static final String METRIC_HELP = "Whether this node no longer has the start-up taint (1: removed by the agent, or found without it).";
    static final String THREAD_NAME = "node-taint-remover";

    private static final Logger log = LoggerFactory.getLogger(NodeTaintRemover.class);
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(2);

    private final String node;
    private final String key;
    private final RetryPolicy policy;
    private final AttemptArguments firstAttempt;
    private final Supplier<AttemptRunner> attempts;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile boolean ready;
    private volatile TaintRemovalState state;
    private volatile boolean closed;
    private Thread worker;

    /**
     * @param settings the taint and the node; must be enabled
     * @param api      the API server and the service account's token and CA; {@code skipTlsVerify} is ignored
     * @param policy   back-off and timeouts
     */
    public NodeTaintRemover(NodeTaintSettings settings, ApiServerSettings api, RetryPolicy policy)
    {
        this(settings, api, policy, InProcessAttempts::new);
    }

    /** @param attempts what runs the attempts, made on the remover's thread */
    NodeTaintRemover(NodeTaintSettings settings, ApiServerSettings api, RetryPolicy policy, Supplier<AttemptRunner> attempts)
    {
        if (!settings.enabled()) {
            throw new IllegalArgumentException("node taint removal is not enabled");
        }
        this.node = settings.nodeName().orElseThrow();
        this.key = settings.key();
        this.policy = requireNonNull(policy, "policy is null");
        this.attempts = requireNonNull(attempts, "attempts is null");
        requireNonNull(api, "api is null");
        if (api.host().isEmpty() || api.port().isEmpty()) {
            throw new IllegalArgumentException("the API server's host and port are needed");
        }
        this.firstAttempt = AttemptArguments.of(api, node, key, policy);
        this.state = new TaintRemovalState(Phase.WAITING_FOR_READINESS, node, key, 0, Optional.empty());
        log.info("Taint {} stays on node {} until the chained plugin is in place", key, node);
    }

    /**
     * @param config the agent's configuration
     * @return a remover with the default policy, or empty when {@code nodeTaint.enabled} is false (nothing is
     *         created then: no thread, no client)
     */
    public static Optional<NodeTaintRemover> fromConfig(AgentConfig config)
    {
        return config.nodeTaint().enabled()
                ? Optional.of(new NodeTaintRemover(config.nodeTaint(), config.apiServer(), RetryPolicy.defaults()))
                : Optional.empty();
    }

    /**
     * Called by the reconcile loop after every pass, with its verdict: the effective configuration carries our
     * entry, the binary and the kubeconfig are present, no fight. Returns at once; does nothing unless readiness
     * changed. The taint is removed only while the agent is ready: when readiness is lost before the removal
     * succeeded, no further request is sent until it is back.
     */
    public void onReadiness(boolean ready)
    {
        if (this.ready == ready) {
            return;
        }
        lock.lock();
        try {
            this.ready = ready;
            if (closed || state.finished()) {
                return;
            }
            if (ready && worker == null) {
                worker = new Thread(this::work, THREAD_NAME);
                worker.setDaemon(true);
                worker.start();
            }
            changed.signalAll();
        }
        finally {
            lock.unlock();
        }
    }

    /** Where the removal stands, for {@code /readyz}'s detail and {@value #METRIC_NAME}. */
    public TaintRemovalState state()
    {
        return state;
    }

    /**
     * Stops the thread, interrupting a call in flight (a patch already sent may still be applied); waits for the
     * thread at most 2 s. The taint stays as it is.
     */
    @Override
    public void close()
    {
        Thread thread;
        lock.lock();
        try {
            closed = true;
            thread = worker;
            changed.signalAll();
        }
        finally {
            lock.unlock();
        }
        if (thread != null && thread != Thread.currentThread()) {
            thread.interrupt();
            try {
                thread.join(JOIN_TIMEOUT.toMillis());
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void work()
    {
        AttemptRunner runner = attempts.get();
        int errorsInARow = 0;
        int rereadsInARow = 0;
        int failedAttempts = 0;
        String loggedError = null;
        try {
            while (awaitReadiness()) {
                AttemptOutcome outcome = runner.attempt(firstAttempt.withRereadsInARow(rereadsInARow), () -> ready && !closed,
                        changed -> log.debug("The taints of node {} changed since they were read (HTTP {}); reading them again", node, changed.status()));
                rereadsInARow = outcome.rereadsInARow();
                switch (outcome.result()) {
                    case REMOVED -> {
                        log.info("Removed taint {} from node {}; pods can be scheduled on it{}", outcome.taints().orElse(key), node,
                                failedAttempts == 0 ? "" : " (after " + failedAttempts + " failed attempt" + (failedAttempts == 1 ? ")" : "s)"));
                        publish(Phase.REMOVED, failedAttempts, Optional.empty());
                        return;
                    }
                    case ABSENT -> {
                        log.info("Node {} has no taint {} (already removed, or registered without it); nothing to do", node, key);
                        publish(Phase.ABSENT, failedAttempts, Optional.empty());
                        return;
                    }
                    case STOPPED -> {
                        // Read, not patched: readiness went meanwhile (or close()); awaitReadiness says so.
                    }
                    case RETRY, FATAL -> {
                        if (closed) {
                            return;
                        }
                        String kind = outcome.kind().orElseThrow();
                        String message = outcome.error().orElseThrow();
                        errorsInARow++;
                        failedAttempts++;
                        if (!kind.equals(loggedError)) {
                            log.warn("Cannot remove taint {} from node {} yet, retrying with back-off: {}", key, node, message);
                            loggedError = kind;
                        }
                        publish(Phase.REMOVING, failedAttempts, Optional.of(message));
                        pause(policy.backoff(errorsInARow, outcome.retryAfter()));
                    }
                }
            }
        }
        catch (InterruptedException e) {
            // close(): the call in flight is abandoned, the taint stays as it is
        }
    }

    /**
     * Blocks while the agent is not ready.
     *
     * @return false once closed
     */
    private boolean awaitReadiness()
            throws InterruptedException
    {
        lock.lock();
        try {
            while (!ready && !closed) {
                if (state.phase() == Phase.REMOVING) {
                    log.info("Agent not ready any more; taint {} stays on node {} until it is", key, node);
                    publish(Phase.WAITING_FOR_READINESS, state.failedAttempts(), state.lastError());
                }
                changed.await();
            }
            if (!closed && state.phase() == Phase.WAITING_FOR_READINESS) {
                log.info("Agent ready; removing taint {} from node {}", key, node);
                publish(Phase.REMOVING, state.failedAttempts(), state.lastError());
            }
            return !closed;
        }
        finally {
            lock.unlock();
        }
    }

    /** Waits out a back-off step; only {@link #close()} ends it early. */
    private void pause(Duration wait)
            throws InterruptedException
    {
        lock.lock();
        try {
            long remaining = wait.toNanos();
            while (!closed && remaining > 0) {
                remaining = changed.awaitNanos(remaining);
            }
        }
        finally {
            lock.unlock();
        }
    }

    /** After the log line that tells of the change: what {@link #state()} shows has always been logged. */
    private void publish(Phase phase, int failedAttempts, Optional<String> lastError)
    {
        state = new TaintRemovalState(phase, node, key, failedAttempts, lastError);
    }
}
