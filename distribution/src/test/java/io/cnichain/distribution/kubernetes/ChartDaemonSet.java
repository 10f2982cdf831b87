package io.cnichain.distribution.kubernetes;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;

import java.util.Map;

/**
 * The chart's DaemonSet as {@code helm template} renders it for some values, for the image suite to run its pod's
 * containers under podman: the pod spec, and what the kubelet would resolve (environment variables from the
 * downward API and ConfigMaps, a ConfigMap's files).
 */
public final class ChartDaemonSet
{
    private final Rendered rendered;

    private ChartDaemonSet(Rendered rendered)
    {
        this.rendered = rendered;
    }

    /** @param sets {@code --set} values on top of the chart's defaults */
    public static ChartDaemonSet render(Map<String, Object> sets)
    {
        return new ChartDaemonSet(HelmChart.render(sets));
    }

    public PodSpec pod()
    {
        return rendered.pod();
    }

    /** The agent's container. */
    public Container agent()
    {
        return rendered.agent();
    }

    /**
     * The container's environment as the kubelet sets it, with the downward API's node name
     * ({@link #NODE_NAME}) and pod name ({@link #POD_NAME}) and the API server's service.
     */
    public Map<String, String> environment(Container container)
    {
        return rendered.environment(container);
    }

    /** A rendered ConfigMap's data: the files of a volume of it. */
    public Map<String, String> configMapData(String name)
    {
        return rendered.configMap(name).getData();
    }

    public static final String NODE_NAME = Rendered.NODE_NAME;
    public static final String POD_NAME = Rendered.POD_NAME;
}
