package io.cnichain.agent.loop;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.CleanupMode;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.engine.UninstallReport;
import io.cnichain.agent.kube.Attempt;
import io.cnichain.agent.kube.ChildAttempt;
import io.cnichain.agent.kube.KubeApiClient;
import io.cnichain.agent.kube.KubeWork;
import io.cnichain.agent.kube.PluginToken;
import io.cnichain.agent.kube.StartupTaint;
import io.cnichain.agent.shutdown.ShutdownDecider;
import io.cnichain.agent.shutdown.ShutdownDecision;
import io.cnichain.agent.time.Clock;
import io.cnichain.core.config.KubeconfigSettings;
import io.cnichain.core.config.PodIdentity;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.nio.file.FileSystems;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The DaemonSet's main process: the reconcile loop on this thread, the health endpoints, and on a stop signal the
 * decision whether this is an uninstall ({@link ShutdownDecider}) and the cleanup it calls for, within a bounded time.
 */
public final class Agent
{
    private static final Logger log = LoggerFactory.getLogger(Agent.class);
    private static final List<String> SIGNALS = List.of("TERM", "INT", "HUP");
    private static final Duration CALL_DEADLINE = Duration.ofSeconds(10);
    /** A call made by a child: its JVM's start, then the call. */
    private static final Duration CHILD_DEADLINE = Duration.ofSeconds(40);

    private final Engine engine;
    private final AgentConfig config;
    private final AgentPolicy policy = AgentPolicy.defaults();
    private final AgentStatus status = new AgentStatus(Clock.SYSTEM);
    private final AgentMetrics metrics = new AgentMetrics();
    private final AtomicBoolean stopRequested = new AtomicBoolean();
    private volatile String stopSignal = "a signal";
    private volatile ReconcileLoop loop;

    public Agent(Engine engine)
    {
        this.engine = engine;
        this.config = engine.config();
    }

    /** @return the exit code, once a signal stopped the agent: 0 when all went well */
    public int run()
            throws IOException
    {
        List<HealthServer> servers = new ArrayList<>();
        if (config.run().healthPort() > 0) {
            servers.add(serve(config.run().healthAddress(), config.run().healthPort(), false));
        }
        if (config.run().metricsAddress().isPresent()) {
            String address = config.run().metricsAddress().get();
            int colon = address.lastIndexOf(':');
            servers.add(serve(address.substring(0, colon).replace("[", "").replace("]", ""), Integer.parseInt(address.substring(colon + 1)), true));
        }
        if (config.run().cleanupOnShutdown() == CleanupMode.AUTO && config.apiServer().host().isPresent() && config.run().pod().isEmpty()) {
            // In a pod, but the manifest lacks the downward API: every stop would look like an uninstall.
            log.warn("cleanupOnShutdown is auto but POD_NAME, POD_NAMESPACE or NODE_NAME is not set: every stop (an update, a restart, a node "
                    + "shutdown) will remove the plugin as an uninstall does; set them from the downward API (fieldRef metadata.name, "
                    + "metadata.namespace, spec.nodeName)");
        }
        KubeWork kube = new KubeWork(Clock.SYSTEM);
        Optional<StartupTaint> taint = startupTaint();
        taint.ifPresent(remover -> attach(remover, kube, status, metrics));
        Optional<PluginToken> pluginToken = pluginToken();
        pluginToken.ifPresent(token -> {
            status.addDetail(token::describe);
            status.addCondition(token::expired);
            kube.add(token);
        });
        SignalHandler handler = this::onSignal;
        for (String signal : SIGNALS) {
            // The JVM installs no handler for a signal ignored by whoever started it (nohup), and says so by returning SIG_IGN.
            if (Signal.handle(new Signal(signal), handler) == SignalHandler.SIG_IGN) {
                log.warn("SIG{} was ignored by what started the agent (nohup, or a shell's background job), and stays ignored: it will not"
                        + " stop the agent", signal);
            }
        }
        // Asked only now: the calls are linked on a thread of their own since the JVM started.
        log.info("File calls: {}", io.cnichain.core.fs.linux.FileSystemCalls.get().describe());
        ShutdownDecision decision;
        try {
            try {
                loop = new ReconcileLoop(engine, FileSystems.getDefault()::newWatchService, status, metrics, policy, Clock.SYSTEM);
                if (!stopRequested.get()) {
                    loop.run();
                }
            }
            finally {
                // The taint stays as it is: it is never added back, and a call under way is abandoned.
                kube.close();
            }
            if (!stopRequested.get()) {
                log.error("The reconcile loop ended without a stop signal; exiting");
                return 1;
            }
            // Decided while /metrics still answers, so that the decision can be seen there.
            decision = ShutdownDecider.fromConfig(config, Clock.SYSTEM).decide();
            metrics.shutdownDecision(decision.decisionLabel(), decision.reason().label());
        }
        finally {
            servers.forEach(HealthServer::stop);
        }
        if (!decision.cleanUp()) {
            log.info("{}: leaving our CNI entries, kubeconfig and binaries in place: {} (cleanupOnShutdown {}). Exiting.", stopSignal,
                    decision.detail(), config.run().cleanupOnShutdown().yaml());
            return 0;
        }
        log.info("{}: removing our CNI entries, kubeconfig and binaries: {} (cleanupOnShutdown {})", stopSignal, decision.detail(),
                config.run().cleanupOnShutdown().yaml());
        UninstallReport report = engine.uninstall();
        if (report.succeeded()) {
            log.info("Exiting.");
            return 0;
        }
        log.error("Exiting with {} cleanup failure(s): {}", report.failures().size(), String.join("; ", report.failures()));
        return 1;
    }

