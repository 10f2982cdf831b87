package io.cnichain.distribution.kubernetes;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.introspect.Annotated;
import tools.jackson.databind.introspect.JacksonAnnotationIntrospector;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Kubernetes objects from YAML, through fabric8's object model (which uses Jackson 3), strictly: a field the
 * model does not know is an error, so a typo'd field name fails instead of being carried along. The model's
 * classes keep unknown fields in an "additional properties" map ({@code @JsonAnySetter}); the mapper here ignores
 * that annotation, so that Jackson's {@code FAIL_ON_UNKNOWN_PROPERTIES} sees them.
 */
final class KubernetesObjects
{
    /** The kinds the manifests may hold, by apiVersion and kind. */
    private static final Map<String, Class<? extends HasMetadata>> KINDS = Map.ofEntries(
            Map.entry("v1/Namespace", Namespace.class),
            Map.entry("v1/ServiceAccount", ServiceAccount.class),
            Map.entry("v1/ConfigMap", ConfigMap.class),
            Map.entry("v1/ResourceQuota", io.fabric8.kubernetes.api.model.ResourceQuota.class),
            Map.entry("apps/v1/DaemonSet", DaemonSet.class),
            Map.entry("rbac.authorization.k8s.io/v1/ClusterRole", ClusterRole.class),
            Map.entry("rbac.authorization.k8s.io/v1/ClusterRoleBinding", ClusterRoleBinding.class),
            Map.entry("rbac.authorization.k8s.io/v1/Role", Role.class),
            Map.entry("rbac.authorization.k8s.io/v1/RoleBinding", RoleBinding.class),
            Map.entry("admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy", ValidatingAdmissionPolicy.class),
            Map.entry("admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding", ValidatingAdmissionPolicyBinding.class),
            Map.entry(NodeReadinessRule.API_VERSION + "/" + NodeReadinessRule.KIND, NodeReadinessRule.class));

    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .annotationIntrospector(new JacksonAnnotationIntrospector()
            {
                @Override
                public Boolean hasAnySetter(MapperConfig<?> config, Annotated annotated)
                {
                    return null;
                }
            })
            .build();

    private KubernetesObjects() {}

    /**
     * @param yaml one or more YAML documents, each a Kubernetes object
     * @return the objects, in order
     * @throws IllegalArgumentException for an object of an unknown kind
     * @throws tools.jackson.core.JacksonException for a field the model does not know, or a value of a wrong type
     */
    static List<HasMetadata> parse(String yaml)
    {
        List<HasMetadata> objects = new ArrayList<>();
        for (Object document : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(yaml)) {
            if (document == null) {
                continue;
            }
            if (!(document instanceof Map<?, ?> map)) {
                throw new IllegalArgumentException("not an object: " + document);
            }
            String kind = map.get("apiVersion") + "/" + map.get("kind");
            Class<? extends HasMetadata> type = KINDS.get(kind);
            if (type == null) {
                throw new IllegalArgumentException("unexpected kind " + kind + " (known: " + KINDS.keySet() + ")");
            }
            if (type == NodeReadinessRule.class) {
                // Its own class, not fabric8's: read field by field (the model's interfaces would make it generic).
                if (!Set.of("apiVersion", "kind", "metadata", "spec").containsAll(map.keySet())) {
                    throw new IllegalArgumentException("unexpected fields in " + kind + ": " + map.keySet());
                }
                NodeReadinessRule rule = new NodeReadinessRule();
                rule.setMetadata(MAPPER.convertValue(map.get("metadata"), ObjectMeta.class));
                rule.setSpec(MAPPER.convertValue(map.get("spec"), NodeReadinessRule.Spec.class));
                objects.add(rule);
                continue;
            }
            objects.add(MAPPER.convertValue(map, type));
        }
        return objects;
    }
}
