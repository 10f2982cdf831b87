package io.cnichain.adapter.calico;

import io.cnichain.core.engine.FileOutcome;
import io.cnichain.testkit.NodeGolden;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calico's layouts, each run through the real engine with the adapter pinned; every step is compared with
 * {@code golden/calico/<layout>/<step>.golden}. Calico's in-place rewrite is reproduced the way it happens: the
 * file is truncated and written through the same inode, and the engine looks at it in between.
 */
@ExtendWith(TempNodeExtension.class)
class CalicoLayoutGoldenTest
{
    static final String PINNED = "adapter: calico\n";
    static final String KUBECONFIG = """
            # Kubeconfig file for Calico CNI plugin.
            apiVersion: v1
            kind: Config
            clusters:
            - name: local
              cluster:
                server: https://10.96.0.1:443
            users:
            - name: calico
              user:
                token: calico-token-not-a-secret
            """;

    TestNode node;

    @BeforeEach
    void setUp(TestNode node)
            throws IOException
    {
        this.node = node.binaries("calico", "calico-ipam", "portmap", "loopback");
        node.write("calico-kubeconfig", KUBECONFIG);
        Files.createDirectories(node.conf("calico-tls"));
        Files.writeString(node.conf("calico-tls/etcd-ca"), "not a certificate\n");
    }

    @Test
    void conflistWithCalicoKubeconfigBesideIt()
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        NodeGolden golden = NodeGolden.start(node, PINNED, "golden", "calico", "conflist-with-kubeconfig");
        String before = golden.layout();
        golden.detect("before");
        assertThat(golden.install("install").outcomes()).extracting(FileOutcome::result).containsExactly(FileOutcome.Result.PATCHED);
        assertThat(node.read("calico-kubeconfig")).isEqualTo(KUBECONFIG);
        assertThat(golden.engine().install().outcomes()).extracting(FileOutcome::result).containsExactly(FileOutcome.Result.UNCHANGED);
        golden.uninstall("uninstall");
        assertThat(golden.layout()).isEqualTo(before);
    }

    @Test
    void partialFileAtTheMomentOfTheEvent()
            throws IOException
    {
        byte[] whole = prettyCalico();
        // calico-node restarted: the file is truncated and half written when the engine reads it.
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        Files.write(file, new byte[0], StandardOpenOption.TRUNCATE_EXISTING);
        Files.write(file, java.util.Arrays.copyOf(whole, whole.length / 2), StandardOpenOption.APPEND);
        NodeGolden golden = NodeGolden.start(node, PINNED, "golden", "calico", "partial-file");
        golden.detect("before");
        String partial = node.read("10-calico.conflist");
        assertThat(golden.install("install-while-partial").outcomes()).singleElement()
                .satisfies(o -> assertThat(o.result()).isEqualTo(FileOutcome.Result.WAITING));
        assertThat(node.read("10-calico.conflist")).as("never written from a half file").isEqualTo(partial);

        // Calico finishes its write: the next event finds a complete file and patches it.
        Files.write(file, java.util.Arrays.copyOfRange(whole, whole.length / 2, whole.length), StandardOpenOption.APPEND);
        assertThat(golden.install("install-when-complete").outcomes()).extracting(FileOutcome::result)
                .containsExactly(FileOutcome.Result.PATCHED);
        golden.uninstall("uninstall");
        assertThat(node.read("10-calico.conflist")).isEqualTo(new String(whole, StandardCharsets.UTF_8));
    }

    @Test
    void fileThatParsesButIsNotCompleteYet()
            throws IOException
    {
        // A writer that puts the list down before Calico's own plugin: it parses, but it is not Calico's file yet.
        node.write("10-calico.conflist", """
                {"name":"k8s-pod-network","cniVersion":"1.0.0","plugins":[{"type":"portmap","snat":true,"capabilities":{"portMappings":true}}]}""");
        NodeGolden golden = NodeGolden.start(node, PINNED, "golden", "calico", "parses-but-incomplete");
        golden.detect("before");
        String incomplete = node.read("10-calico.conflist");
        assertThat(golden.install("install-while-incomplete").outcomes()).singleElement().satisfies(o -> {
            assertThat(o.result()).isEqualTo(FileOutcome.Result.WAITING);
            assertThat(o.detail()).contains("not complete yet: it holds no plugin of type calico");
        });
        assertThat(node.read("10-calico.conflist")).isEqualTo(incomplete);

        Files.write(node.conf("10-calico.conflist"), prettyCalico(), StandardOpenOption.TRUNCATE_EXISTING);
        assertThat(golden.install("install-when-complete").outcomes()).extracting(FileOutcome::result)
                .containsExactly(FileOutcome.Result.PATCHED);
        golden.uninstall("uninstall");
    }

    @Test
    void confFileSettingNamesCanalsFile()
    {
        node.write("10-canal.conflist", TestNode.CALICO.replace("\"portmap\"", "\"flannel\""));
        NodeGolden golden = NodeGolden.start(node, PINNED + "adapters:\n  calico: { confFile: 10-canal.conflist }\n",
                "golden", "calico", "conf-file-setting");
        String before = golden.layout();
        golden.detect("before");
        assertThat(golden.install("install").outcomes()).extracting(FileOutcome::result).containsExactly(FileOutcome.Result.PATCHED);
        golden.uninstall("uninstall");
        assertThat(golden.layout()).isEqualTo(before);
    }

    private byte[] prettyCalico()
            throws IOException
    {
        Path scratch = node.writeAt(node.root().resolve("scratch/10-calico.conflist"), TestNode.CALICO);
        return Files.readAllBytes(scratch);
    }
}