    private HealthServer serve(String host, int port, boolean metricsOnly)
            throws IOException
    {
        HealthServer server;
        try {
            server = new HealthServer(InetAddress.getByName(host), port, status, metrics, policy.stuckAfter(), metricsOnly);
        }
        catch (BindException e) {
            // Its own settings' names: the same socket for both, or an address this machine does not have.
            throw new CniChainException(ErrorCode.BAD_CONFIG, "cannot listen on " + host + ":" + port + " for " + (metricsOnly ? "/metrics (metricsAddress)"
                    : "the health endpoints (healthAddress, healthPort)") + ": " + e.getMessage());
        }
        server.start();
        return server;
    }

    /** The start-up taint follows readiness, told after every pass. */
    static void attach(StartupTaint remover, KubeWork kube, AgentStatus status, AgentMetrics metrics)
    {
        status.onReadiness(ready -> {
            remover.onReadiness(ready);
            kube.wake();
        });
        status.addDetail(remover::describe);
        metrics.addGauge(StartupTaint.METRIC_NAME, StartupTaint.METRIC_HELP, remover::removedGauge);
        kube.add(remover);
    }

    private Optional<StartupTaint> startupTaint()
    {
        if (!config.nodeTaint().enabled()) {
            return Optional.empty();
        }
        String node = config.nodeTaint().nodeName().orElseThrow();
        String key = config.nodeTaint().key();
        return Optional.of(new StartupTaint(attempt("lift-taint", StartupTaint::parse, () -> StartupTaint.lift(client(), node, key)), node, key));
    }

    /** Made only for a call in this process: the agent that calls in children never loads the HTTP client. */
    private KubeApiClient client()
    {
        return new KubeApiClient(config.apiServer(), CALL_DEADLINE, Clock.SYSTEM);
    }

    /** In a child when the agent runs from its distribution, so that it holds no TLS stack between its calls. */
    private <T> Attempt<T> attempt(String call, Function<String, T> value, Attempt<T> inProcess)
    {
        return ChildAttempt.launcher().map(launcher -> ChildAttempt.of(launcher, ChildAttempt.arguments(call, config), value, CHILD_DEADLINE))
                .orElse(inProcess);
    }

    private Optional<PluginToken> pluginToken()
    {
        Optional<String> account = config.kubeconfig().serviceAccount();
        if (account.isEmpty()) {
            return Optional.empty();
        }
        if (config.run().pod().isEmpty() || config.apiServer().host().isEmpty() || config.apiServer().port().isEmpty()) {
            log.error("kubeconfig.serviceAccount is {} but POD_NAME, POD_NAMESPACE, NODE_NAME or the API server's address is not set: the agent "
                    + "cannot request the plugin's token, so it writes no kubeconfig and patches nothing", account.get());
            return Optional.empty();
        }
        try {
            // Made now, before the loop arms its watches: the token's arrival is then an event in a watched directory.
            java.nio.file.Files.createDirectories(KubeconfigSettings.REQUESTED_TOKEN.getParent(),
                    java.nio.file.attribute.PosixFilePermissions.asFileAttribute(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
        }
        catch (IOException e) {
            log.error("Cannot make {} for the plugin's token: {}; the agent writes no kubeconfig and patches nothing", KubeconfigSettings.REQUESTED_TOKEN
                    .getParent(), e.getMessage());
            return Optional.empty();
        }
        PodIdentity pod = config.run().pod().get();
        Attempt<PluginToken.Issued> attempt = attempt("plugin-token", PluginToken.Issued::parse,
                () -> PluginToken.request(client(), pod, account.get(), KubeconfigSettings.REQUESTED_TOKEN));
        return Optional.of(new PluginToken(attempt, pod.namespace() + "/" + account.get(), KubeconfigSettings.REQUESTED_TOKEN, Clock.SYSTEM));
    }

    private void onSignal(Signal signal)
    {
        if (!stopRequested.compareAndSet(false, true)) {
            log.warn("SIG{} received again; exiting at once, cleanup unfinished", signal.getName());
            Runtime.getRuntime().halt(1);
        }
        stopSignal = "SIG" + signal.getName();
        log.info("SIG{} received; stopping watches, then {}", signal.getName(), switch (config.run().cleanupOnShutdown()) {
            case ALWAYS -> "removing what we installed";
            case NEVER -> "exiting without cleanup";
            case AUTO -> "deciding whether this is an uninstall";
        });
        Thread.ofPlatform().name("shutdown-watchdog").daemon().start(() -> {
            try {
                Thread.sleep(config.run().shutdownTimeout().toMillis());
                log.error("Shutdown did not finish within {} s; exiting with cleanup unfinished", config.run().shutdownTimeout().toSeconds());
                Runtime.getRuntime().halt(1);
            }
            catch (InterruptedException ignored) {
                // the process is exiting anyway
            }
        });
        ReconcileLoop current = loop;
        if (current != null) {
            current.stop();
        }
    }
}
