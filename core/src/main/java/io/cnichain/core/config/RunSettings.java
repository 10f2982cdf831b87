package io.cnichain.core.config;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * The long-running agent's options ({@code cni-chain run}).
 *
 * @param healthPort        the health and metrics port, 0 for none
 * @param cleanupOnShutdown whether the agent uninstalls when it is stopped
 * @param shutdownTimeout   how long cleanup on shutdown may take
 * @param periodicCheck     how often the agent checks, without any event, that every directory it wants is watched and
 *                          that the runtime's file is as the last pass left it; {@link Duration#ZERO} for never
 */
public record RunSettings(int healthPort, boolean cleanupOnShutdown, Duration shutdownTimeout, Duration periodicCheck)
{
    public RunSettings
    {
        requireNonNull(shutdownTimeout, "shutdownTimeout is null");
        requireNonNull(periodicCheck, "periodicCheck is null");
    }
}
