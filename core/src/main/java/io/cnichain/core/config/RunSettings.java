package io.cnichain.core.config;

import java.time.Duration;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The long-running agent's options ({@code cni-chain run}).
 *
 * @param healthPort        the health and metrics port, 0 for none
 * @param cleanupOnShutdown what the agent does with what it installed when it is stopped
 * @param shutdownTimeout   how long cleanup on shutdown may take
 * @param periodicCheck     how often the agent checks, without any event, that every directory it wants is watched and
 *                          that the runtime's file is as the last pass left it; {@link Duration#ZERO} for never
 * @param pod               the agent's pod and node, from the downward API, when all three are given
 * @param healthAddress     the address the health port listens on (an IP address literal)
 * @param metricsAddress    where a listener of its own serves {@code /metrics} alone ({@code address:port}), if anywhere
 */
public record RunSettings(int healthPort, CleanupMode cleanupOnShutdown, Duration shutdownTimeout, Duration periodicCheck, Optional<PodIdentity> pod,
                          String healthAddress, Optional<String> metricsAddress)
{
    /** Listening on loopback only, the default. */
    public RunSettings(int healthPort, CleanupMode cleanupOnShutdown, Duration shutdownTimeout, Duration periodicCheck, Optional<PodIdentity> pod)
    {
        this(healthPort, cleanupOnShutdown, shutdownTimeout, periodicCheck, pod, ConfigLoader.DEFAULT_HEALTH_ADDRESS, Optional.empty());
    }

    public RunSettings
    {
        requireNonNull(healthAddress, "healthAddress is null");
        requireNonNull(metricsAddress, "metricsAddress is null");
        requireNonNull(cleanupOnShutdown, "cleanupOnShutdown is null");
        requireNonNull(pod, "pod is null");
        requireNonNull(shutdownTimeout, "shutdownTimeout is null");
        requireNonNull(periodicCheck, "periodicCheck is null");
    }
}
