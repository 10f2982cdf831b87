package io.cnichain.distribution.cluster;

import io.cnichain.agent.kube.KubeApiClient;
import io.cnichain.agent.kube.KubeWork;
import io.cnichain.agent.kube.NodeRuntime;
import io.cnichain.agent.kube.PluginToken;
import io.cnichain.agent.kube.StartupTaint;
import io.cnichain.agent.shutdown.ShutdownDecider;
import io.cnichain.agent.shutdown.ShutdownDecision;
import io.cnichain.agent.time.Clock;
import io.cnichain.core.config.ApiServerSettings;
import io.cnichain.core.config.CleanupMode;
import io.cnichain.core.config.PodIdentity;
import io.cnichain.testkit.Await;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fleet of agents against the kit's real API server: {@value #AGENTS_DEFAULT} simulated agents (set
 * {@code -Dcnichain.fleet.agents}), each with its own Node (a Node object needs no kubelet), its own pod of the chart's
 * DaemonSet (bound to that Node by the scheduler, never started) and that pod's bound token, and the agent's own API code:
 * its client, its worker with the plugin's token and the start-up taint, its Node read for {@code placement: auto}, and
 * its decision at SIGTERM. The API server's own metrics ({@code apiserver_request_total}, {@code process_cpu_seconds_total})
 * judge each step; docs/performance.md has the table. Not part of the cluster suite's run (it takes about 15 minutes):
 * {@code scripts/test-cluster KIT_DIR LINKERD_DIR -Dit.test=FleetSimulation}.
 */
@RealCluster
class FleetSimulation
{
    static final int AGENTS_DEFAULT = 1000;
    static final int AGENTS = Integer.getInteger("cnichain.fleet.agents", AGENTS_DEFAULT);
    static final Duration STEADY = Duration.ofSeconds(Long.getLong("cnichain.fleet.steadySeconds", 300));
    static final String TAINT = "cni-chain.io/not-ready";

    @Test
    @org.junit.jupiter.api.Timeout(value = 40, unit = java.util.concurrent.TimeUnit.MINUTES)
    void aFleetAgainstOneApiServer(Cluster cluster, ChartRelease release)
            throws Exception
    {
        ApiMetrics metrics = new ApiMetrics(cluster);
        List<String> table = new ArrayList<>();
        table.add("| step | seconds | agents' requests | a second, busiest minute | API server: requests of those kinds | API server CPU s | outcome |");
        table.add("|---|---|---|---|---|---|---|");
        try (Fleet fleet = Fleet.create(cluster, release, AGENTS)) {
            ApiMetrics.Window quiet = metrics.window(() -> Await.pauseMicros(30_000_000));
            table.add(quiet.row("background, no agent (30 s)", "the rate the kit's own components make"));

            ApiMetrics.Window start = metrics.window(() -> {
                fleet.startAll(Duration.ofSeconds(10));
                fleet.awaitAll(Duration.ofMinutes(5), Agent::settled, "every agent has its token and lifted its taint");
            });
            int startKnew = fleet.count(Agent::knowsItsRuntime);
            table.add(start.row("start: " + AGENTS + " agents within 10 s", fleet.count(Agent::settled) + " settled, " + startKnew
                    + " learnt their runtime"));

            ApiMetrics.Window steady = metrics.window(() -> Await.pauseMicros(STEADY.toNanos() / 1000));
            table.add(steady.row("steady state, " + STEADY.toSeconds() + " s", steady.agentsPerSecond() + " requests/s"));

            List<Agent> restarting = fleet.agents().subList(0, AGENTS / 2);
            ApiMetrics.Window restart = metrics.window(() -> {
                cluster.kit().stopApiServer();
                fleet.restartAll(restarting);
                Await.pauseMicros(10_000_000);
                cluster.kit().startApiServer();
                fleet.awaitAll(Duration.ofMinutes(2), Agent::settled, "every restarted agent settled within 2 minutes of the API server's return");
            });
            table.add(restart.row("API server killed; " + restarting.size() + " agents restart; back after 10 s",
                    "all settled " + restart.seconds() + " s after the kill; " + fleet.count(Agent::knowsItsRuntime) + " know their runtime"));

            List<ShutdownDecision> outage = new ArrayList<>();
            ApiMetrics.Window down = metrics.window(() -> {
                cluster.kit().stopApiServer();
                outage.addAll(fleet.decideAll(fleet.agents().subList(0, Math.min(100, AGENTS))));
                Await.pauseMicros(60_000_000);
                cluster.kit().startApiServer();
            });
            table.add(down.row("60 s of outage; " + Math.min(100, AGENTS) + " agents stopped in it", tally(outage)));
            assertThat(outage).as("no agent removes anything during the outage").noneMatch(ShutdownDecision::cleanUp);

            // Pods of the simulated nodes never end (no kubelet confirms their containers stopped): the DaemonSet's
            // adoption of the running pods comes first, then the rolling updates, whose old pods stay as they stop.
            List<ShutdownDecision> orphaned = new ArrayList<>();
            ApiMetrics.Window orphan = metrics.window(() -> {
                fleet.orphanAndReapply();
                cluster.kubectl().ok("-n", ChartRelease.NAMESPACE, "rollout", "restart", "daemonset/cni-chain");
                orphaned.addAll(fleet.decideAll(fleet.agents()));
            });
            table.add(orphan.row("--cascade=orphan, applied again, rolling update", tally(orphaned)));
            assertThat(orphaned).as("no agent removes anything after an orphan-and-re-apply").noneMatch(ShutdownDecision::cleanUp);

            List<ShutdownDecision> rolling = new ArrayList<>();
            ApiMetrics.Window roll = metrics.window(() -> {
                cluster.kubectl().ok("-n", ChartRelease.NAMESPACE, "rollout", "restart", "daemonset/cni-chain");
                rolling.addAll(fleet.decideAll(fleet.agents()));
            });
            table.add(roll.row("another rolling update: every agent stopped at once", tally(rolling)));
            assertThat(rolling).as("no agent removes anything in a rolling update").noneMatch(ShutdownDecision::cleanUp);

            List<ShutdownDecision> uninstalled = new ArrayList<>();
            ApiMetrics.Window uninstall = metrics.window(() -> {
                release.uninstall();
                uninstalled.addAll(fleet.decideAll(fleet.agents()));
            });
            table.add(uninstall.row("helm uninstall: every agent stopped at once", tally(uninstalled)));
            assertThat(uninstalled).as("every agent cleans up after helm uninstall").allMatch(ShutdownDecision::cleanUp);

            assertThat(steady.agentsPerSecond()).as("steady state: the agents' requests a second").isLessThan(1.0);
            assertThat(restart.peakMinutePerSecond()).as("after the restart: the busiest minute's requests a second").isLessThan(300.0);
        }
        finally {
            Say.step("the fleet against one API server (" + AGENTS + " agents):\n" + String.join("\n", table));
        }
    }

