package io.cnichain.distribution.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kustomize base as the README installs it, through a kustomization of the user's own that names the images and
 * points the host paths at the kit's node: {@code kubectl apply -k}, a pod meshed, {@code kubectl delete -k} (the
 * Namespace first, with the ServiceAccount and the Role, then the cluster's objects, the DaemonSet last), the node
 * clean after it.
 */
@RealCluster
class KustomizeClusterIT
{
    static final Path BASE = Path.of(System.getProperty("cnichain.kubernetes", "kubernetes")).resolve("base").toAbsolutePath();

    @Test
    void applyMeshAndDelete(Cluster cluster, @TempDir Path dir)
            throws IOException
    {
        writeKustomization(cluster, dir);
        cluster.kubectl().ok("apply", "-k", dir.toString());
        cluster.awaitRollout("cni-chain", "cni-chain");
        assertThat(cluster.primaryChain()).endsWith(Cluster.PLUGIN);

        cluster.createNamespace("mesh-kustomize");
        cluster.createPod("mesh-kustomize", "meshed");
        String ip = cluster.awaitRunning("mesh-kustomize", "meshed", Duration.ofSeconds(60));
        assertThat(cluster.meshed("mesh-kustomize", "meshed", ip)).as("its sandbox ran linkerd-cni, which read the pod: %s",
                cluster.calls().of("mesh-kustomize", "meshed")).isTrue();

        Say.step("kubectl delete -k");
        cluster.kubectl().ok("delete", "-k", dir.toString(), "--timeout=120s");
        cluster.awaitClean(Duration.ofSeconds(60));
        cluster.createPod("mesh-kustomize", "after");
        cluster.awaitRunning("mesh-kustomize", "after", Duration.ofSeconds(60));
        assertThat(cluster.calls().of("mesh-kustomize", "after")).as("a pod after the uninstall runs without the plugin").isEmpty();
    }

    /**
     * A kustomization of the user's own, as docs/deploy.md writes it: the base as its resource (by a relative path, as
     * kustomize requires), the images named, and
     * the node's directories (the kit's) in the configuration and the DaemonSet's host paths.
     */
    static void writeKustomization(Cluster cluster, Path dir)
            throws IOException
    {
        String confDir = cluster.kit().confDir().toString();
        String binDir = cluster.kit().binDir().toString();
        String config = Files.readString(BASE.resolve("cni-chain.yaml"));
        assertThat(config).contains("\nconfDir: /etc/cni/net.d\n", "\nbinDir: /opt/cni/bin\n");
        Files.writeString(dir.resolve("cni-chain.yaml"), config.replace("\nconfDir: /etc/cni/net.d\n", "\nconfDir: " + confDir + "\n")
                .replace("\nbinDir: /opt/cni/bin\n", "\nbinDir: " + binDir + "\n"));
        String pluginImage = pluginImageOfTheBase();
        Files.writeString(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                  - %s
                images:
                  - name: %s
                    newName: %s
                    newTag: %s
                configMapGenerator:
                  - name: cni-chain-config
                    behavior: merge
                    files:
                      - cni-chain.yaml
                patches:
                  - target:
                      kind: DaemonSet
                      name: cni-chain
                    patch: |-
                      - {op: test, path: /spec/template/spec/volumes/1/name, value: cni-net-dir}
                      - {op: replace, path: /spec/template/spec/volumes/1/hostPath/path, value: %s}
                      - {op: test, path: /spec/template/spec/volumes/2/name, value: cni-bin-dir}
                      - {op: replace, path: /spec/template/spec/volumes/2/hostPath/path, value: %s}
                      - {op: test, path: /spec/template/spec/containers/0/volumeMounts/1/name, value: cni-net-dir}
                      - {op: replace, path: /spec/template/spec/containers/0/volumeMounts/1/mountPath, value: /host%s}
                      - {op: test, path: /spec/template/spec/containers/0/volumeMounts/2/name, value: cni-bin-dir}
                      - {op: replace, path: /spec/template/spec/containers/0/volumeMounts/2/mountPath, value: /host%s}
                      - {op: replace, path: /spec/template/spec/containers/0/imagePullPolicy, value: Never}
                      - {op: replace, path: /spec/template/spec/initContainers/0/imagePullPolicy, value: Never}
                """.formatted(dir.toAbsolutePath().relativize(BASE), pluginImage.substring(0, pluginImage.lastIndexOf(':')), StandInImages.PLUGIN_IMAGE, StandInImages.PLUGIN_TAG,
                confDir, binDir, confDir, binDir));
    }

    /** The image the base's init container names (Linkerd's cni-plugin), which the user's kustomization replaces. */
    private static String pluginImageOfTheBase()
            throws IOException
    {
        for (String line : Files.readAllLines(BASE.resolve("daemonset.yaml"))) {
            if (line.strip().startsWith("image:") && !line.contains("cni-chain")) {
                return line.strip().substring("image:".length()).strip();
            }
        }
        throw new IllegalStateException("no plugin image in " + BASE.resolve("daemonset.yaml"));
    }
}
