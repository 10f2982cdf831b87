package io.cnichain.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.agent.time.Clock;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ApiServerSettings;
import io.cnichain.core.config.Placement;
import io.cnichain.core.placement.PlacementDecision;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code placement: auto} and {@code drop-in}: the node's container runtime as its Node object reports it (the kubelet
 * fills {@code status.nodeInfo.containerRuntimeVersion} from the runtime's CRI answer), read at start, and again while
 * the API server is busy or not reached: a fleet of nodes starting at once meets its rate limits. For {@code auto}, a
 * runtime that cannot be known means {@code patch}, which every runtime runs; for {@code drop-in}, a runtime known to
 * ignore drop-ins makes the agent say so rather than place one that never runs.
 */
public final class NodeRuntime
{
    /** Start-up waits at most this long for the whole answer: then it patches, as for any unknown runtime. */
    static final Duration TIMEOUT = Duration.ofSeconds(3);
    /** How long start-up goes on asking a busy API server: the agent serves no probe before it has decided. */
    public static final Duration PATIENCE = Duration.ofSeconds(15);
    private static final Logger log = LoggerFactory.getLogger(NodeRuntime.class);
    private static final KubeApiClient.Hint HINT = new KubeApiClient.Hint(" (placement auto needs get on nodes, which the chart's and "
            + "kustomize's ClusterRole grant)", " (NODE_NAME must be the node's name, from the downward API)");

    private NodeRuntime() {}

    public static PlacementDecision placement(AgentConfig config)
    {
        return placement(config, Optional.empty());
    }

    /** @param launcher the distribution's launcher: the running agent reads in a child, so that it holds no TLS stack afterwards */
    public static PlacementDecision placement(AgentConfig config, Optional<Path> launcher)
    {
        return switch (config.placement()) {
            case PATCH -> PlacementDecision.configured(Placement.PATCH).orElseThrow();
            case AUTO -> {
                Reported reported = read(config, launcher);
                yield reported.version().map(PlacementDecision::forRuntime).orElseGet(() -> PlacementDecision.runtimeUnknown(reported.whyUnknown()));
            }
            case DROP_IN -> read(config, launcher).version().map(PlacementDecision::dropInOn)
                    .orElseGet(() -> PlacementDecision.configured(Placement.DROP_IN).orElseThrow());
        };
    }

    /** One read, in this process. */
    public static String version(KubeApiClient client, String node)
            throws ApiCallException
    {
        String path = "/api/v1/nodes/" + node;
        JsonNode version = client.get(path, HINT).path("status").path("nodeInfo").path("containerRuntimeVersion");
        if (!version.isTextual()) {
            throw new ApiCallException("response", "GET " + path + ": the Node has no status.nodeInfo.containerRuntimeVersion");
        }
        // Shortened: a value that long names no runtime, and it goes into the log and detect's output.
        return KubeApiClient.shortened(version.asText());
    }

    public record Reported(Optional<String> version, String whyUnknown) {}

    private static Reported read(AgentConfig config, Optional<Path> launcher)
    {
        Optional<String> node = config.nodeTaint().nodeName();
        ApiServerSettings api = config.apiServer();
        List<String> missing = new ArrayList<>();
        if (node.isEmpty()) {
            missing.add("NODE_NAME");
        }
        if (api.host().isEmpty()) {
            missing.add("KUBERNETES_SERVICE_HOST");
        }
        if (api.port().isEmpty()) {
            missing.add("KUBERNETES_SERVICE_PORT");
        }
        if (!missing.isEmpty()) {
            return unknown(String.join(", ", missing) + (missing.size() == 1 ? " is" : " are") + " not set");
        }
        return readPatiently(attempt(config, launcher, Clock.SYSTEM.nanoTime() + PATIENCE.toNanos()), node.get(), Clock.SYSTEM, PATIENCE);
    }

    /**
     * One read, within what is left until {@code endNanos}, a child's start included: the agent serves no probe before
     * it has decided, and its liveness probe gives it about 20 s.
     */
    static Attempt<String> attempt(AgentConfig config, Optional<Path> launcher, long endNanos)
    {
        String node = config.nodeTaint().nodeName().orElseThrow();
        return () -> {
            Duration left = Duration.ofNanos(endNanos - Clock.SYSTEM.nanoTime());
            if (left.isNegative() || left.isZero()) {
                throw new ApiCallException("timeout", "GET /api/v1/nodes/" + node + ": not asked, start-up's " + PATIENCE.toSeconds() + " s are over");
            }
            Duration call = left.compareTo(TIMEOUT) < 0 ? left : TIMEOUT;
            if (launcher.isEmpty()) {
                return version(new KubeApiClient(config.apiServer(), call, Clock.SYSTEM), node);
            }
            List<String> arguments = new ArrayList<>(ChildAttempt.arguments("node-runtime", config));
            arguments.addAll(List.of("--deadline-millis", Long.toString(call.toMillis())));
            return ChildAttempt.of(launcher.get(), arguments, value -> value, left).run();
        };
    }

    public static Reported readPatiently(Attempt<String> attempt, String node, Clock clock, Duration patience)
    {
        try {
            return new Reported(Optional.of(attempt.until(clock.nanoTime() + patience.toNanos(), clock,
                    first -> log.warn("Cannot read node {}'s container runtime yet, asking again for up to {} s before placing by patch: {}", node,
                            patience.toSeconds(), first.getMessage()))), "");
        }
        catch (ApiCallException e) {
            return unknown(e.getMessage());
        }
    }

    private static Reported unknown(String why)
    {
        return new Reported(Optional.empty(), why);
    }
}