    private static String tally(List<ShutdownDecision> decisions)
    {
        Map<String, Integer> byReason = new TreeMap<>();
        decisions.forEach(decision -> byReason.merge(decision.decisionLabel() + " " + decision.reason().label(), 1, Integer::sum));
        // What an API error was, by its first words (the call's path, names and numbers left out), printed beside the table.
        Map<String, Integer> errors = new TreeMap<>();
        decisions.stream().filter(decision -> decision.reason() == ShutdownDecision.Reason.API_ERROR)
                .forEach(decision -> errors.merge(decision.detail().replaceAll("https?://\\S+|/\\S+|[0-9]+", "_"), 1, Integer::sum));
        errors.forEach((error, n) -> Say.step("api_error x" + n + ": " + error));
        return byReason.toString();
    }

    /** One simulated agent: the agent's API code, with its own Node, pod, token and files. */
    static final class Agent
    {
        private final PodIdentity pod;
        private final ApiServerSettings api;
        private final Path tokenFile;
        private volatile KubeWork work;
        private volatile StartupTaint taint;
        private volatile Optional<String> runtime = Optional.empty();

        Agent(PodIdentity pod, ApiServerSettings api, Path tokenFile)
        {
            this.pod = pod;
            this.api = api;
            this.tokenFile = tokenFile;
        }

        /** As the agent starts: its Node read for placement auto, then the plugin's token and the taint on its worker. */
        void start()
        {
            KubeApiClient client = new KubeApiClient(api, Duration.ofSeconds(10), Clock.SYSTEM);
            // An agent that cannot learn its runtime in time places by patch, as for any runtime it does not know.
            runtime = NodeRuntime.readPatiently(() -> NodeRuntime.version(client, pod.node()), pod.node(), Clock.SYSTEM, NodeRuntime.PATIENCE).version();
            work = new KubeWork(Clock.SYSTEM);
            taint = new StartupTaint(() -> StartupTaint.lift(client, pod.node(), TAINT), pod.node(), TAINT);
            taint.onReadiness(true);
            work.add(new PluginToken(() -> PluginToken.request(client, pod, "cni-chain-plugin", tokenFile), pod.namespace() + "/cni-chain-plugin", tokenFile,
                    Clock.SYSTEM));
            work.add(taint);
        }

