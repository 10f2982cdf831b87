package io.cnichain.distribution.kubernetes;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;

import java.io.IOException;
import java.nio.file.Files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The strict parser the manifest tests rely on: a typo'd field or an unknown kind is an error, not a pass. */
class KubernetesObjectsTest
{
    private static String daemonSet()
            throws IOException
    {
        return Files.readString(Kustomize.MANIFESTS.resolve("base/daemonset.yaml"));
    }

    @Test
    void readsTheDaemonSetAsWritten()
            throws IOException
    {
        DaemonSet daemonSet = (DaemonSet) KubernetesObjects.parse(daemonSet()).get(0);
        assertThat(daemonSet.getSpec().getTemplate().getSpec().getContainers().get(0).getResources().getLimits().get("memory"))
                .hasToString("192Mi");
    }

    @Test
    void typoInANestedFieldIsAnError()
            throws IOException
    {
        String typo = daemonSet().replace("readOnlyRootFilesystem:", "readOnlyRootFileSystem:");
        assertThat(typo).isNotEqualTo(daemonSet());
        assertThatThrownBy(() -> KubernetesObjects.parse(typo)).isInstanceOf(JacksonException.class).hasMessageContaining("readOnlyRootFileSystem");
    }

    @Test
    void typoInAVolumeSourceIsAnError()
            throws IOException
    {
        String typo = daemonSet().replaceFirst("hostPath:", "hostpath:");
        assertThatThrownBy(() -> KubernetesObjects.parse(typo)).isInstanceOf(JacksonException.class).hasMessageContaining("hostpath");
    }

    @Test
    void wrongTypeIsAnError()
            throws IOException
    {
        String wrong = daemonSet().replace("terminationGracePeriodSeconds: 30", "terminationGracePeriodSeconds: [30]");
        assertThat(wrong).isNotEqualTo(daemonSet());
        assertThatThrownBy(() -> KubernetesObjects.parse(wrong)).isInstanceOf(JacksonException.class);
    }

    @Test
    void unknownKindIsAnError()
    {
        assertThatThrownBy(() -> KubernetesObjects.parse("apiVersion: v1\nkind: Secret\nmetadata: {name: x}\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("v1/Secret");
    }
}
