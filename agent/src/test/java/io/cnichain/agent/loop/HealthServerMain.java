package io.cnichain.agent.loop;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/** A health server alone in a JVM, ready and healthy: it prints its port, and ends when its standard input does. */
final class HealthServerMain
{
    private HealthServerMain() {}

    public static void main(String[] args)
            throws IOException
    {
        AgentStatus status = new AgentStatus(io.cnichain.agent.time.Clock.SYSTEM);
        status.loopRunning(true);
        status.publish(List.of());
        HealthServer server = new HealthServer(java.net.InetAddress.getLoopbackAddress(), 0, status, new AgentMetrics(), Duration.ofSeconds(30), false);
        server.start();
        System.out.println("port " + server.port());
        System.out.flush();
        System.in.transferTo(java.io.OutputStream.nullOutputStream());
        server.stop();
    }
}
