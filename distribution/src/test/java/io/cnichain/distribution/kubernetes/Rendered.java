package io.cnichain.distribution.kubernetes;

import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ConfigLoader;
import io.cnichain.testkit.KubeletVolume;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One overlay as {@code kubectl kustomize} rendered it, parsed: what the tests look up in it, and the agent's
 * configuration as a pod of its DaemonSet would load it.
 *
 * @param objects every object, in order
 */
record Rendered(List<HasMetadata> objects)
{
    /** The node name the downward API gives in these checks. */
    static final String NODE_NAME = "node-a";
    /** The pod name the downward API gives in these checks. */
    static final String POD_NAME = "cni-chain-x7k2p";
    /** What Kubernetes sets in every container: the API server's service. */
    static final Map<String, String> SERVICE_ENV = Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", "443");

    Rendered
    {
        objects = List.copyOf(objects);
    }

    private static final Map<Path, Rendered> RENDERED = new java.util.concurrent.ConcurrentHashMap<>();

    /** Renders a kustomization once per test run (the objects are not changed by the tests). */
    static Rendered of(Path kustomization)
    {
        return RENDERED.computeIfAbsent(kustomization, dir -> new Rendered(KubernetesObjects.parse(Kustomize.render(dir))));
    }

    <T extends HasMetadata> List<T> all(Class<T> type)
    {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    <T extends HasMetadata> T one(Class<T> type)
    {
        List<T> found = all(type);
        if (found.size() != 1) {
            throw new AssertionError("expected one " + type.getSimpleName() + ", found " + found.size());
        }
        return found.get(0);
    }

    <T extends HasMetadata> T named(Class<T> type, String name)
    {
        List<T> found = all(type).stream().filter(o -> o.getMetadata().getName().equals(name)).toList();
        if (found.size() != 1) {
            throw new AssertionError("expected one " + type.getSimpleName() + " " + name + ", found " + found.size());
        }
        return found.get(0);
    }

    Namespace namespace()
    {
        return one(Namespace.class);
    }

    /** The agent's, named cni-chain (a component may add others of the kind). */
    ServiceAccount serviceAccount()
    {
        return named(ServiceAccount.class, "cni-chain");
    }

    /** The agent's, named cni-chain (a component may add others of the kind). */
    ClusterRole clusterRole()
    {
        return named(ClusterRole.class, "cni-chain");
    }

    /** The agent's, named cni-chain (a component may add others of the kind). */
    Role role()
    {
        return named(Role.class, "cni-chain");
    }

    /** The agent's, named cni-chain (a component may add others of the kind). */
    RoleBinding roleBinding()
    {
        return named(RoleBinding.class, "cni-chain");
    }

    /** The agent's, named cni-chain (a component may add others of the kind). */
    ClusterRoleBinding clusterRoleBinding()
    {
        return named(ClusterRoleBinding.class, "cni-chain");
    }

    /** The agent's, labelled app.kubernetes.io/name=cni-chain (a component may add others of the kind; a namePrefix renames it). */
    DaemonSet daemonSet()
    {
        List<DaemonSet> agents = all(DaemonSet.class).stream()
                .filter(d -> "cni-chain".equals(d.getMetadata().getLabels() == null ? null : d.getMetadata().getLabels().get("app.kubernetes.io/name"))).toList();
        if (agents.size() != 1) {
            throw new AssertionError("expected one DaemonSet labelled app.kubernetes.io/name=cni-chain, found " + agents.size());
        }
        return agents.get(0);
    }

    PodSpec pod()
    {
        return daemonSet().getSpec().getTemplate().getSpec();
    }

    /** The agent's container. */
    Container agent()
    {
        return pod().getContainers().stream().filter(c -> c.getName().equals("cni-chain")).findFirst()
                .orElseThrow(() -> new AssertionError("no container cni-chain"));
    }

    ConfigMap configMap(String name)
    {
        return all(ConfigMap.class).stream().filter(c -> c.getMetadata().getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no ConfigMap " + name + " in the rendered objects"));
    }

    Volume volume(String name)
    {
        return pod().getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no volume " + name));
    }

    /** The mount of a container at a path, if any. */
    static Optional<VolumeMount> mountAt(Container container, Path path)
    {
        return container.getVolumeMounts().stream().filter(m -> Path.of(m.getMountPath()).equals(path)).findFirst();
    }

    /**
     * The container's environment as the kubelet would set it: literal values, ConfigMap keys (the ConfigMap must
     * be among the rendered objects), the node's name, and the API server's service.
     */
    Map<String, String> environment(Container container)
    {
        Map<String, String> env = new LinkedHashMap<>(SERVICE_ENV);
        for (EnvVar variable : container.getEnv()) {
            env.put(variable.getName(), value(variable));
        }
        return env;
    }

    private String value(EnvVar variable)
    {
        if (variable.getValueFrom() == null) {
            return requireNonNull(variable.getValue(), variable.getName() + " has neither value nor valueFrom");
        }
        var from = variable.getValueFrom();
        if (from.getConfigMapKeyRef() != null) {
            var ref = from.getConfigMapKeyRef();
            String value = configMap(ref.getName()).getData().get(ref.getKey());
            if (value == null) {
                throw new AssertionError(variable.getName() + ": ConfigMap " + ref.getName() + " has no key " + ref.getKey());
            }
            return value;
        }
        if (from.getFieldRef() != null) {
            switch (from.getFieldRef().getFieldPath()) {
                case "spec.nodeName":
                    return NODE_NAME;
                case "metadata.name":
                    return POD_NAME;
                case "metadata.namespace":
                    return daemonSet().getMetadata().getNamespace();
                default:
                    break;
            }
        }
        throw new AssertionError(variable.getName() + ": an unexpected valueFrom " + from);
    }

    /**
     * The agent's configuration as its container loads it: the file named by {@code --config} from the ConfigMap
     * mounted there (laid out as the kubelet does), the container's environment, and no other flags.
     *
     * @param scratch a directory for the configuration file
     */
    AgentConfig agentConfig(Path scratch)
    {
        List<String> args = agent().getArgs();
        if (args.size() != 3 || !args.get(0).equals("run") || !args.get(1).equals("--config")) {
            throw new AssertionError("the agent's args are not [run, --config, FILE]: " + args);
        }
        Path file = Path.of(args.get(2));
        VolumeMount mount = mountAt(agent(), file.getParent())
                .orElseThrow(() -> new AssertionError("nothing is mounted at " + file.getParent() + " for --config " + file));
        Volume volume = volume(mount.getName());
        if (volume.getConfigMap() == null) {
            throw new AssertionError("the volume at " + mount.getMountPath() + " is not a ConfigMap");
        }
        String yaml = configMap(volume.getConfigMap().getName()).getData().get(file.getFileName().toString());
        if (yaml == null) {
            throw new AssertionError("ConfigMap " + volume.getConfigMap().getName() + " has no key " + file.getFileName());
        }
        // Projected as the kubelet does: the file is a link through ..data.
        Path projected = KubeletVolume.configMapFile(scratch.resolve(mount.getName()), file.getFileName().toString(), yaml);
        return ConfigLoader.load(Optional.of(projected), environment(agent()), Map.of());
    }
}
