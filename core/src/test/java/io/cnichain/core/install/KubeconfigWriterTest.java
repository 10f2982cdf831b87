package io.cnichain.core.install;

import io.cnichain.core.CniChainException;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(TempNodeExtension.class)
class KubeconfigWriterTest
{
    TestNode node;

    @BeforeEach
    void setUp(TestNode node)
    {
        this.node = node;
    }

    KubeconfigWriter writer()
    {
        AgentConfig config = node.config();
        return new KubeconfigWriter(config.host(), config.kubeconfig(), config.apiServer(), config.kubeconfigHostPath(), new AtomicFileWriter());
    }

    @Test
    void writesLinkerdsKubeconfigWithModeAndOnlyWhenItChanges()
            throws IOException
    {
        assertThat(writer().ensure()).isTrue();
        Path file = node.conf("ZZZ-linkerd-cni-kubeconfig");
        String content = Files.readString(file);
        assertThat(content).startsWith("# Kubeconfig file for linkerd CNI plugin.\napiVersion: v1\nkind: Config\n")
                .contains("    server: https://10.96.0.1:443\n")
                .contains("    certificate-authority-data: " + Base64.getEncoder().encodeToString(Files.readAllBytes(node.serviceAccountDir().resolve("ca.crt"))))
                .contains("    token: token-one\n")
                .contains("current-context: linkerd-cni-context\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        Object inode = Files.getAttribute(file, "unix:ino");

        assertThat(writer().ensure()).as("unchanged content is not rewritten").isFalse();
        assertThat(Files.getAttribute(file, "unix:ino")).isEqualTo(inode);

        Files.writeString(node.serviceAccountDir().resolve("token"), "token-two\n");
        assertThat(writer().ensure()).isTrue();
        assertThat(Files.readString(file)).contains("    token: token-two\n").doesNotContain("token-one");
    }

    @Test
    void redactedFormNeverHoldsTheToken()
    {
        KubeconfigRenderer.Rendered rendered = KubeconfigRenderer.render("https://10.96.0.1:443", "s3cr3t-token", Optional.empty());
        assertThat(rendered.full()).contains("token: s3cr3t-token").contains("insecure-skip-tls-verify: true");
        assertThat(rendered.redacted()).doesNotContain("s3cr3t-token").contains("token: <redacted>");
        assertThat(rendered.toString()).doesNotContain("s3cr3t-token");
    }

    @Test
    void bracketsOnlyForIpv6Hosts()
    {
        assertThat(KubeconfigRenderer.serverUrl("https", "10.96.0.1", "443")).isEqualTo("https://10.96.0.1:443");
        assertThat(KubeconfigRenderer.serverUrl("https", "[10.96.0.1]", "443")).isEqualTo("https://10.96.0.1:443");
        assertThat(KubeconfigRenderer.serverUrl("https", "fd00:10:96::1", "443")).isEqualTo("https://[fd00:10:96::1]:443");
        assertThat(KubeconfigRenderer.serverUrl("https", "[fd00::1]", "6443")).isEqualTo("https://[fd00::1]:6443");
        assertThat(KubeconfigRenderer.serverUrl("http", "kubernetes.default.svc", "80")).isEqualTo("http://kubernetes.default.svc:80");
    }

    @Test
    void missingTokenOrServerIsAClearError()
            throws IOException
    {
        Files.delete(node.serviceAccountDir().resolve("token"));
        assertThatThrownBy(() -> writer().ensure()).isInstanceOf(CniChainException.class)
                .hasMessage(node.serviceAccountDir().resolve("token") + ": the service-account token does not exist");
        Files.writeString(node.serviceAccountDir().resolve("token"), "t");
        node.env().remove("KUBERNETES_SERVICE_HOST");
        assertThatThrownBy(() -> writer().ensure()).hasMessageContaining("KUBERNETES_SERVICE_HOST not set");
        assertThat(node.conf("ZZZ-linkerd-cni-kubeconfig")).doesNotExist();
    }
}
