package io.cnichain.distribution.kubernetes;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;

/** The agent container's resources as the base DaemonSet declares them, for the image tests to measure against. */
public final class AgentResources
{
    private AgentResources() {}

    public static long memoryRequestBytes()
    {
        return bytes(agent().getResources().getRequests().get("memory"));
    }

    public static long memoryLimitBytes()
    {
        return bytes(agent().getResources().getLimits().get("memory"));
    }

    private static long bytes(Quantity quantity)
    {
        return Quantity.getAmountInBytes(quantity).longValueExact();
    }

    private static Container agent()
    {
        try {
            DaemonSet daemonSet = (DaemonSet) KubernetesObjects.parse(Files.readString(Kustomize.MANIFESTS.resolve("base/daemonset.yaml"))).get(0);
            return daemonSet.getSpec().getTemplate().getSpec().getContainers().stream().filter(c -> c.getName().equals("cni-chain")).findFirst()
                    .orElseThrow();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
