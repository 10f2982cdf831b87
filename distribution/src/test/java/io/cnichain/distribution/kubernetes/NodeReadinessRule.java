package io.cnichain.distribution.kubernetes;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Taint;

import java.util.List;

/**
 * The Node Readiness Controller's {@code NodeReadinessRule} ({@code readiness.node.x-k8s.io/v1alpha1}, cluster-scoped),
 * with the fields of its CRD: fabric8 has no model of it. Parsed as strictly as the built-in kinds: a field the CRD
 * does not have is an error.
 */
public final class NodeReadinessRule
        implements HasMetadata
{
    static final String API_VERSION = "readiness.node.x-k8s.io/v1alpha1";
    static final String KIND = "NodeReadinessRule";

    private ObjectMeta metadata;
    private Spec spec;

    /**
     * @param conditions      every condition that must hold for the taint to be lifted
     * @param enforcementMode bootstrap-only or continuous
     * @param taint           the taint the controller manages
     * @param nodeSelector    the nodes the rule applies to
     * @param dryRun          only report what it would do
     */
    public record Spec(List<Condition> conditions, String enforcementMode, Taint taint, LabelSelector nodeSelector, Boolean dryRun) {}

    /**
     * @param type           a node condition's type
     * @param requiredStatus True, False or Unknown
     */
    public record Condition(String type, String requiredStatus) {}

    @Override
    public ObjectMeta getMetadata()
    {
        return metadata;
    }

    @Override
    public void setMetadata(ObjectMeta metadata)
    {
        this.metadata = metadata;
    }

    public Spec getSpec()
    {
        return spec;
    }

    public void setSpec(Spec spec)
    {
        this.spec = spec;
    }

    @Override
    public String getKind()
    {
        return KIND;
    }

    public void setKind(String kind)
    {
        if (!KIND.equals(kind)) {
            throw new IllegalArgumentException("not a " + KIND + ": " + kind);
        }
    }

    @Override
    public String getApiVersion()
    {
        return API_VERSION;
    }

    @Override
    public void setApiVersion(String apiVersion)
    {
        if (!API_VERSION.equals(apiVersion)) {
            throw new IllegalArgumentException("not " + API_VERSION + ": " + apiVersion);
        }
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof NodeReadinessRule rule && java.util.Objects.equals(metadata, rule.metadata) && java.util.Objects.equals(spec, rule.spec);
    }

    @Override
    public int hashCode()
    {
        return java.util.Objects.hash(metadata, spec);
    }

    @Override
    public String toString()
    {
        return KIND + "(metadata=" + metadata + ", spec=" + spec + ")";
    }
}