        /** The agent's container restarted: a new process, with nothing but its files. */
        void restart()
        {
            stop();
            taint = null;
            runtime = Optional.empty();
            try {
                Files.deleteIfExists(tokenFile);
            }
            catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            start();
        }

        boolean settled()
        {
            return Files.exists(tokenFile) && taint != null && taint.removedGauge() == 1;
        }

        boolean knowsItsRuntime()
        {
            return runtime.isPresent();
        }

        ShutdownDecision decide()
        {
            // The chart's shutdownTimeoutSeconds, 20: half of it, as ShutdownDecider.fromConfig gives the calls.
            return new ShutdownDecider(CleanupMode.AUTO, Optional.of(pod), api, Duration.ofSeconds(10), Clock.SYSTEM).decide();
        }

        void stop()
        {
            if (work != null) {
                work.close();
            }
        }
    }

    /** The simulated agents and what the simulation made for them. */
    record Fleet(Cluster cluster, List<Agent> agents, Path dir, ExecutorService threads)
            implements AutoCloseable
    {
        static Fleet create(Cluster cluster, ChartRelease release, int size)
                throws Exception
        {
            Path dir = Files.createTempDirectory("fleet-");
            FleetObjects objects = new FleetObjects(cluster, dir);
            Map<String, Object> values = cluster.nodeValues();
            values.put("cniChain.nodeTaint.enabled", true);
            values.put("cniChain.placement", "auto");
            release.install(values);
            List<FleetObjects.Member> members = objects.nodesPodsAndTokens(size);
            List<Agent> agents = new ArrayList<>();
            for (FleetObjects.Member member : members) {
                agents.add(new Agent(member.pod(), member.api(), member.dir().resolve("plugin-token")));
            }
            return new Fleet(cluster, List.copyOf(agents), dir, Executors.newVirtualThreadPerTaskExecutor());
        }

        /** Starts every agent, spread evenly over {@code over}, as the DaemonSet's pods start on new nodes. */
        void startAll(Duration over)
        {
            long pause = over.toNanos() / 1000 / Math.max(1, agents.size());
            for (Agent agent : agents) {
                threads.submit(agent::start);
                Await.pauseMicros(pause);
            }
        }

        /** Restarts these agents at once, as their containers would. */
        void restartAll(List<Agent> restarting)
        {
            restarting.forEach(agent -> threads.submit(agent::restart));
        }

        void awaitAll(Duration within, Predicate<Agent> condition, String what)
        {
            Await.until(within, () -> count(condition) == agents.size(), () -> what + ": " + count(condition) + " of " + agents.size());
        }

        int count(Predicate<Agent> condition)
        {
            return (int) agents.stream().filter(condition).count();
        }

        /** Each agent's decision at SIGTERM, all at once. */
        List<ShutdownDecision> decideAll(List<Agent> deciding)
        {
            List<Future<ShutdownDecision>> decisions = deciding.stream().map(agent -> threads.submit(agent::decide)).toList();
            List<ShutdownDecision> made = new ArrayList<>();
            for (Future<ShutdownDecision> decision : decisions) {
                try {
                    made.add(decision.get());
                }
                catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
            return made;
        }

        /** {@code kubectl delete daemonset --cascade=orphan}, the same DaemonSet created again, its pods adopted. */
        void orphanAndReapply()
        {
            new FleetObjects(cluster, dir).orphanAndReapply(agents.size());
        }

        @Override
        public void close()
                throws IOException
        {
            agents.forEach(Agent::stop);
            threads.shutdownNow();
            // Pods on Nodes without a kubelet never finish a graceful deletion: gone at once, in one request each (kubectl
            // deletes one object per request, five a second).
            cluster.kubectl().run("delete", "--raw", "/api/v1/nodes?labelSelector=app.kubernetes.io%2Fpart-of%3Dcluster-suite");
            cluster.kubectl().run("delete", "--raw", "/api/v1/namespaces/" + ChartRelease.NAMESPACE + "/pods?gracePeriodSeconds=0");
            io.cnichain.distribution.runtime.Commands.run("rm", "-rf", dir.toString());
        }
    }
}
